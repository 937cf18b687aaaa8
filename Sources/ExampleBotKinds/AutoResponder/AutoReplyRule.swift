import ChatterBots

/// One rule of the auto-responder: when a message matches its keywords or pattern, the reply to send.
///
/// In `options.rules`:
/// ```json
/// {"id": "hours", "keywords": ["opening hours", "open today"], "reply": "Hi {name}! We're open 9–17.", "cooldownSeconds": 3600}
/// {"pattern": "order\\s*#?(\\d+)", "reply": "Looking up order {1} for you, {name}."}
/// ```
/// - `keywords`: words or phrases (at least one); a message matches when it contains one as whole words,
///   ignoring case and accents ("Hello!" matches "hello", "othello" does not; see `KeywordMatcher`).
/// - `pattern`: an ICU regular expression (`NSRegularExpression`), searched anywhere in the message;
///   case-insensitive unless `caseSensitive` is true. Exactly one of `keywords` and `pattern`.
/// - `reply`: a `MessageTemplate` with `{name}`, `{username}`, `{text}`, `{0}` (the text the pattern matched, or
///   the keyword that matched, as configured) and, for a pattern, `{1}`… up to its number of capture groups.
/// - `id`: names the rule in logs and in the cooldown state; defaults to `rule-<position from 1>`. Give ids to
///   keep cooldowns when rules are reordered.
/// - `cooldownSeconds`: this rule's cooldown instead of the options' `cooldownSeconds`.
public struct AutoReplyRule: Sendable {
    /// What makes a message match.
    public enum Trigger: Sendable {
        /// Any of these words or phrases, as whole words, ignoring case and accents.
        case keywords([String])
        /// A regular expression found anywhere in the message.
        case pattern(NSRegularExpression)
    }

    public var id: String
    public var trigger: Trigger
    public var reply: MessageTemplate
    /// Overrides the default cooldown for this rule; nil keeps the default.
    public var cooldown: Duration?

    public init(id: String, trigger: Trigger, reply: MessageTemplate, cooldown: Duration? = nil) {
        self.id = id
        self.trigger = trigger
        self.reply = reply
        self.cooldown = cooldown
    }
}

extension AutoReplyRule {
    /// Adds the rule's route to `router`, named by the rule's id: its keywords (`MessageRouter.keywords`) or its
    /// pattern. `handler` gets the matched text (or keyword) followed by the capture groups, empty strings for
    /// groups that took no part.
    func addRoute(to router: inout MessageRouter, _ handler: @escaping @Sendable (RoutedMessage, [String]) async throws -> Void) {
        let answer: @Sendable (RoutedMessage) async throws -> Void = { message in
            try await handler(message, message.captures.groups.map { $0 ?? "" })
        }
        switch trigger {
        case .keywords(let keywords): router.keywords(keywords, name: id, answer)
        case .pattern(let expression): router.pattern(expression, name: id, answer)
        }
    }
}

extension AutoReplyRule {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, keywords, pattern, caseSensitive, reply, cooldownSeconds
    }

    /// Decodes the rule at `position` (from 0) of `options.rules`.
    init(from decoder: any Decoder, position: Int) throws {
        try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let keywords = try container.decodeIfPresent([String].self, forKey: .keywords)
        let pattern = try container.decodeIfPresent(String.self, forKey: .pattern)
        var captureGroups = 0
        switch (keywords, pattern) {
        case (let keywords?, nil):
            guard !keywords.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .keywords, in: container, debugDescription: "needs at least one word or phrase")
            }
            if let empty = keywords.first(where: { KeywordMatcher.words(of: $0).isEmpty }) {
                throw DecodingError.dataCorruptedError(
                    forKey: .keywords, in: container, debugDescription: "\"\(empty)\" has no letters or digits to match")
            }
            if try container.decodeIfPresent(Bool.self, forKey: .caseSensitive) != nil {
                throw DecodingError.dataCorruptedError(
                    forKey: .caseSensitive, in: container, debugDescription: "applies to a pattern only; keywords always ignore case")
            }
            trigger = .keywords(keywords)
        case (nil, let pattern?):
            let caseSensitive = try container.decodeIfPresent(Bool.self, forKey: .caseSensitive) ?? false
            let expression: NSRegularExpression
            do {
                expression = try NSRegularExpression(pattern: pattern, options: caseSensitive ? [] : [.caseInsensitive])
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .pattern, in: container, debugDescription: "\"\(pattern)\" is not a valid regular expression")
            }
            captureGroups = expression.numberOfCaptureGroups
            trigger = .pattern(expression)
        case (nil, nil):
            throw DecodingError.dataCorruptedError(
                forKey: .keywords, in: container, debugDescription: "a rule needs \"keywords\" (a list) or \"pattern\" (a regular expression)")
        case (_?, _?):
            throw DecodingError.dataCorruptedError(
                forKey: .pattern, in: container, debugDescription: "a rule has either \"keywords\" or \"pattern\", not both")
        }
        let allowed: Set<MessageTemplate.Placeholder> = Set([.name, .username, .text]).union((0...captureGroups).map { .capture($0) })
        reply = try container.decodeTemplate(forKey: .reply, allowing: allowed)
        cooldown = try container.decodeSeconds(forKey: .cooldownSeconds)
        let id = try container.decodeIfPresent(String.self, forKey: .id) ?? "rule-\(position + 1)"
        guard !id.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "must not be empty")
        }
        self.id = id
    }
}
