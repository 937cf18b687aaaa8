import Foundation

/// The fields of a process's `/proc/<pid>/stat`, numbered as proc(5) numbers them (3 the state, 14 and 15 the user
/// and system CPU time in clock ticks, 22 the start time in ticks since boot). They are read after the last `)`,
/// which ends the command name: a name may hold spaces and parentheses.
package struct ProcessStat: Sendable {
    private let fieldsFromThird: [Substring]

    /// The stat of process `pid`; nil when it cannot be read (no such process).
    package init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        self.init(text: text)
    }

    /// The stat in `text`; nil without a command name.
    package init?(text: String) {
        guard let close = text.lastIndex(of: ")") else { return nil }
        fieldsFromThird = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
    }

    /// Field `number` (3 or more); nil when the text is shorter.
    package func field(_ number: Int) -> Substring? {
        let index = number - 3
        return fieldsFromThird.indices.contains(index) ? fieldsFromThird[index] : nil
    }
}
