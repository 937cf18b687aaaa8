import ChatterBots
import Dispatch
import Foundation

/// ChatterSandbox itself under load (issue 4's figure), in its own process as in the other scenarios:
///
/// - **sockets held**: `--sockets N` people, each signed in with a device of their own, open their realtime
///   socket at once (at most `connectWidth` handshakes in flight); the figure is the sockets past `session.ready`
///   and the time to get them all. They are then held for `--hold-seconds` (pinging as the heartbeat interval
///   says, so none reaches the 60 s idle close) and counted again: still open, and answering a final ping. The
///   server's VmRSS and CPU give the cost per socket.
/// - **fan-out**: on those sockets, `--groups G` groups of `--members M` people; `--posters P` members of each
///   group post `--posts` messages in all (at most `--post-window` unacknowledged each). Every member's device
///   except the sending one must receive each message exactly once as `message.new`: deliveries per second,
///   acks per second, the latency from `message.send` to each delivery, and missing and duplicate deliveries.
struct SandboxScenario {
    let context: BenchContext

    /// Handshakes in flight while connecting.
    static let connectWidth = 64

    func run() async throws -> BenchReport {
        let options = context.options
        let machine = MachineDescription.current()
        let memberCount = max(2, options.members)
        guard options.groups * memberCount <= options.sockets else {
            throw BenchUsageError("--groups × --members (\(options.groups * memberCount)) exceeds --sockets (\(options.sockets))")
        }
        let spec = WorldSpec(
            botUsernames: [], personUsernames: (0..<options.sockets).map { "sandbox_person_\($0)" },
            password: BenchDefaults.password, links: [],
            groups: (0..<options.groups).map { group in
                let members = Array((group * memberCount)..<((group + 1) * memberCount))
                return WorldSpec.Group(owner: members[0], members: members)
            })
        let server = try await context.startServer(spec, name: "sandbox")
        guard let world = server.announcement.world else { throw BenchFailure("no world") }
        let loadAtStart = MachineDescription.current().loadAverage
        var notes = [
            String(format: "The server built the world (%d people signed in, %d groups of %d) in %.1f s.",
                   options.sockets, options.groups, memberCount, server.announcement.setupSeconds)
        ]
        let held: HeldSockets
        let fanout: FanoutMeasurement
        do {
            held = try await holdSockets(world: world, server: server)
            fanout = try await fanOut(world: world, held: held, server: server)
            notes += held.failures.map { "connect failed: \($0)" }
            await held.close()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        var loads = [Double](repeating: 0, count: 3)
        getloadavg(&loads, 3)
        notes.append(String(format: "Load average (1 min): %.2f after the world was built, %.2f at the end.", loadAtStart, loads[0]))
        return report(held: held, fanout: fanout, machine: machine, server: context.serverDescription(server.endpoint), notes: notes)
    }

    // MARK: Sockets held

    struct HeldSockets {
        /// By person; nil where the connect failed.
        var clients: [SandboxClient?]
        /// Where every client's reader counts the fan-out.
        var ledger: FanoutLedger
        var failures: [String]
        var connectSeconds: Double
        var connected: Int
        var baselineBytes: Int
        var connectedBytes: Int
        var heldBytes: Int
        var serverOpenFiles: Int
        var holdSeconds: Double
        var holdCPUShare: Double
        var pingRounds: Int
        var openAfterHold: Int
        var answeringAfterHold: Int

        func close() async {
            await withTaskGroup(of: Void.self) { group in
                for client in clients.compactMap({ $0 }) {
                    group.addTask { await client.close() }
                }
            }
        }
    }

    private func holdSockets(world: BenchWorld, server: ServerProcess) async throws -> HeldSockets {
        let options = context.options
        let ledger = FanoutLedger()
        try await Task.sleep(for: .milliseconds(500))
        let baseline = ProcessProbe.residentBytes(of: server.pid) ?? 0
        let started = ContinuousClock.now
        var clients = [SandboxClient?](repeating: nil, count: world.people.count)
        var failures: [String: Int] = [:]
        await withTaskGroup(of: (Int, Result<ChatterRealtimeConnection, RealtimeError>).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                let token = world.people[index].accessToken
                group.addTask {
                    do throws(RealtimeError) {
                        var connectOptions = RealtimeConnectionOptions()
                        connectOptions.sessionReadyTimeout = .seconds(60)
                        return (index, .success(try await ChatterRealtimeConnection.connect(
                            configuration: server.endpoint.configuration, accessToken: token, options: connectOptions)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            while next < min(Self.connectWidth, world.people.count) { add() }
            while let (index, result) = await group.next() {
                switch result {
                case .success(let connection):
                    clients[index] = SandboxClient(
                        person: index, connection: connection, ledger: ledger, window: options.postWindow)
                case .failure(let error):
                    failures["\(error)", default: 0] += 1
                }
                if next < world.people.count { add() }
            }
        }
        let connectSeconds = (ContinuousClock.now - started).seconds
        let connected = clients.compactMap { $0 }
        try await Task.sleep(for: .seconds(1))
        let connectedBytes = ProcessProbe.residentBytes(of: server.pid) ?? 0
        let openFiles = ProcessProbe.openFileCount(of: server.pid) ?? 0

        // Hold: ping every socket once per heartbeat interval, as a client must to stay under the idle close.
        let heartbeat = connected.first?.connection.heartbeatInterval ?? ChatterRealtimeConnection.defaultHeartbeatInterval
        let meter = CPUMeter(pid: server.pid)
        let holdEnd = ContinuousClock.now + .seconds(options.holdSeconds)
        var rounds = 0
        while ContinuousClock.now + heartbeat < holdEnd {
            try await Task.sleep(for: heartbeat)
            _ = await Self.pingAll(connected)
            rounds += 1
        }
        try await Task.sleep(until: holdEnd, clock: .continuous)
        let holdCPU = meter.coreShare
        let holdSeconds = meter.elapsedSeconds
        let heldBytes = ProcessProbe.residentBytes(of: server.pid) ?? 0
        let open = connected.filter { $0.connection.isOpen }.count
        let answering = await Self.pingAll(connected)
        return HeldSockets(
            clients: clients, ledger: ledger, failures: failures.sorted { $0.value > $1.value }.prefix(3).map { "\($0.value)× \($0.key)" },
            connectSeconds: connectSeconds, connected: connected.count, baselineBytes: baseline,
            connectedBytes: connectedBytes, heldBytes: heldBytes, serverOpenFiles: openFiles, holdSeconds: holdSeconds,
            holdCPUShare: holdCPU, pingRounds: rounds + 1, openAfterHold: open, answeringAfterHold: answering)
    }

    /// Pings every client (256 at a time); returns how many answered with `pong`.
    private static func pingAll(_ clients: [SandboxClient]) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            var next = 0
            var answered = 0
            func add() {
                let client = clients[next]
                next += 1
                group.addTask {
                    do throws(RealtimeError) {
                        try await client.connection.ping(timeout: .seconds(30))
                        return true
                    } catch {
                        return false
                    }
                }
            }
            while next < min(256, clients.count) { add() }
            while let answeredOne = await group.next() {
                if answeredOne { answered += 1 }
                if next < clients.count { add() }
            }
            return answered
        }
    }

    // MARK: Fan-out

    struct FanoutMeasurement {
        var messages: Int
        var expectedDeliveries: Int
        var tally: FanoutLedger.Tally
        var sendErrors: Int
        var seconds: Double
        var ackSeconds: Double
        var serverCPUSeconds: Double
        /// CPU of the bench process (its sockets decode every delivery) over the same interval.
        var driverCPUSeconds: Double
        var wallSeconds: Double
        var completed: Bool
    }

    private func fanOut(world: BenchWorld, held: HeldSockets, server: ServerProcess) async throws -> FanoutMeasurement {
        let options = context.options
        let clients = held.clients
        let ledger = held.ledger
        // Every member of every group must be connected, or the counts would mix the sandbox's figures with ours.
        for group in world.groups {
            for member in group.members where clients[member] == nil {
                throw BenchFailure("member \(member) of a fan-out group has no socket; lower --sockets or look at the connect failures")
            }
        }
        var plan: [FanoutLedger.Post] = []
        var posters: [(SandboxClient, [Int])] = []
        let perGroup = max(1, options.posts / max(1, world.groups.count))
        for group in world.groups {
            let posterCount = min(max(1, options.posters), group.members.count)
            for poster in 0..<posterCount {
                let person = group.members[poster * group.members.count / posterCount]
                let count = perGroup / posterCount + (poster < perGroup % posterCount ? 1 : 0)
                var numbers: [Int] = []
                for _ in 0..<count {
                    numbers.append(plan.count)
                    plan.append(FanoutLedger.Post(
                        conversationId: group.conversationId, sender: person,
                        recipients: group.members.filter { $0 != person }))
                }
                if let client = clients[person] { posters.append((client, numbers)) }
            }
        }
        ledger.begin(plan, people: clients.count)
        let expected = plan.reduce(0) { $0 + $1.recipients.count }
        let posts = plan
        let meter = CPUMeter(pid: server.pid)
        let driverMeter = CPUMeter()
        let started = DispatchTime.now().uptimeNanoseconds
        let sendErrors = await withTaskGroup(of: Int.self) { group in
            for (client, numbers) in posters {
                group.addTask {
                    let credits = client.window
                    var errors = 0
                    for number in numbers {
                        await credits.acquire()
                        if !(await client.post(number, posts[number].conversationId)) {
                            errors += 1
                            credits.release()
                        }
                    }
                    return errors
                }
            }
            return await group.reduce(0, +)
        }
        let deadline = ContinuousClock.now + .seconds(60 + plan.count / 20)
        var completed = false
        while ContinuousClock.now < deadline {
            let progress = ledger.progress()
            if progress.deliveries >= expected && progress.settled + sendErrors >= plan.count {
                completed = true
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let cpu = meter.cpuSeconds
        let driverCPU = driverMeter.cpuSeconds
        let wall = meter.elapsedSeconds
        // Late duplicates would arrive right after the last delivery: give them a moment before counting.
        try await Task.sleep(for: .seconds(1))
        let tally = ledger.tally()
        return FanoutMeasurement(
            messages: plan.count, expectedDeliveries: expected, tally: tally, sendErrors: sendErrors,
            seconds: Double(tally.lastDeliveryAt > started ? tally.lastDeliveryAt - started : 0) / 1e9,
            ackSeconds: Double(tally.lastAckAt > started ? tally.lastAckAt - started : 0) / 1e9,
            serverCPUSeconds: cpu, driverCPUSeconds: driverCPU, wallSeconds: wall, completed: completed)
    }

    // MARK: Report

    private func report(
        held: HeldSockets, fanout: FanoutMeasurement, machine: MachineDescription, server: String, notes extraNotes: [String]
    ) -> BenchReport {
        let options = context.options
        func value(_ number: Double) -> [String: Double] { ["sandbox": number] }
        let perSocketBytes = held.connected > 0 ? Double(held.connectedBytes - held.baselineBytes) / Double(held.connected) : 0
        let tally = fanout.tally
        let deliveriesPerSecond = fanout.seconds > 0 ? Double(tally.deliveries) / fanout.seconds : 0
        let acksPerSecond = fanout.ackSeconds > 0 ? Double(tally.acks) / fanout.ackSeconds : 0
        let missing = tally.missing
        var figures = [
            Figure("sockets connected (session.ready)", unit: "sockets", value(Double(held.connected)),
                   goal: options.sockets >= 2_000 ? "≥ 2,000, all \(options.sockets)" : "all \(options.sockets)",
                   met: held.connected == options.sockets),
            Figure("time to connect them all", unit: "s", value(held.connectSeconds)),
            Figure("connect rate", unit: "sockets/s", value(held.connectSeconds > 0 ? Double(held.connected) / held.connectSeconds : 0)),
            Figure("still open after holding \(Int(options.holdSeconds)) s", unit: "sockets", value(Double(held.openAfterHold)),
                   goal: "all \(held.connected)", met: held.openAfterHold == held.connected),
            Figure("answering a ping after the hold", unit: "sockets", value(Double(held.answeringAfterHold)),
                   goal: "all \(held.connected)", met: held.answeringAfterHold == held.connected),
            Figure("server resident before the sockets", unit: "MiB", value(Double(held.baselineBytes) / 1_048_576)),
            Figure("server resident, all connected", unit: "MiB", value(Double(held.connectedBytes) / 1_048_576)),
            Figure("server resident after the hold", unit: "MiB", value(Double(held.heldBytes) / 1_048_576)),
            Figure("server resident per socket", unit: "KiB", value(perSocketBytes / 1024)),
            Figure("server open files", unit: "fds", value(Double(held.serverOpenFiles))),
            Figure("server CPU while holding", unit: "% core", value(held.holdCPUShare * 100)),
            Figure("server CPU per held socket", unit: "µs/s",
                   value(held.connected > 0 ? held.holdCPUShare * 1e6 / Double(held.connected) : 0)),
        ]
        figures += [
            Figure("fan-out: messages posted", unit: "msgs", value(Double(fanout.messages))),
            Figure("fan-out: message.new deliveries", unit: "deliveries", value(Double(tally.deliveries)),
                   goal: "\(fanout.expectedDeliveries)", met: tally.deliveries == fanout.expectedDeliveries),
            Figure("fan-out: deliveries per second", unit: "deliveries/s", value(deliveriesPerSecond)),
            Figure("fan-out: acks per second", unit: "msgs/s", value(acksPerSecond)),
            Figure("fan-out: delivery latency p50", unit: "ms", value(tally.latency.percentile(0.50))),
            Figure("fan-out: delivery latency p99", unit: "ms", value(tally.latency.percentile(0.99))),
            Figure("fan-out: delivery latency max", unit: "ms", value(tally.latency.maximum)),
            Figure("fan-out: ack latency p50", unit: "ms", value(tally.ackLatency.percentile(0.50))),
            Figure("fan-out: ack latency p99", unit: "ms", value(tally.ackLatency.percentile(0.99))),
            Figure("fan-out: missing deliveries", unit: "count", value(Double(missing)), goal: "0", met: missing == 0),
            Figure("fan-out: duplicate deliveries", unit: "count", value(Double(tally.duplicates)), goal: "0", met: tally.duplicates == 0),
            Figure("fan-out: deliveries to the sending device", unit: "count", value(Double(tally.toSender)), goal: "0",
                   met: tally.toSender == 0),
            Figure("fan-out: deliveries to non-members", unit: "count", value(Double(tally.strays)), goal: "0",
                   met: tally.strays == 0),
            Figure("fan-out: errors (send failed or error reply)", unit: "count",
                   value(Double(fanout.sendErrors + tally.errorReplies)), goal: "0", met: fanout.sendErrors + tally.errorReplies == 0),
            Figure("fan-out: server CPU per delivery", unit: "µs",
                   value(tally.deliveries > 0 ? fanout.serverCPUSeconds * 1e6 / Double(tally.deliveries) : 0)),
            Figure("fan-out: server CPU per message", unit: "µs",
                   value(fanout.messages > 0 ? fanout.serverCPUSeconds * 1e6 / Double(fanout.messages) : 0)),
            Figure("fan-out: server CPU", unit: "% core",
                   value(fanout.wallSeconds > 0 ? fanout.serverCPUSeconds * 100 / fanout.wallSeconds : 0)),
            Figure("fan-out: driver CPU (decodes every delivery)", unit: "% core",
                   value(fanout.wallSeconds > 0 ? fanout.driverCPUSeconds * 100 / fanout.wallSeconds : 0)),
        ]
        var notes = extraNotes
        if !fanout.completed { notes.append("fan-out did not complete before its deadline: the counts are those at the deadline.") }
        notes.append(
            "Sockets: one person and one device per socket, connected \(Self.connectWidth) handshakes at a time; each connect "
                + "returns once session.ready is read. Held \(String(format: "%.1f", held.holdSeconds)) s with \(held.pingRounds) "
                + "ping round(s) (the last one after the hold, counted as 'answering'). Resident per socket = (VmRSS with all "
                + "connected − VmRSS before the first) ÷ sockets; CPU while holding excludes the final ping round.")
        notes.append(
            "Fan-out: deliveries per second = message.new frames received by members ÷ the time from the first "
                + "message.send to the last delivery; latency from writing message.send to reading each message.new "
                + "(driver and server share the 2 cores). Missing = (message, member) pairs never delivered.")
        let limit = ProcessProbe.raiseOpenFileLimit(to: 1 << 20)
        notes.append("Open-file limit of the driver and the server: \(limit.soft) (hard \(limit.hard)).")
        return BenchReport(
            scenario: "sandbox", date: BenchDefaults.now(), machine: machine, server: server,
            parameters: [
                "sockets": "\(options.sockets)", "holdSeconds": "\(options.holdSeconds)", "groups": "\(options.groups)",
                "members": "\(options.members)", "posts": "\(options.posts)", "posters": "\(options.posters)",
                "postWindow": "\(options.postWindow)",
            ],
            figures: figures, notes: notes)
    }
}

/// One person's realtime socket in the sandbox scenario, with its reader: `message.new` deliveries and the acks
/// of its own posts go to the shared ledger; an ack (or error reply) frees a slot of the poster's window.
final class SandboxClient: Sendable {
    let person: Int
    let connection: ChatterRealtimeConnection
    let ledger: FanoutLedger
    /// At most this many of the person's posts unacknowledged.
    let window: Credits
    private let reader: Task<Void, Never>

    init(person: Int, connection: ChatterRealtimeConnection, ledger: FanoutLedger, window: Int) {
        self.person = person
        self.connection = connection
        self.ledger = ledger
        let credits = Credits(window)
        self.window = credits
        self.reader = Task { [connection, ledger] in
            for await event in connection.events {
                guard case .frame(let frame) = event else { continue }
                switch frame.event {
                case .messageNew(let message):
                    ledger.delivered(body: message.body, to: person)
                case .messageAck:
                    if let number = FanoutLedger.postNumber(frame.replyTo), ledger.acked(number) { credits.release() }
                case .error:
                    if let number = FanoutLedger.postNumber(frame.replyTo), ledger.failed(number) { credits.release() }
                default:
                    break
                }
            }
        }
    }

    /// Sends post `number` (`message.send` with id `p<number>`, body `f<number>`); false when it could not be written.
    func post(_ number: Int, _ conversationId: Conversation.ID) async -> Bool {
        let send = MessageSend(
            conversationId: conversationId, clientMessageId: .random(), content: MessageContent(kind: .text, body: "f\(number)"))
        ledger.sending(number)
        do throws(RealtimeError) {
            try await connection.send(.sendMessage(send), id: "p\(number)")
            return true
        } catch {
            return false
        }
    }

    func close() async {
        _ = await connection.close()
        await reader.value
    }
}
