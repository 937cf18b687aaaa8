import ChatterBots

/// The groups of weekdays reminders name and the English words their replies use.
extension Weekday {
    /// Monday to Friday, what "every weekday" means.
    static let workdays: Set<Weekday> = [.monday, .tuesday, .wednesday, .thursday, .friday]
    /// Saturday and Sunday, what "every weekend" means.
    static let weekend: Set<Weekday> = [.saturday, .sunday]

    /// The English name with a capital letter ("Monday"), as replies spell it.
    var name: String {
        rawValue.prefix(1).uppercased() + rawValue.dropFirst()
    }

    /// The three-letter English abbreviation ("Mon"), as replies show dates.
    var abbreviation: String {
        String(name.prefix(3))
    }
}
