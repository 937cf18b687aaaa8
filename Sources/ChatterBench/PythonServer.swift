import ChildProcesses
import Foundation

/// The Python `websockets` server of the WebSocket tests (Tests/WebSocketTests/Peers/ws_server.py), run as a
/// child process for the benchmark until `stop()`; it exits when its stdin (a pipe from this process) closes, and is
/// killed if this value is released first.
final class PythonServer: Sendable {
    private let child: ChildProcess

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Tests/WebSocketTests/Peers/ws_server.py").standardized.path
        do {
            child = try ChildProcess(["python3", "-u", script])
        } catch {
            throw BenchFailure("cannot start the websockets server (is python3 installed?): \(error)")
        }
    }

    /// The port it listens on, from the `PORT <n>` line it prints first.
    func port() async throws -> Int {
        let line = (try? await child.nextLine(timeout: .seconds(60))).flatMap { $0 } ?? ""
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw BenchFailure("the websockets server did not start (is Python's websockets installed?): \(line)")
        }
        return port
    }

    /// Ends the server (end of its stdin) and waits until it has exited.
    func stop() async {
        await child.finish(within: .seconds(10))
    }
}
