/// Names for one line of a log, a banner or a probe's answer: every name up to `limit`, then how many more. A line
/// naming all of a large fleet would be hundreds of kilobytes, which journald (48 KiB) and Docker (16 KiB) split.
package struct NameSample: Sendable, Equatable {
    /// The most names a line shows.
    package static let limit = 20

    package var names: [String]
    package var limit: Int

    package init(_ names: [String], limit: Int = NameSample.limit) {
        self.names = names
        self.limit = max(0, limit)
    }

    /// The names joined by `separator`, the ones past `limit` left out and counted: `a, b and 9998 more`.
    package func joined(separator: String = ", ") -> String {
        guard names.count > limit else { return names.joined(separator: separator) }
        let shown = names.prefix(limit).joined(separator: separator)
        let more = "\(names.count - limit) more"
        return shown.isEmpty ? more : "\(shown) and \(more)"
    }
}
