import Foundation

/// What every scenario run shares: its options, a scratch directory, and how to start servers and fleets.
struct BenchContext: Sendable {
    var options: BenchOptions
    /// Stores, world files and fleet data of this run; removed at the end unless `--keep`.
    var workDirectory: URL

    /// The Python peer's script: `--peer`, or `bench/python_peer/echo_peer.py` of this checkout.
    var peerScript: URL {
        if let path = options.peerScript { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bench/python_peer/echo_peer.py")
    }

    /// A fresh directory under the work directory.
    func directory(_ name: String) throws -> URL {
        let url = workDirectory.appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The directory `name` under the work directory as an earlier step left it; throws if there is none.
    func existingDirectory(_ name: String) throws -> URL {
        let url = workDirectory.appendingPathComponent(name, isDirectory: true)
        guard FileManager.default.fileExists(atPath: url.path) else { throw BenchFailure("no directory \(name) to reuse") }
        return url
    }

    /// Starts the server under test with a fresh store and `spec`'s world.
    func startServer(_ spec: WorldSpec, name: String, heartbeatMilliseconds: Int = 25_000) async throws -> ServerProcess {
        let directory = try directory(name)
        let server = try await ServerProcess.start(
            kind: options.server, storePath: directory.appendingPathComponent("server.sqlite").path, world: spec,
            heartbeatMilliseconds: heartbeatMilliseconds, workDirectory: directory)
        guard server.announcement.world != nil else {
            await server.stop()
            throw BenchFailure("the server did not report the world it built")
        }
        return server
    }

    /// Starts the fleet of `runtime` with `bots` (not yet running: call `start()`); `countsSQLiteMemory` has the
    /// Swift fleet's memory report include SQLite's share. The fleet's data directory is `name`'s, emptied first
    /// unless `keepsData` (a restarted fleet finds its bots' stores where the one before left them; none is an error).
    func fleet(
        _ runtime: FleetProcess.Runtime, bots: [BenchWorld.Bot], world: BenchWorld, endpoint: ServerEndpoint, name: String,
        countsSQLiteMemory: Bool = false, keepsData: Bool = false
    ) async throws -> FleetProcess {
        let command: [String]
        switch runtime {
        case .swift:
            // CHATTER_BENCH_FLEET_WRAPPER runs the Swift fleet under a profiler: `heaptrack`, `valgrind --tool=massif`.
            let wrapper = ProcessInfo.processInfo.environment["CHATTER_BENCH_FLEET_WRAPPER"].map {
                $0.split(separator: " ").map(String.init)
            } ?? []
            command = (wrapper.isEmpty ? [] : ["/usr/bin/env"] + wrapper) + [BenchCommand.executableURL.path, "fleet"]
        case .python: command = ["/usr/bin/env", options.python, peerScript.path]
        case .c: command = [try await CFloor.executable(in: workDirectory).path]
        }
        return try FleetProcess(
            runtime, command: command, bots: bots, password: world.password, endpoint: endpoint,
            dataDirectory: keepsData ? try existingDirectory(name) : try directory(name),
            receipts: options.readReceiptsOnly ? "read" : nil,
            storeIdleSeconds: options.storeIdleSeconds, countsSQLiteMemory: countsSQLiteMemory,
            marksInFlightWork: !options.withoutInFlightMarks, pythonCommit: runtime == .python ? options.pythonCommit.rawValue : nil)
    }

    /// The world of the echo scenarios: one bot per runtime (`<prefix>_swift`, `<prefix>_python`, `<prefix>_c`),
    /// each in a direct conversation with every one of `senders` people.
    static func echoWorld(prefix: String, runtimes: [FleetProcess.Runtime], senders: Int) -> WorldSpec {
        WorldSpec(
            botUsernames: runtimes.map { "\(prefix)_\($0.rawValue)" },
            personUsernames: (0..<senders).map { "\(prefix)_sender_\($0)" }, password: BenchDefaults.password,
            links: runtimes.indices.flatMap { bot in
                (0..<senders).map { WorldSpec.Link(person: $0, bot: bot, waitingMessages: 0) }
            })
    }

    /// Starts a server with `spec`, runs `measure` for each runtime of the options (with its bot's index in the
    /// world), and stops the server whatever happens; returns the measurements and the stopped server for the report.
    func measureEachRuntime<Measurement: Sendable>(
        _ spec: WorldSpec, name: String,
        _ measure: (FleetProcess.Runtime, Int, ServerProcess) async throws -> Measurement
    ) async throws -> (measurements: [FleetProcess.Runtime: Measurement], server: ServerProcess) {
        let server = try await startServer(spec, name: name)
        var measurements: [FleetProcess.Runtime: Measurement] = [:]
        do {
            for (index, runtime) in options.runtimes.enumerated() {
                measurements[runtime] = try await measure(runtime, index, server)
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return (measurements, server)
    }

    /// Starts a fleet of `runtime` running the world's bot number `bot` alone and waits until it is live.
    func startLiveBot(
        _ runtime: FleetProcess.Runtime, bot: Int, server: ServerProcess, name: String
    ) async throws -> (fleet: FleetProcess, world: BenchWorld) {
        guard let world = server.announcement.world else { throw BenchFailure("no world") }
        let fleet = try await fleet(runtime, bots: [world.bots[bot]], world: world, endpoint: server.endpoint, name: name)
        try await fleet.start()
        guard await fleet.waitUntilLive(1, timeout: .seconds(60)) != nil else {
            await fleet.stop()
            throw BenchFailure("the \(runtime) bot did not become live within 60 s")
        }
        return (fleet, world)
    }

    /// A short description of the server for the report.
    func serverDescription(_ endpoint: ServerEndpoint) -> String {
        switch options.server {
        case .sandbox:
            "ChatterSandbox (SQLite file store, synchronous=NORMAL), own process, 127.0.0.1:\(endpoint.port)"
        case .load:
            "LoadServer (the bench's lean in-memory Chatter server), own process, 127.0.0.1:\(endpoint.port)"
        }
    }
}
