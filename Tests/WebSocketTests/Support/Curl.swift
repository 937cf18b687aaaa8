import Foundation

/// Runs the `curl` command (off the cooperative pool) and returns the status and body it got.
enum Curl {
    struct Output: Sendable {
        var status: Int
        var body: String
        /// What `--write-out` reported after the body, e.g. the number of connections opened.
        var connectsOpened: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `curl -s <arguments>`; the last line of output is curl's `--write-out` summary.
    static func run(_ arguments: [String]) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-S", "--max-time", "20", "--write-out", "\n%{http_code} %{num_connects}"] + arguments
        let output = Pipe()
        process.standardOutput = output
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    try process.run()
                    let data = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: data)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, let split = text.lastIndex(of: "\n") else {
            throw Failure(description: "curl exited with \(process.terminationStatus): \(text)")
        }
        let summary = text[text.index(after: split)...].split(separator: " ")
        guard summary.count == 2, let status = Int(summary[0]), let connects = Int(summary[1]) else {
            throw Failure(description: "unexpected curl output \(text)")
        }
        return Output(status: status, body: String(text[..<split]), connectsOpened: connects)
    }
}
