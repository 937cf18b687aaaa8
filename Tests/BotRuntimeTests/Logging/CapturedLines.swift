@testable import BotRuntime
import Synchronization

/// A `LogOutput` that keeps the lines in memory, for asserting what was logged or printed.
final class CapturedLines: LogOutput {
    private let lines = Mutex<[String]>([])

    func write(line: String) {
        lines.withLock { $0.append(line) }
    }

    func flush() async {}

    /// Every line so far (multi-line writes split at newlines).
    var all: [String] {
        lines.withLock { $0 }.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Everything written so far as one text.
    var text: String { all.joined(separator: "\n") }

    /// The lines that contain every one of `parts`.
    func lines(containing parts: String...) -> [String] {
        all.filter { line in parts.allSatisfy { line.contains($0) } }
    }
}
