/// A day of the week, stored as its lowercase English name (`"monday"`).
///
/// Ordered and listed Monday first, as ISO 8601 numbers them.
public enum Weekday: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    /// The seven days, Monday first as ISO 8601 numbers them.
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// The ISO 8601 number of the day: 1 for Monday through 7 for Sunday.
    public var isoNumber: Int {
        switch self {
        case .monday: 1
        case .tuesday: 2
        case .wednesday: 3
        case .thursday: 4
        case .friday: 5
        case .saturday: 6
        case .sunday: 7
        }
    }

    /// The Gregorian calendar's number of the day, as Foundation's `Calendar` counts (Sunday = 1).
    public var calendarWeekday: Int { isoNumber % 7 + 1 }

    /// The weekday with ISO 8601 number `isoNumber` (1 = Monday … 7 = Sunday), or nil outside 1...7.
    public init?(isoNumber: Int) {
        guard (1...7).contains(isoNumber) else { return nil }
        self = Weekday.allCases[isoNumber - 1]
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.isoNumber < rhs.isoNumber }
}
