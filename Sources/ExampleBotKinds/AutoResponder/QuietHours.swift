import ChatterBots

/// A daily stretch of local time in which the auto-responder stays silent, or answers each person once with
/// its own reply: `{"from": "22:00", "to": "07:00", "timeZone": "Europe/Lisbon", "reply": "…"}`.
///
/// `from` is inside the quiet hours and `to` is not; when `from` is later than `to` the quiet hours run across
/// midnight (22:00 to 07:00 the next morning). Times are read on the wall clock of `timeZone`.
public struct QuietHours: Sendable, Hashable {
    public var from: TimeOfDay
    public var to: TimeOfDay
    public var timeZone: TimeZone
    /// Sent once per person per quiet period (placeholders `{name}`, `{username}`, `{text}`); nil: silence.
    public var reply: MessageTemplate?

    public init(from: TimeOfDay, to: TimeOfDay, timeZone: TimeZone, reply: MessageTemplate? = nil) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.reply = reply
    }

    /// The local date on which the quiet period containing `instant` began, or nil when `instant` is not in
    /// quiet hours. It names the period: 23:00 on Monday and 06:00 on Tuesday are the same night.
    public func period(containing instant: Date) -> LocalDate? {
        let reading = timeZone.wallClock(at: instant)
        let second = reading.secondOfDay
        if from < to {
            return (from.secondOfDay..<to.secondOfDay).contains(second) ? reading.date : nil
        }
        if second >= from.secondOfDay { return reading.date }
        if second < to.secondOfDay { return reading.date.adding(days: -1) }
        return nil
    }
}

extension QuietHours: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case from, to, timeZone, reply
    }

    public init(from decoder: any Decoder) throws {
        try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decodeTimeOfDay(forKey: .from)
        to = try container.decodeTimeOfDay(forKey: .to)
        guard from != to else {
            throw DecodingError.dataCorruptedError(
                forKey: .to, in: container, debugDescription: "equals \"from\", which leaves no quiet hours; remove quietHours to have none")
        }
        timeZone = try container.decodeTimeZone(forKey: .timeZone)
        reply = try container.decodeTemplateIfPresent(forKey: .reply, allowing: [.name, .username, .text])
    }
}
