import ChatterBots
import ChatterSandbox
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `chatter-bench serve`: the server under test, in a process of its own so that the figures of the bench process
/// are the bots' alone. It listens, builds the world it is given, prints one `ServeAnnouncement` JSON line on
/// stdout, and runs until SIGTERM/SIGINT or until its stdin closes (the driver died), then shuts down gracefully:
/// every socket is closed with 1001, as a restarting server does.
struct ServeCommand {
    var options: ServeOptions

    func run() async -> Int32 {
        let started = ContinuousClock.now
        // Inherited from the driver already; raised here too for a server started by hand.
        ProcessProbe.raiseOpenFileLimit(to: 1 << 20)
        let server: any BenchServer
        do {
            switch options.kind {
            case .sandbox: server = try await SandboxBenchServer.start(options)
            case .load: server = try await LoadBenchServer.start(options)
            }
        } catch {
            FileHandle.standardError.write(Data("chatter-bench serve: \(error)\n".utf8))
            return 1
        }
        var world: BenchWorld?
        if let specPath = options.worldSpecPath {
            do {
                let spec = try JSONDecoder().decode(WorldSpec.self, from: Data(contentsOf: URL(fileURLWithPath: specPath)))
                world = try await server.build(spec)
            } catch {
                FileHandle.standardError.write(Data("chatter-bench serve: cannot build the world: \(error)\n".utf8))
                await server.shutdown()
                return 1
            }
        }
        let announcement = ServeAnnouncement(
            endpoint: server.endpoint, world: world, setupSeconds: (ContinuousClock.now - started).seconds)
        do {
            var line = try JSONEncoder().encode(announcement)
            line.append(UInt8(ascii: "\n"))
            FileHandle.standardOutput.write(line)
        } catch {
            FileHandle.standardError.write(Data("chatter-bench serve: \(error)\n".utf8))
        }
        await TerminationRequest.wait()
        await server.shutdown()
        return 0
    }
}

/// How `chatter-bench serve` runs.
struct ServeOptions: Sendable {
    enum Kind: String, Sendable {
        case sandbox
        case load
    }

    var kind: Kind = .sandbox
    var port = 0
    /// The SQLite file of the sandbox (reused across restarts); nil keeps it in memory.
    var storePath: String?
    var worldSpecPath: String?
    /// `heartbeatIntervalMs` announced in `session.ready`.
    var heartbeatMilliseconds = 25_000
    /// PBKDF2 iterations of new passwords (the sandbox's documented default is 210,000; the bench uses 1,000).
    var passwordHashIterations = 1_000

    init(arguments: [String]) throws(BenchUsageError) {
        var reader = ArgumentReader(arguments)
        while let option = reader.nextOption() {
            switch option {
            case "--server":
                let value = try reader.value(for: option)
                guard let kind = Kind(rawValue: value) else { throw BenchUsageError("--server is sandbox or load, not \(value)") }
                self.kind = kind
            case "--port": port = try reader.integer(for: option)
            case "--store": storePath = try reader.value(for: option)
            case "--world": worldSpecPath = try reader.value(for: option)
            case "--heartbeat-ms": heartbeatMilliseconds = try reader.integer(for: option)
            case "--hash-iterations": passwordHashIterations = try reader.integer(for: option)
            default: throw BenchUsageError("unknown option \(option) for serve")
            }
        }
    }
}

/// A server the bench can run: it listens, can create a world, and shuts down gracefully.
protocol BenchServer: Sendable {
    var endpoint: ServerEndpoint { get }
    func build(_ spec: WorldSpec) async throws -> BenchWorld
    func shutdown() async
}

/// ChatterSandbox, configured for load: the documented timers, a SQLite file store, cheap password hashing and
/// rate limits out of the way (a thousand bots signing in at once is the point of the test).
struct SandboxBenchServer: BenchServer {
    let sandbox: Sandbox
    let endpoint: ServerEndpoint

    static func start(_ options: ServeOptions) async throws -> SandboxBenchServer {
        let unlimited = SandboxRateLimit(requests: 1_000_000_000, window: .seconds(60))
        let service = SandboxServiceConfiguration(
            passwordHashIterations: options.passwordHashIterations, deviceRateLimit: unlimited, clientRateLimit: unlimited)
        let realtime = RealtimeConfiguration(heartbeatInterval: .milliseconds(options.heartbeatMilliseconds))
        let configuration = SandboxConfiguration(
            storage: options.storePath.map { .file(path: $0) } ?? .memory, port: options.port, service: service,
            realtime: realtime)
        let sandbox = try await Sandbox.start(configuration)
        let port = sandbox.apiURL.port ?? options.port
        return SandboxBenchServer(
            sandbox: sandbox,
            endpoint: ServerEndpoint(
                apiURL: sandbox.apiURL, webSocketURL: sandbox.webSocketURL, clientKey: sandbox.clientKey, port: port,
                kind: ServeOptions.Kind.sandbox.rawValue))
    }

    func build(_ spec: WorldSpec) async throws -> BenchWorld {
        try await WorldBuilder(service: sandbox.service).build(spec)
    }

    func shutdown() async {
        await sandbox.shutdown()
    }
}

/// Waits for the process to be asked to stop: SIGTERM, SIGINT, or end of stdin (the parent went away).
enum TerminationRequest {
    static func wait() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            sources.append(source)
        }
        // A thread of its own may block on read(2); the cooperative pool never does.
        let reader = Thread {
            var byte: UInt8 = 0
            while read(0, &byte, 1) > 0 {}
            continuation.yield()
        }
        reader.start()
        for await _ in stream { break }
        for source in sources { source.cancel() }
    }
}
