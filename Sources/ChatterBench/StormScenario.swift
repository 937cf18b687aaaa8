import ChatterBots
import Foundation

/// Reconnect storm: N bots connected to the sandbox, the server restarts (graceful shutdown: every socket closed
/// with 1001; a new process on the same port and the same SQLite store). People send messages to the bots over
/// REST before the restart (their replies still in flight when it comes) and while the bots come back. Figures:
/// the time until every bot is live again, from the shutdown and from the moment the server listens again; and,
/// read back from the server's store once the replies have settled, how many messages got no reply (lost) or
/// more than one (duplicated): both must be 0.
struct StormScenario {
    let context: BenchContext

    struct Measurement {
        var bots: Int
        var liveBefore: Int
        var downSeconds: Double
        var backFromShutdown: Double?
        var backFromListening: Double?
        var back: Int
        var sent: Int
        var lost: Int
        var duplicated: Int
        var settleSeconds: Double
        var errors: Int
    }

    func run() async throws -> BenchReport {
        let options = context.options
        let machine = MachineDescription.current()
        let count = options.bots.first ?? 1_000
        let runtimes = options.runtimes
        let people = max(1, count / 100)
        let spec = WorldSpec(
            botUsernames: runtimes.flatMap { runtime in (0..<count).map { "storm\(runtime.rawValue.prefix(1))\(count)_\($0)" } },
            personUsernames: (0..<people).map { "stormer\(count)_\($0)" }, password: BenchDefaults.password,
            links: (0..<(count * runtimes.count)).map { WorldSpec.Link(person: $0 % people, bot: $0, waitingMessages: 0) })
        let directory = try context.directory("storm-\(count)")
        let storePath = directory.appendingPathComponent("server.sqlite").path
        var server = try await ServerProcess.start(
            kind: options.server, storePath: storePath, world: spec, heartbeatMilliseconds: options.heartbeatMilliseconds,
            workDirectory: directory)
        guard let world = server.announcement.world else {
            await server.stop()
            throw BenchFailure("the server did not report the world it built")
        }
        let endpoint = server.endpoint
        var measurements: [FleetProcess.Runtime: Measurement] = [:]
        for (index, runtime) in runtimes.enumerated() {
            do {
                let (measurement, restarted) = try await measure(
                    runtime, count: count, offset: index * count, world: world, server: server, storePath: storePath,
                    directory: directory)
                measurements[runtime] = measurement
                server = restarted
            } catch {
                await server.stop()
                throw error
            }
        }
        await server.stop()
        return report(measurements, count: count, machine: machine, endpoint: endpoint)
    }

    private func measure(
        _ runtime: FleetProcess.Runtime, count: Int, offset: Int, world: BenchWorld, server: ServerProcess,
        storePath: String, directory: URL
    ) async throws -> (Measurement, ServerProcess) {
        let options = context.options
        let bots = Array(world.bots[offset..<(offset + count)])
        let links = world.links.filter { $0.bot >= offset && $0.bot < offset + count }
        let fleet = try await context.fleet(runtime, bots: bots, world: world, endpoint: server.endpoint, name: "storm-\(count)-\(runtime)")
        // A failure on the way stops the fleet, instead of leaving it to the end of the bench.
        return try await fleet.stoppingOnError {
            try await fleet.start()
            // The storm needs every bot live first: start-up is CPU-bound and took up to 174 s for 10,000 bots on a
            // slow day, so the wait grows with the fleet (at least 120 s, 30 ms a bot).
            _ = await fleet.waitUntilLive(count, timeout: .milliseconds(max(120_000, 30 * count)))
            let liveBefore = fleet.liveCount(connection: 1)
            let mail = StormMail(world: world, links: links, endpoint: server.endpoint, label: runtime.rawValue)
            let replies = ReplyAudit(world: world, links: links, endpoint: server.endpoint)

            // Before the restart: half of the messages; the restart comes while their replies are in flight.
            let half = options.stormMessages / 2
            await mail.send(0..<half)

            let shutdown = ContinuousClock.now
            await server.stop()
            // A deploy takes a moment: the bots' first reconnects fail and they back off, then all come at once.
            try await Task.sleep(until: shutdown + .seconds(options.downSeconds), clock: .continuous)
            let restarted = try await ServerProcess.start(
                kind: options.server, port: server.endpoint.port, storePath: storePath, world: nil,
                heartbeatMilliseconds: options.heartbeatMilliseconds, workDirectory: directory)
            let listening = ContinuousClock.now
            let downSeconds = (listening - shutdown).seconds

            // While the bots come back: the other half (the REST calls retry until the server answers).
            async let sending: Void = mail.send(half..<options.stormMessages)
            let back = await fleet.waitUntilLive(count, connection: 2, timeout: .seconds(120))
            let backAt = ContinuousClock.now
            await sending
            let backCount = fleet.liveCount(connection: 2)

            // Let the replies settle, then count them in the server's store.
            let settleStart = ContinuousClock.now
            let audit = try await replies.countOnceSettled(waitingAtMost: .seconds(60))
            let settle = (ContinuousClock.now - settleStart).seconds
            let errors = fleet.errorCount
            await fleet.stop()
            return (
                Measurement(
                    bots: count, liveBefore: liveBefore, downSeconds: downSeconds,
                    backFromShutdown: back.map { _ in (backAt - shutdown).seconds },
                    backFromListening: back.map { _ in (backAt - listening).seconds },
                    back: backCount, sent: options.stormMessages, lost: audit.lost, duplicated: audit.duplicated,
                    settleSeconds: settle, errors: errors),
                restarted
            )
        }
    }

    private func report(
        _ measurements: [FleetProcess.Runtime: Measurement], count: Int, machine: MachineDescription, endpoint: ServerEndpoint
    ) -> BenchReport {
        func values(_ value: (Measurement) -> Double?) -> [String: Double] {
            var out: [String: Double] = [:]
            for (runtime, measurement) in measurements { out[runtime.rawValue] = value(measurement) }
            return out
        }
        let swift = measurements[.swift]
        let ceiling = 36.0
        let figures = [
            Figure("bots live before the restart", unit: "bots", values { Double($0.liveBefore) }),
            Figure("server down (stop → listening)", unit: "s", values { $0.downSeconds }),
            Figure("bots back and synced", unit: "bots", values { Double($0.back) }, goal: "all \(count)",
                   met: swift.map { $0.back == count }),
            Figure("all back, from the shutdown", unit: "s", values { $0.backFromShutdown },
                   goal: "≤ 36 s (30 s + 20 %)", met: swift.map { ($0.backFromShutdown ?? .infinity) <= ceiling }),
            Figure("all back, from listening again", unit: "s", values { $0.backFromListening }),
            Figure("messages sent around the restart", unit: "count", values { Double($0.sent) }),
            Figure("lost (no reply in the store)", unit: "count", values { Double($0.lost) }, goal: "0",
                   met: swift.map { $0.lost == 0 }),
            Figure("duplicated (2+ replies or copies)", unit: "count", values { Double($0.duplicated) }, goal: "0",
                   met: swift.map { $0.duplicated == 0 }),
            Figure("replies settled after", unit: "s", values { $0.settleSeconds }),
            Figure("errors reported", unit: "count", values { Double($0.errors) }),
        ]
        let notes = [
            "The restart: SIGTERM to the server process (it closes every socket with 1001 and its store), "
                + "\(context.options.downSeconds) s down, then a new process on the same port and SQLite file. Bots "
                + "reconnect with their backoff (1, 2, 4… s ±20 %), so their first attempts fail.",
            "Messages: people post over REST (idempotent clientMessageId, retried while the server is down), half "
                + "before the restart, half while the bots come back; the audit reads every conversation back from "
                + "the server's store (GET …/messages) and counts the echo replies per message.",
        ]
        return BenchReport(
            scenario: "storm", date: BenchDefaults.now(), machine: machine, server: context.serverDescription(endpoint),
            parameters: [
                "bots": "\(count)", "messages": "\(context.options.stormMessages)",
                "downSeconds": "\(context.options.downSeconds)",
            ],
            figures: figures, notes: notes)
    }
}

/// The people's side of the storm: messages posted over REST to the bots' conversations.
struct StormMail: Sendable {
    let world: BenchWorld
    let links: [BenchWorld.Link]
    let endpoint: ServerEndpoint
    /// Makes message texts unique per run (`storm-<label>-<n>`).
    let label: String

    /// Posts messages `numbers` (message n goes to conversation n mod links), 16 at a time, each retried until
    /// the server takes it (the same clientMessageId, so a retry never makes a second message).
    func send(_ numbers: Range<Int>) async {
        guard !links.isEmpty else { return }
        let clients = Dictionary(uniqueKeysWithValues: Set(links.map(\.person)).map { ($0, world.restClient(forPerson: $0, on: endpoint)) })
        await withTaskGroup(of: Void.self) { group in
            var next = numbers.lowerBound
            func add() {
                let number = next
                next += 1
                let link = links[number % links.count]
                guard let client = clients[link.person] else { return }
                let key = ClientMessageID("storm-\(label)-\(number)")
                let content = MessageContent(kind: .text, body: "storm-\(label)-\(number)")
                group.addTask {
                    for _ in 0..<600 {
                        do {
                            _ = try await client.postMessage(content, clientMessageId: key, in: link.conversationId)
                            return
                        } catch {
                            try? await Task.sleep(for: .milliseconds(100))
                        }
                    }
                }
            }
            while next < min(numbers.upperBound, numbers.lowerBound + 16) { add() }
            while await group.next() != nil {
                if next < numbers.upperBound { add() }
            }
        }
    }
}
