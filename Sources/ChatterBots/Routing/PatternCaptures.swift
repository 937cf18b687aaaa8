import Foundation

/// The groups a text pattern captured, by number (0 is the whole match) and by name.
///
/// ```swift
/// let expression = try NSRegularExpression(pattern: #"remind me at (?<time>\d\d?:\d\d)"#)
/// router.pattern(expression, name: "remind-at") { message in
///     let time = message.captures["time"] ?? ""
///     try await message.reply("At \(time), then.")
/// }
/// ```
public struct PatternCaptures: Hashable, Sendable {
    /// Each group's text in order, group 0 being the whole match; nil for a group that did not take part.
    public var groups: [String?]
    /// The text of each named group that took part.
    public var named: [String: String]

    /// Captures as a pattern match produced them (tests build their own).
    public init(groups: [String?] = [], named: [String: String] = [:]) {
        self.groups = groups
        self.named = named
    }

    /// The whole matched text; empty when no pattern matched.
    public var match: String { groups.first.flatMap { $0 } ?? "" }

    /// The text of group `index`, or nil when it did not take part or does not exist.
    public subscript(index: Int) -> String? {
        groups.indices.contains(index) ? groups[index] : nil
    }

    /// The text of the group named `name`, or nil when it did not take part or does not exist.
    public subscript(name: String) -> String? { named[name] }

    init(_ output: AnyRegexOutput) {
        var groups: [String?] = []
        var named: [String: String] = [:]
        for element in output {
            let text = element.substring.map(String.init)
            groups.append(text)
            if let name = element.name, let text { named[name] = text }
        }
        self.init(groups: groups, named: named)
    }

    init(_ result: NSTextCheckingResult, in text: String, names: [String]) {
        let groups: [String?] = (0..<result.numberOfRanges).map { index in
            Range(result.range(at: index), in: text).map { String(text[$0]) }
        }
        var named: [String: String] = [:]
        for name in names {
            if let range = Range(result.range(withName: name), in: text) { named[name] = String(text[range]) }
        }
        self.init(groups: groups, named: named)
    }
}
