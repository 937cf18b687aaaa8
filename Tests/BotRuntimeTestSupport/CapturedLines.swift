@testable import BotRuntime
import Synchronization
import TestSupport

/// A `LogOutput` that keeps the lines in memory, for asserting what was logged or printed.
package final class CapturedLines: LogOutput {
    private let lines = Mutex<[String]>([])
    private let changes: ChangeSignal?

    /// Lines kept in memory; `changes` (if given) is signalled after each write.
    package init(changes: ChangeSignal? = nil) {
        self.changes = changes
    }

    package func write(line: String) {
        lines.withLock { $0.append(line) }
        changes?.signal()
    }

    package func flush() async {}

    /// Every line so far (multi-line writes split at newlines).
    package var all: [String] {
        lines.withLock { $0 }.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Everything written so far as one text.
    package var text: String { all.joined(separator: "\n") }

    /// The lines that contain every one of `parts`.
    package func lines(containing parts: String...) -> [String] {
        all.filter { line in parts.allSatisfy { line.contains($0) } }
    }
}
