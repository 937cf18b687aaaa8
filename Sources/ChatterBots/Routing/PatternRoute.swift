import Foundation
import Synchronization

/// A registered text pattern: a name for logs and a matcher that, on a match, returns the captures and the
/// handler bound to the match's typed output.
struct PatternRoute: Sendable {
    typealias BoundHandler = @Sendable (RoutedMessage) async throws -> Void

    var name: String
    var match: @Sendable (String) -> (PatternCaptures, BoundHandler)?
}

/// Holds a Swift `Regex`, which is not `Sendable`, behind a lock so that one router can be shared by the
/// handlers of concurrent conversations. Matching holds the lock for the few microseconds a match takes;
/// only `Sendable` results (the typed output and captured strings) leave it.
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

extension NSRegularExpression {
    /// The names of the named groups of the pattern (`(?<name>…)`), which NSRegularExpression cannot list.
    var captureGroupNames: [String] {
        guard let finder = try? NSRegularExpression(pattern: #"(?<!\\)\(\?<([A-Za-z][A-Za-z0-9]*)>"#) else { return [] }
        let source = pattern
        return finder.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap { result in
            Range(result.range(at: 1), in: source).map { String(source[$0]) }
        }
    }
}
