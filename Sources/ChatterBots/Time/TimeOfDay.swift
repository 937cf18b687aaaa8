/// A wall-clock time of day to the minute ("09:00"), with no date and no time zone: what "at 9" means.
/// Encoded in JSON as `"HH:MM"`.
public struct TimeOfDay: Hashable, Sendable, Comparable, Codable, LosslessStringConvertible {
    /// 0...23.
    public let hour: Int
    /// 0...59.
    public let minute: Int

    /// Throws `InvalidTimeOfDay` unless `hour` is 0…23 and `minute` 0…59.
    public init(hour: Int, minute: Int) throws(InvalidTimeOfDay) {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { throw InvalidTimeOfDay(hour: hour, minute: minute) }
        self.hour = hour
        self.minute = minute
    }

    /// Parses exactly "HH:MM" on a 24-hour clock ("07:30"); nil for anything else.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), let time = try? TimeOfDay(hour: hour, minute: minute)
        else { return nil }
        self = time
    }

    init(uncheckedHour hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// 00:00, the start of the day.
    public static let midnight = TimeOfDay(uncheckedHour: 0, minute: 0)
    /// 12:00.
    public static let noon = TimeOfDay(uncheckedHour: 12, minute: 0)

    /// Seconds from the start of the day on a 24-hour clock, ignoring clock changes.
    public var secondOfDay: Int { hour * 3_600 + minute * 60 }

    /// The 24-hour form, "09:00".
    public var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.secondOfDay < rhs.secondOfDay }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let time = TimeOfDay(text) else {
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
    /// The hour that was given.
    public var hour: Int
    /// The minute that was given.
    public var minute: Int
    public var description: String { "\(hour):\(minute) is not a time of day (hour 0…23, minute 0…59)" }
}
