import ChatterBots

/// The auto-responder's away mode: while it is on, each person who writes gets `message` once
/// (`{"message": "I'm away until Monday, {name}.", "until": "2026-12-07T09:00:00+01:00"}`).
///
/// `from` and `until` (ISO 8601 instants with a zone, both optional) bound the away period: on from `from`
/// (or at once) until before `until` (or until the option is removed). The period is identified by the three
/// values together, so changing the message or the dates starts a new period in which everyone hears it again.
public struct AwayMessage: Sendable, Hashable {
    /// Placeholders `{name}`, `{username}`, `{text}`.
    public var message: MessageTemplate
    public var from: Date?
    public var until: Date?

    public init(message: MessageTemplate, from: Date? = nil, until: Date? = nil) {
        self.message = message
        self.from = from
        self.until = until
    }

    /// Whether the away mode is on at `instant`.
    public func isActive(at instant: Date) -> Bool {
        if let from, instant < from { return false }
        if let until, instant >= until { return false }
        return true
    }

    /// Names this away period in the state that remembers who has been told.
    var periodIdentifier: String {
        "\(from.map { Timestamp($0).iso8601 } ?? "always")/\(until.map { Timestamp($0).iso8601 } ?? "open")/\(message.source)"
    }
}

extension AwayMessage: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case message, from, until
    }

    public init(from decoder: any Decoder) throws {
        try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decodeTemplate(forKey: .message, allowing: [.name, .username, .text])
        from = try container.decodeInstant(forKey: .from)
        until = try container.decodeInstant(forKey: .until)
        if let from, let until, until <= from {
            throw DecodingError.dataCorruptedError(forKey: .until, in: container, debugDescription: "must be later than \"from\"")
        }
    }
}
