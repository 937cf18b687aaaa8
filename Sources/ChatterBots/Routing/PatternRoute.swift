import Foundation

/// A registered text pattern: a name for logs and a matcher that, on a match, returns the captures and the
/// handler bound to the match's typed output.
struct PatternRoute: Sendable {
    typealias BoundHandler = @Sendable (RoutedMessage) async throws -> Void

    var name: String
    var match: @Sendable (String) -> (PatternCaptures, BoundHandler)?
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
