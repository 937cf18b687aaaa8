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

    /// Starts the fleet of `runtime` with `bots` (not yet running: call `start()`).
    func fleet(
        _ runtime: FleetProcess.Runtime, bots: [BenchWorld.Bot], world: BenchWorld, endpoint: ServerEndpoint, name: String
    ) throws -> FleetProcess {
        let command: [String]
        switch runtime {
        case .swift: command = [BenchCommand.executableURL.path, "fleet"]
        case .python: command = ["/usr/bin/env", options.python, peerScript.path]
        }
        return try FleetProcess(
            runtime, command: command, bots: bots, password: world.password, endpoint: endpoint,
            dataDirectory: try directory(name))
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
