import ChatterBots

/// How reminder replies write times, days and repetitions: English names and a 24-hour clock, fixed like the
/// en_US_POSIX locale and computed without any locale, so replies read the same on every machine.
enum ReminderWording {
    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// The zone as replies name it: its IANA identifier, with Foundation's "GMT" for UTC shown as "UTC".
    static func zoneName(_ zone: TimeZone) -> String {
        zone.identifier == "GMT" ? "UTC" : zone.identifier
    }

    /// The local time of `instant` in `zone`, "14:40".
    static func clock(_ instant: Date, in zone: TimeZone) -> String {
        zone.timeOfDay(at: instant).description
    }

    /// "Mon 1 Dec", with the year ("Thu 24 Dec 2026") when it is not the year of `today`.
    static func dateLabel(_ date: LocalDate, today: LocalDate) -> String {
        let month = String(monthNames[date.month - 1].prefix(3))
        let label = "\(date.weekday.abbreviation) \(date.day) \(month)"
        return date.year == today.year ? label : "\(label) \(date.year)"
    }

    /// Which day `instant` falls on in `zone`, seen from `now`.
    enum Day {
        case today
        case tomorrow(label: String)
        case yesterday(label: String)
        case other(label: String)
    }

    static func day(of instant: Date, in zone: TimeZone, now: Date) -> Day {
        let today = zone.localDate(at: now)
        let date = zone.localDate(at: instant)
        let label = dateLabel(date, today: today)
        switch date.daysSinceEpoch - today.daysSinceEpoch {
        case 0: return .today
        case 1: return .tomorrow(label: label)
        case -1: return .yesterday(label: label)
        default: return .other(label: label)
        }
    }

    /// "at 14:40 (Europe/Lisbon) today", "tomorrow, Mon 1 Dec at 09:00 (Europe/Lisbon)",
    /// "on Fri 5 Dec at 17:00 (Europe/Lisbon)": when a one-off fires, as a confirmation says it.
    static func occasion(_ instant: Date, in zone: TimeZone, now: Date) -> String {
        let time = "\(clock(instant, in: zone)) (\(zoneName(zone)))"
        switch day(of: instant, in: zone, now: now) {
        case .today: return "at \(time) today"
        case .tomorrow(let label): return "tomorrow, \(label) at \(time)"
        case .yesterday(let label), .other(let label): return "on \(label) at \(time)"
        }
    }

    /// "today 14:40", "tomorrow 09:00", "Fri 5 Dec 17:00": when a reminder is due, as the list says it.
    static func shortOccasion(_ instant: Date, in zone: TimeZone, now: Date) -> String {
        let time = clock(instant, in: zone)
        switch day(of: instant, in: zone, now: now) {
        case .today: return "today \(time)"
        case .tomorrow: return "tomorrow \(time)"
        case .yesterday: return "yesterday \(time)"
        case .other(let label): return "\(label) \(time)"
        }
    }

    /// "every day", "every weekday", "every Monday and Friday", "every 2 hours"; nil for a one-off.
    static func cadence(of rule: RepeatRule?) -> String? {
        switch rule {
        case nil:
            return nil
        case .daily?:
            return "every day"
        case .weekly(let weekdays, _, _)?:
            if weekdays.count == 7 { return "every day" }
            if weekdays == Weekday.workdays { return "every weekday" }
            return "every " + list(weekdays.sorted().map(\.name))
        case .every(let interval)?:
            let seconds = interval.components.seconds
            if seconds % 3_600 == 0 {
                let hours = seconds / 3_600
                return hours == 1 ? "every hour" : "every \(hours) hours"
            }
            if seconds % 60 == 0 {
                let minutes = seconds / 60
                return minutes == 1 ? "every minute" : "every \(minutes) minutes"
            }
            return "every \(seconds) seconds"
        }
    }

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        guard items.count > 1 else { return last }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// The first letter of `text` in upper case.
    static func capitalizingFirst(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
