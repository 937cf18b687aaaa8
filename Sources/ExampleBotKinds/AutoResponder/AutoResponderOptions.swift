import ChatterBots

/// The `options` of an `auto-responder` bot in `bots.json`:
///
/// ```json
/// {
///   "rules": [
///     {"keywords": ["hello", "good morning"], "reply": "Hi {name}!"},
///     {"pattern": "order\\s*#?(\\d+)", "reply": "Looking up order {1}.", "cooldownSeconds": 60}
///   ],
///   "cooldownSeconds": 300,
///   "cooldownScope": "rule",
///   "quietHours": {"from": "22:00", "to": "07:00", "timeZone": "Europe/Lisbon", "reply": "I'm asleep, {name}."},
///   "away": {"message": "I'm away until Monday.", "until": "2026-12-07T09:00:00+01:00"},
///   "unknownName": "there"
/// }
/// ```
/// - `rules` (list, default none): `AutoReplyRule`s, tried in order; the first that matches answers.
/// - `cooldownSeconds` (default 300): after answering a person, how long a rule stays silent for that person
///   (0: never silent). A rule's own `cooldownSeconds` overrides it.
/// - `cooldownScope` (`"rule"`, the default, or `"global"`): with `"rule"` each rule cools down on its own, so
///   another rule may still answer; with `"global"` any answer silences every rule for that person.
/// - `quietHours` (optional): `QuietHours`, when the bot says nothing (or its `reply`, once per night).
/// - `away` (optional): `AwayMessage`, told once to each person while it is on; rules keep answering after it.
/// - `unknownName` (default `"there"`): what `{name}` becomes for someone whose profile the bot cannot see
///   (only friends' profiles are visible).
///
/// At least one rule or an away message is required. Unknown keys are errors, so a misspelled option fails at
/// start-up instead of being ignored.
public struct AutoResponderOptions: Sendable {
    /// Whether a cooldown silences one rule or every rule for a person.
    public enum CooldownScope: String, Sendable, Hashable, Decodable {
        case rule
        case global
    }

    public var rules: [AutoReplyRule]
    public var cooldown: Duration
    public var cooldownScope: CooldownScope
    public var quietHours: QuietHours?
    public var away: AwayMessage?
    public var unknownName: String

    public init(
        rules: [AutoReplyRule], cooldown: Duration = .seconds(300), cooldownScope: CooldownScope = .rule,
        quietHours: QuietHours? = nil, away: AwayMessage? = nil, unknownName: String = "there"
    ) {
        self.rules = rules
        self.cooldown = cooldown
        self.cooldownScope = cooldownScope
        self.quietHours = quietHours
        self.away = away
        self.unknownName = unknownName
    }

    /// The cooldown that follows an answer by `rule`.
    func cooldown(after rule: AutoReplyRule) -> Duration {
        rule.cooldown ?? cooldown
    }
}

extension AutoResponderOptions: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case rules, cooldownSeconds, cooldownScope, quietHours, away, unknownName
    }

    public init(from decoder: any Decoder) throws {
        try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var rules: [AutoReplyRule] = []
        if container.contains(.rules) {
            var list = try container.nestedUnkeyedContainer(forKey: .rules)
            while !list.isAtEnd {
                let position = list.currentIndex
                let rule = try AutoReplyRule(from: try list.superDecoder(), position: position)
                if rules.contains(where: { $0.id == rule.id }) {
                    throw DecodingError.dataCorrupted(.init(
                        codingPath: container.codingPath + [CodingKeys.rules, OptionIndexKey(position), AutoReplyRule.CodingKeys.id],
                        debugDescription: "\"\(rule.id)\" is the id of an earlier rule; ids must differ"))
                }
                rules.append(rule)
            }
        }
        self.rules = rules
        cooldown = try container.decodeSeconds(forKey: .cooldownSeconds) ?? .seconds(300)
        let scope = try container.decodeIfPresent(String.self, forKey: .cooldownScope) ?? CooldownScope.rule.rawValue
        guard let cooldownScope = CooldownScope(rawValue: scope) else {
            throw DecodingError.dataCorruptedError(
                forKey: .cooldownScope, in: container, debugDescription: "\"\(scope)\" is not a scope; use \"rule\" or \"global\"")
        }
        self.cooldownScope = cooldownScope
        quietHours = try container.decodeIfPresent(QuietHours.self, forKey: .quietHours)
        away = try container.decodeIfPresent(AwayMessage.self, forKey: .away)
        unknownName = try container.decodeIfPresent(String.self, forKey: .unknownName) ?? "there"
        guard !rules.isEmpty || away != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .rules, in: container,
                debugDescription: "the bot has nothing to answer; give at least one rule, or an away message")
        }
    }
}
