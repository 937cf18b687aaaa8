/// Names for one line of a log, a banner or a probe's answer: every name up to `limit`, then how many more. A line
/// naming all of a large fleet would be hundreds of kilobytes, which journald (48 KiB) and Docker (16 KiB) split.
package struct NameSample: Sendable, Equatable {
    /// The most names a line shows.
    package static let limit = 20

    package var names: [String]
    package var limit: Int
    /// How many names there are in all, `names` holding the first of them at least up to `limit`.
    package var count: Int

    package init(_ names: [String], limit: Int = NameSample.limit) {
        self.init(names, count: names.count, limit: limit)
    }

    /// A sample of `count` names of which `names` are the first (at least `limit` of them when there are as many).
    package init(_ names: [String], count: Int, limit: Int = NameSample.limit) {
        self.names = names
        self.count = max(count, names.count)
        self.limit = max(0, limit)
    }

    /// The names joined by `separator`, the ones past `limit` left out and counted: `a, b and 9998 more`.
    package func joined(separator: String = ", ") -> String {
        let shown = names.prefix(limit)
        guard count > shown.count else { return shown.joined(separator: separator) }
        let text = shown.joined(separator: separator)
        let more = "\(count - shown.count) more"
        return text.isEmpty ? more : "\(text) and \(more)"
    }
}
