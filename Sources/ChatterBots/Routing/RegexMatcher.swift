import Synchronization

/// Holds a Swift `Regex`, which is not `Sendable`, behind a lock so that one router can be shared by the
/// handlers of concurrent conversations. The lock is held only while one match runs (so one pattern matches
/// one text at a time); only `Sendable` results (the typed output and captured strings) leave it.
final class RegexMatcher<Output: Sendable>: Sendable {
    private let regex: Mutex<Regex<Output>>

    init(_ regex: sending Regex<Output>) {
        self.regex = Mutex(regex)
    }

    func firstMatch(in text: String) -> (Output, PatternCaptures)? {
        regex.withLock { regex in
            guard let match = text.firstMatch(of: regex) else { return nil }
            return (match.output, PatternCaptures(AnyRegexOutput(match)))
        }
    }
}
