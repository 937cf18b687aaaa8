/// A wall-clock time of day to the minute ("09:00"), with no date and no time zone: what "at 9" means.
///
/// Encoded in JSON as `"09:00"`.
public struct LocalTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// 0...23.
    public let hour: Int
    /// 0...59.
    public let minute: Int

    /// The time, or nil when `hour` is outside 0...23 or `minute` outside 0...59.
    public init?(hour: Int, minute: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Midnight, 00:00.
    public static let midnight = LocalTime(uncheckedHour: 0, minute: 0)
    /// Noon, 12:00.
    public static let noon = LocalTime(uncheckedHour: 12, minute: 0)

    init(uncheckedHour hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// Seconds from the start of the day on a 24-hour clock, ignoring clock changes.
    var secondOfDay: Int {
        hour * 3_600 + minute * 60
    }

    /// The 24-hour form, "09:00".
    public var description: String {
        "\(LocalDate.pad(hour, to: 2)):\(LocalDate.pad(minute, to: 2))"
    }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool {
        lhs.secondOfDay < rhs.secondOfDay
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]),
              let time = LocalTime(hour: hour, minute: minute) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "Expected a time as \"HH:mm\", got \"\(text)\""))
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
