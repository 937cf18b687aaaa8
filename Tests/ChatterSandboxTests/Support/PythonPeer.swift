import Foundation
import Testing

/// Runs a Python peer script from `Peers/` to completion and returns the JSON objects it printed, one per line.
/// The pipe is drained on a Dispatch thread, never on the cooperative pool.
enum PythonPeer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ script: String, arguments: [String], timeout: Duration = .seconds(20)) async throws -> [[String: Any]] {
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", peers.appendingPathComponent(script).path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        let (stdout, stderr) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Data), Never>) in
            DispatchQueue.global().async {
                let stdout = output.fileHandleForReading.readDataToEndOfFile()
                let stderr = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (stdout, stderr))
            }
        }
        watchdog.cancel()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(script) exited \(process.terminationStatus): \(String(decoding: stderr, as: UTF8.self))")
        }
        return try String(decoding: stdout, as: UTF8.self).split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure(description: "\(script) printed a line that is not a JSON object: \(line)")
            }
            return object
        }
    }
}
