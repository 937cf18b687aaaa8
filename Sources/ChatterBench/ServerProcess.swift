import ChildProcesses
import Foundation

/// The server under test, in its own process (`chatter-bench serve`). Its stdin is a pipe from the bench, so that
/// it ends when the bench does.
final class ServerProcess: Sendable {
    let child: ChildProcess
    let announcement: ServeAnnouncement

    var endpoint: ServerEndpoint { announcement.endpoint }
    var pid: Int32 { child.pid }

    private init(child: ChildProcess, announcement: ServeAnnouncement) {
        self.child = child
        self.announcement = announcement
    }

    /// Starts `chatter-bench serve` with `options` (plus `--world` when a spec is given) and waits until it listens.
    static func start(
        kind: ServeOptions.Kind, port: Int = 0, storePath: String?, world spec: WorldSpec?, heartbeatMilliseconds: Int,
        workDirectory: URL
    ) async throws -> ServerProcess {
        var arguments = ["serve", "--server", kind.rawValue, "--port", String(port), "--heartbeat-ms", String(heartbeatMilliseconds)]
        if let storePath { arguments += ["--store", storePath] }
        if let spec {
            let url = workDirectory.appendingPathComponent("world-\(UUID().uuidString).json")
            try JSONEncoder().encode(spec).write(to: url)
            arguments += ["--world", url.path]
        }
        let child: ChildProcess
        do {
            child = try ChildProcess([BenchCommand.executableURL.path] + arguments)
        } catch {
            throw BenchFailure("cannot start the server process: \(error)")
        }
        while let line = try? await child.nextLine(timeout: nil) {
            guard line.hasPrefix("{") else { continue }
            let announcement = try JSONDecoder().decode(ServeAnnouncement.self, from: Data(line.utf8))
            return ServerProcess(child: child, announcement: announcement)
        }
        await child.stop(grace: .seconds(30))
        throw BenchFailure("the server process exited before it listened (see its error above)")
    }

    /// Shuts the server down gracefully (SIGTERM: sockets closed with 1001, store closed) and waits for the exit.
    func stop() async {
        await child.stop(grace: .seconds(30))
    }
}
