import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Runs a Python peer script from `Peers/` to completion and returns the JSON objects it printed, one per line.
/// The child's output is read on threads of its own, never on the cooperative pool.
enum PythonPeer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ script: String, arguments: [String], timeout: Duration = .hangGuard) async throws -> [[String: Any]] {
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers")
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("python-peer-\(UUID().uuidString).err")
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let child = try ChildProcess(
            [try TestPeer.python(importing: ["websockets"]), peers.appendingPathComponent(script).path] + arguments, standardError: .file(errorsFile.path),
            discardingInput: true)
        let stdout: [UInt8]
        do {
            stdout = try await child.allOutput(timeout: timeout)
        } catch {
            child.kill()
            throw Failure(description: "\(script) did not finish within \(timeout)")
        }
        let termination = await child.termination(timeout: .hangGuard)
        guard termination == .exited(0) else {
            child.kill()
            let stderr = (try? String(contentsOf: errorsFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(script) \(termination.map(\.description) ?? "did not exit"): \(stderr)")
        }
        return try String(decoding: stdout, as: UTF8.self).split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure(description: "\(script) printed a line that is not a JSON object: \(line)")
            }
            return object
        }
    }
}
