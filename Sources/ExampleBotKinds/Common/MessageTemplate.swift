import ChatterBots

/// A message text with placeholders filled in when it is sent: `"Hi {name}, you said: {text}"`.
///
/// Placeholders: `{name}` the person's display name, `{username}` their username, `{text}` the message being
/// answered, `{0}` the matched text of an auto-responder rule and `{1}`…`{9}` its pattern's capture groups.
/// `{{` and `}}` write literal braces. Which placeholders a template may use depends on where it is used; the
/// options of each bot kind check that when they are loaded, so a typo fails at start-up, not at the first reply.
/// Decoded from a JSON string.
public struct MessageTemplate: Hashable, Sendable, Decodable, CustomStringConvertible {
    /// A value a template can insert.
    public enum Placeholder: Hashable, Sendable, CustomStringConvertible {
        case name
        case username
        case text
        /// `{0}` (the whole match) … `{9}`.
        case capture(Int)

        public var description: String {
            switch self {
            case .name: "{name}"
            case .username: "{username}"
            case .text: "{text}"
            case .capture(let index): "{\(index)}"
            }
        }
    }

    /// The values to fill in; a placeholder without a value becomes the empty string.
    public struct Values: Sendable {
        public var name: String
        public var username: String
        public var text: String
        /// The whole match first, then each capture group (empty for a group that did not take part).
        public var captures: [String]

        public init(name: String = "", username: String = "", text: String = "", captures: [String] = []) {
            self.name = name
            self.username = username
            self.text = text
            self.captures = captures
        }
    }

    private enum Segment: Hashable, Sendable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// The template as written.
    public let source: String
    private let segments: [Segment]

    /// The longest text a Chatter message may carry; rendered texts are cut to it.
    public static let maximumLength = 4_096

    /// Parses `source`.
    /// - Throws: `MessageTemplateError` for an unknown placeholder or an unmatched brace.
    public init(_ source: String) throws(MessageTemplateError) {
        self.source = source
        var segments: [Segment] = []
        var literal = ""
        var index = source.startIndex
        while index < source.endIndex {
            let character = source[index]
            let next = source.index(after: index)
            if character == "{", next < source.endIndex, source[next] == "{" {
                literal.append("{")
                index = source.index(after: next)
            } else if character == "}", next < source.endIndex, source[next] == "}" {
                literal.append("}")
                index = source.index(after: next)
            } else if character == "{" {
                guard let close = source[next...].firstIndex(of: "}") else { throw .unclosedBrace(source) }
                let name = String(source[next..<close])
                guard let placeholder = MessageTemplate.placeholder(named: name) else { throw .unknownPlaceholder(name) }
                if !literal.isEmpty { segments.append(.literal(literal)) }
                literal = ""
                segments.append(.placeholder(placeholder))
                index = source.index(after: close)
            } else if character == "}" {
                throw .unopenedBrace(source)
            } else {
                literal.append(character)
                index = next
            }
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        self.segments = segments
    }

    private static func placeholder(named name: String) -> Placeholder? {
        switch name {
        case "name": .name
        case "username": .username
        case "text": .text
        default: name.count == 1 ? Int(name).map(Placeholder.capture) : nil
        }
    }

    /// Every placeholder the template uses.
    public var placeholders: Set<Placeholder> {
        Set(segments.compactMap { if case .placeholder(let placeholder) = $0 { placeholder } else { nil } })
    }

    /// The placeholders used that are not in `allowed`, in the order written.
    func placeholders(notIn allowed: Set<Placeholder>) -> [Placeholder] {
        var seen: Set<Placeholder> = []
        return segments.compactMap { segment in
            guard case .placeholder(let placeholder) = segment, !allowed.contains(placeholder),
                  seen.insert(placeholder).inserted else { return nil }
            return placeholder
        }
    }

    /// The text with `values` filled in, cut to `maximumLength` characters.
    public func render(_ values: Values) -> String {
        var text = ""
        for segment in segments {
            switch segment {
            case .literal(let literal): text += literal
            case .placeholder(.name): text += values.name
            case .placeholder(.username): text += values.username
            case .placeholder(.text): text += values.text
            case .placeholder(.capture(let index)): text += index < values.captures.count ? values.captures[index] : ""
            }
        }
        return text.count > MessageTemplate.maximumLength ? String(text.prefix(MessageTemplate.maximumLength - 1)) + "…" : text
    }

    public var description: String { source }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let source = try container.decode(String.self)
        do {
            try self.init(source)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}

/// A template that cannot be parsed.
public enum MessageTemplateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `{something}` that is no placeholder.
    case unknownPlaceholder(String)
    /// A `{` without its `}`.
    case unclosedBrace(String)
    /// A `}` without its `{`.
    case unopenedBrace(String)

    public var description: String {
        switch self {
        case .unknownPlaceholder(let name):
            "unknown placeholder {\(name)}; use {name}, {username}, {text}, {0}…{9}, or {{ and }} for braces"
        case .unclosedBrace(let source):
            "\"\(source)\" has a { without its }; write {{ for a brace"
        case .unopenedBrace(let source):
            "\"\(source)\" has a } without its {; write }} for a brace"
        }
    }
}

extension KeyedDecodingContainer {
    /// A template that may use only `allowed` placeholders; any other fails decoding, naming the placeholder.
    func decodeTemplate(forKey key: Key, allowing allowed: Set<MessageTemplate.Placeholder>) throws -> MessageTemplate {
        let template = try decode(MessageTemplate.self, forKey: key)
        try check(template, forKey: key, allowing: allowed)
        return template
    }

    /// Like `decodeTemplate(forKey:allowing:)`, nil when the key is absent or null.
    func decodeTemplateIfPresent(forKey key: Key, allowing allowed: Set<MessageTemplate.Placeholder>) throws -> MessageTemplate? {
        guard let template = try decodeIfPresent(MessageTemplate.self, forKey: key) else { return nil }
        try check(template, forKey: key, allowing: allowed)
        return template
    }

    private func check(_ template: MessageTemplate, forKey key: Key, allowing allowed: Set<MessageTemplate.Placeholder>) throws {
        let unusable = template.placeholders(notIn: allowed)
        guard unusable.isEmpty else {
            let usable = [MessageTemplate.Placeholder.name, .username, .text].filter(allowed.contains).map(\.description)
                + allowed.compactMap { if case .capture(let index) = $0 { index } else { nil } }.sorted().map { "{\($0)}" }
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\(unusable.map(\.description).joined(separator: ", ")) has no value here; "
                    + "this text may use \(usable.isEmpty ? "no placeholders" : usable.joined(separator: ", "))")
        }
    }
}
