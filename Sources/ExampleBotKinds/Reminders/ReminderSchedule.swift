import ChatterBots

/// How a reminder repeats and the IANA time zone it was set in: the part of a reminder that says when,
/// besides its next due time. Stored as JSON in the bot's state
/// (`{"repeatRule":{"kind":"daily","time":"09:00","timeZone":"Europe/Lisbon"},"timeZone":"Europe/Lisbon"}`;
/// a one-off has no `repeatRule`).
///
/// Repetitions are `ChatterBots.RepeatRule`s, the rules the bot's scheduled jobs repeat by, so the reminder
/// and its job agree on every occurrence, across clock changes too (see `RepeatRule`).
public struct ReminderSchedule: Sendable, Hashable, Codable {
    /// How it repeats after each time it fires; nil for a one-off. A daily or weekly rule reads its local
    /// time in `timeZone`.
    public let repeatRule: RepeatRule?
    /// The zone the reminder was set in: its times are read and shown on this wall clock.
    public let timeZone: TimeZone

    /// A reminder that fires once; its time is the reminder's `due`.
    public static func once(in timeZone: TimeZone) -> ReminderSchedule {
        ReminderSchedule(repeating: nil, timeZone: timeZone)
    }

    /// A reminder repeating by `rule` (nil: once), shown in `timeZone`.
    public init(repeating rule: RepeatRule?, timeZone: TimeZone) {
        repeatRule = rule
        self.timeZone = timeZone
    }

    /// True when the reminder fires more than once.
    public var repeats: Bool { repeatRule != nil }

    /// The occurrence after the one due at `due`, skipping those not after `now` (missed while the bot was
    /// offline); nil for a one-off, which is done.
    public func nextOccurrence(following due: Date, after now: Date) -> Date? {
        repeatRule?.nextOccurrence(following: due, after: now)
    }

    private enum CodingKeys: String, CodingKey {
        case repeatRule, timeZone
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let identifier = try container.decode(String.self, forKey: .timeZone)
        guard let zone = TimeZone(identifier: identifier) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeZone, in: container, debugDescription: "Unknown time zone identifier \"\(identifier)\"")
        }
        self.init(repeating: try container.decodeIfPresent(RepeatRule.self, forKey: .repeatRule), timeZone: zone)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(repeatRule, forKey: .repeatRule)
        try container.encode(timeZone.identifier, forKey: .timeZone)
    }
}
