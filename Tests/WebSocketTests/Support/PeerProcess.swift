import ChildProcesses
import Foundation
import TestSupport

/// A Python test peer (a script in Peers/) run as a child process; its stdout is read line by line.
/// Peers exit when their stdin ends, so none outlives the test process.
final class PeerProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let child: ChildProcess

    /// The folder of the Python peers.
    static let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers")

    /// The packages of Tests/requirements.txt each peer imports.
    private static let packages = [
        "ws_client.py": ["websockets"], "ws_server.py": ["websockets"], "kosoku_runner.py": ["kosoku"],
    ]

    /// Starts `<Peers/script> arguments...` with the project's Python; with `mergingStandardError`, its stderr lines
    /// are read too.
    init(script: String, arguments: [String] = [], mergingStandardError: Bool = false) throws {
        let python = try TestPeer.python(importing: Self.packages[script] ?? [])
        child = try ChildProcess(
            [python, "-u", Self.peersDirectory.appendingPathComponent(script).path] + arguments,
            mergingStandardError: mergingStandardError)
    }

    /// The next line the peer printed; fails if none comes within `timeout` or the peer's output ends.
    func nextLine(timeout: Duration = .hangGuard) async throws -> String {
        guard let line = try await child.nextLine(timeout: timeout) else {
            throw Failure(description: "the peer printed nothing more (it exited)")
        }
        return line
    }

    /// The next line, decoded as a JSON object (numbers as Int, everything else as String).
    func nextEvent(timeout: Duration = .hangGuard) async throws -> [String: any Sendable] {
        let line = try await nextLine(timeout: timeout)
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure(description: "not a JSON object: \(line)")
        }
        return object.mapValues { value -> any Sendable in
            switch value {
            case let number as NSNumber: number.intValue
            case let text as String: text
            default: "\(value)"
            }
        }
    }

    /// Reads the `PORT <n>` line a server peer prints once listening.
    func port() async throws -> Int {
        let line = try await nextLine()
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw Failure(description: "expected PORT <n>, got \(line)")
        }
        return port
    }

    /// Writes `line` to the peer's stdin, for a peer that takes commands there.
    func send(line: String) { child.send(line: line) }

    /// Reads the next line and fails unless it is `expected`.
    func expectLine(_ expected: String) async throws {
        let line = try await nextLine()
        guard line == expected else { throw Failure(description: "expected \(expected), got \(line)") }
    }

    /// Kills the peer at once (SIGKILL): its sockets close without any WebSocket close frame.
    func kill() { child.kill() }

    /// Waits for the peer to exit and returns its status.
    func exitStatus() async -> Int32 { await child.exitStatus() }
}
