import Foundation

/// When a reminder fires: once, or again and again by a rule. Local times are read in the time zone of the
/// `ReminderSchedule` that holds the rule.
///
/// Stored as JSON with a `kind` field, e.g. `{"kind":"weekly","weekdays":["monday","friday"],"time":"10:00"}`;
/// instants as `"2025-12-01T14:40:00Z"` at whole-second precision (fractions are dropped on encoding).
public enum RepeatRule: Sendable, Hashable, Codable {
    /// Once, at this instant.
    case once(at: Date)
    /// Every day at this local time.
    case daily(at: LocalTime)
    /// On each of these weekdays (never empty) at this local time.
    case weekly(on: Set<Weekday>, at: LocalTime)
    /// Every `minutes` minutes (at least 1) of elapsed time, starting at `from`; clock changes do not shift it.
    case every(minutes: Int, from: Date)

    /// The longest interval of `every`: the reminder horizon, about 10 years, in minutes.
    public static let longestIntervalMinutes = ReminderTiming.horizonDays * 1_440

    /// True for every rule except `once`.
    public var repeats: Bool {
        if case .once = self { return false }
        return true
    }

    private enum CodingKeys: String, CodingKey {
        case kind, at, time, weekdays, minutes, from
    }

    private enum Kind: String, Codable {
        case once, daily, weekly, every
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .once:
            self = .once(at: try container.decodeUTCText(forKey: .at))
        case .daily:
            self = .daily(at: try container.decode(LocalTime.self, forKey: .time))
        case .weekly:
            let weekdays = try container.decode([Weekday].self, forKey: .weekdays)
            guard !weekdays.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .weekdays, in: container, debugDescription: "A weekly rule needs at least one weekday")
            }
            self = .weekly(on: Set(weekdays), at: try container.decode(LocalTime.self, forKey: .time))
        case .every:
            let minutes = try container.decode(Int.self, forKey: .minutes)
            guard (1...RepeatRule.longestIntervalMinutes).contains(minutes) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .minutes, in: container,
                    debugDescription: "An interval must be 1...\(RepeatRule.longestIntervalMinutes) minutes, got \(minutes)")
            }
            self = .every(minutes: minutes, from: try container.decodeUTCText(forKey: .from))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .once(let instant):
            try container.encode(Kind.once, forKey: .kind)
            try container.encode(instant.utcText, forKey: .at)
        case .daily(let time):
            try container.encode(Kind.daily, forKey: .kind)
            try container.encode(time, forKey: .time)
        case .weekly(let weekdays, let time):
            try container.encode(Kind.weekly, forKey: .kind)
            try container.encode(weekdays.sorted(), forKey: .weekdays)
            try container.encode(time, forKey: .time)
        case .every(let minutes, let start):
            try container.encode(Kind.every, forKey: .kind)
            try container.encode(minutes, forKey: .minutes)
            try container.encode(start.utcText, forKey: .from)
        }
    }
}
