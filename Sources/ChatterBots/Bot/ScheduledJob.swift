/// A job a bot scheduled: due at `dueAt`, optionally repeating, carrying a JSON payload.
/// The runtime keeps jobs in the bot's store, so they survive restarts.
public struct ScheduledJob: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<ScheduledJob>

    public var id: ID
    /// The bot's own name for the job kind, e.g. `"reminder"`.
    public var name: String
    /// When this occurrence is due (millisecond precision).
    public var dueAt: Date
    /// How the job repeats after this occurrence; nil for a one-off job.
    public var repeatRule: RepeatRule?
    public var payload: JSONValue

    public init(id: ID, name: String, dueAt: Date, repeatRule: RepeatRule? = nil, payload: JSONValue = .null) {
        self.id = id
        self.name = name
        self.dueAt = dueAt
        self.repeatRule = repeatRule
        self.payload = payload
    }

    /// The payload decoded as `type`.
    public func payload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try payload.decode(as: type)
    }

    enum CodingKeys: String, CodingKey { case id, name, dueAt, repeatRule, payload }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        dueAt = try container.decode(Timestamp.self, forKey: .dueAt).date
        repeatRule = try container.decodeIfPresent(RepeatRule.self, forKey: .repeatRule)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload) ?? .null
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(Timestamp(dueAt), forKey: .dueAt)
        try container.encode(repeatRule, forKey: .repeatRule)
        try container.encode(payload, forKey: .payload)
    }
}

/// How a scheduled job repeats. Calendar rules are computed in their time zone, so "every day at 09:00
/// in Europe/Lisbon" stays at 09:00 local time across daylight-saving changes.
public enum RepeatRule: Hashable, Sendable, Codable {
    /// At a fixed rate: `interval` after each due time (must be positive).
    case every(Duration)
    /// Every day at a local time.
    case daily(at: TimeOfDay, timeZone: TimeZone)
    /// On the given weekdays at a local time.
    case weekly(on: Set<Weekday>, at: TimeOfDay, timeZone: TimeZone)

    /// The occurrence that follows `due`, skipping every occurrence that is not after `now`: a job the
    /// bot missed while it was down runs once, late, and then keeps its rhythm. Nil when the rule can
    /// never fire (a non-positive interval, no weekdays).
    public func nextOccurrence(following due: Date, after now: Date) -> Date? {
        switch self {
        case .every(let interval):
            let step = interval.wholeMilliseconds
            guard step > 0 else { return nil }
            let start = Timestamp(due).millisecondsSince1970
            let limit = Timestamp(now).millisecondsSince1970
            let steps = limit < start ? 1 : (limit - start) / step + 1
            return Timestamp(millisecondsSince1970: start + steps * step).date
        case .daily(let time, let timeZone):
            return Self.next(after: max(due, now), matching: time, weekday: nil, in: timeZone)
        case .weekly(let weekdays, let time, let timeZone):
            return weekdays.compactMap { Self.next(after: max(due, now), matching: time, weekday: $0, in: timeZone) }.min()
        }
    }

    private static func next(after start: Date, matching time: TimeOfDay, weekday: Weekday?, in timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var components = DateComponents(hour: time.hour, minute: time.minute, second: 0)
        components.weekday = weekday?.calendarWeekday
        return calendar.nextDate(after: start, matching: components, matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
    }

    enum CodingKeys: String, CodingKey { case kind, milliseconds, weekdays, time, timeZone }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        func timeZone() throws -> TimeZone {
            let identifier = try container.decode(String.self, forKey: .timeZone)
            guard let timeZone = TimeZone(identifier: identifier) else {
                throw DecodingError.dataCorruptedError(forKey: .timeZone, in: container, debugDescription: "Unknown time zone \"\(identifier)\"")
            }
            return timeZone
        }
        switch kind {
        case "every": self = .every(.milliseconds(try container.decode(Int64.self, forKey: .milliseconds)))
        case "daily": self = .daily(at: try container.decode(TimeOfDay.self, forKey: .time), timeZone: try timeZone())
        case "weekly":
            self = .weekly(
                on: Set(try container.decode([Weekday].self, forKey: .weekdays)),
                at: try container.decode(TimeOfDay.self, forKey: .time), timeZone: try timeZone())
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "Unknown repeat rule \"\(kind)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .every(let interval):
            try container.encode("every", forKey: .kind)
            try container.encode(interval.wholeMilliseconds, forKey: .milliseconds)
        case .daily(let time, let timeZone):
            try container.encode("daily", forKey: .kind)
            try container.encode(time, forKey: .time)
            try container.encode(timeZone.identifier, forKey: .timeZone)
        case .weekly(let weekdays, let time, let timeZone):
            try container.encode("weekly", forKey: .kind)
            try container.encode(weekdays.sorted { $0.calendarWeekday < $1.calendarWeekday }, forKey: .weekdays)
            try container.encode(time, forKey: .time)
            try container.encode(timeZone.identifier, forKey: .timeZone)
        }
    }
}

/// A local time of day, to the minute; encoded as `"HH:MM"`.
public struct TimeOfDay: Hashable, Sendable, Codable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    /// Throws `InvalidTimeOfDay` unless `hour` is 0…23 and `minute` 0…59.
    public init(hour: Int, minute: Int) throws(InvalidTimeOfDay) {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { throw InvalidTimeOfDay(hour: hour, minute: minute) }
        self.hour = hour
        self.minute = minute
    }

    public var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
            let time = try? TimeOfDay(hour: hour, minute: minute)
        else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a time of day HH:MM: \"\(text)\"")
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// An hour or minute out of range for `TimeOfDay`.
public struct InvalidTimeOfDay: Error, Hashable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var description: String { "\(hour):\(minute) is not a time of day (hour 0…23, minute 0…59)" }
}

/// A day of the week.
public enum Weekday: String, Hashable, Sendable, Codable, CaseIterable {
    case sunday, monday, tuesday, wednesday, thursday, friday, saturday

    /// The Gregorian calendar's number of the day (Sunday = 1).
    public var calendarWeekday: Int {
        switch self {
        case .sunday: 1
        case .monday: 2
        case .tuesday: 3
        case .wednesday: 4
        case .thursday: 5
        case .friday: 6
        case .saturday: 7
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, truncated toward zero.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
