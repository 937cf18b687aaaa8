/// A day of the week, as reminders name it ("every monday") and store it (`"monday"` in JSON).
///
/// Ordered Monday first (ISO 8601), which is also the order in which reminder texts list several weekdays.
public enum Weekday: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// Monday to Friday, what "every weekday" means.
    public static let workdays: Set<Weekday> = [.monday, .tuesday, .wednesday, .thursday, .friday]
    /// Saturday and Sunday, what "every weekend" means.
    public static let weekend: Set<Weekday> = [.saturday, .sunday]

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

    /// The English name with a capital letter ("Monday"), as replies spell it.
    public var name: String {
        rawValue.prefix(1).uppercased() + rawValue.dropFirst()
    }

    /// The three-letter English abbreviation ("Mon"), as replies show dates.
    public var abbreviation: String {
        String(name.prefix(3))
    }

    /// The weekday with ISO 8601 number `isoNumber` (1 = Monday … 7 = Sunday), or nil outside 1...7.
    public init?(isoNumber: Int) {
        guard (1...7).contains(isoNumber) else { return nil }
        self = Weekday.allCases[isoNumber - 1]
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool {
        lhs.isoNumber < rhs.isoNumber
    }
}
