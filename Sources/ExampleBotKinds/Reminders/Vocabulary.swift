import ChatterBots

/// The English words and number forms reminders understand, as lookup tables and small readers.
enum Vocabulary {
    /// Words that start a timing component by themselves.
    static let componentKeywords: Set<String> = [
        "in", "at", "today", "tomorrow", "on", "every", "each", "daily", "everyday", "hourly",
    ]

    /// Full weekday names, which may start a timing without "on" ("friday at 5").
    static let fullWeekdays: [String: Weekday] = Dictionary(
        uniqueKeysWithValues: Weekday.allCases.map { ($0.rawValue, $0) })

    /// Full names and abbreviations ("fri", "tues", "thurs").
    static let weekdays: [String: Weekday] = fullWeekdays.merging([
        "mon": .monday, "tue": .tuesday, "tues": .tuesday, "wed": .wednesday, "thu": .thursday,
        "thur": .thursday, "thurs": .thursday, "fri": .friday, "sat": .saturday, "sun": .sunday,
    ]) { full, _ in full }

    /// "mondays" … "sundays": a weekday every week.
    static let pluralWeekdays: [String: Weekday] = Dictionary(
        uniqueKeysWithValues: Weekday.allCases.map { ($0.rawValue + "s", $0) })

    /// Month names and abbreviations to 1...12.
    static let months: [String: Int] = {
        var months: [String: Int] = [:]
        for (index, name) in ReminderWording.monthNames.enumerated() {
            months[name.lowercased()] = index + 1
            months[String(name.lowercased().prefix(3))] = index + 1
        }
        months["sept"] = 9
        return months
    }()

    /// Units of a duration, by every spelling accepted after a number or inside "2h".
    static let units: [String: DurationUnit] = {
        var units: [String: DurationUnit] = [:]
        for spelling in ["s", "sec", "secs", "second", "seconds"] { units[spelling] = .second }
        for spelling in ["m", "min", "mins", "minute", "minutes"] { units[spelling] = .minute }
        for spelling in ["h", "hr", "hrs", "hour", "hours"] { units[spelling] = .hour }
        for spelling in ["d", "day", "days"] { units[spelling] = .day }
        for spelling in ["w", "wk", "wks", "week", "weeks"] { units[spelling] = .week }
        return units
    }()

    /// Number words accepted as amounts ("a minute", "two hours").
    static let numberWords: [String: Int] = [
        "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
        "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60, "ninety": 90,
    ]

    /// "am"/"pm" as separate words; true for pm.
    static let meridiems: [String: Bool] = ["am": false, "a.m.": false, "a.m": false, "pm": true, "p.m.": true, "p.m": true]

    static func startsWithDigit(_ word: String) -> Bool {
        word.first?.isASCIIDigit == true
    }

    /// The am/pm suffix written onto a word ("6pm", "6:30a.m."): pm or not, and its length.
    static func meridiemSuffix(of word: String) -> (isPM: Bool, length: Int)? {
        for (suffix, isPM) in [("a.m.", false), ("p.m.", true), ("a.m", false), ("p.m", true), ("am", false), ("pm", true)]
        where word.hasSuffix(suffix) && word.count > suffix.count {
            return (isPM, suffix.count)
        }
        return nil
    }

    /// True for words that can only be a time of day: "18:30", "6pm", "6:30pm", "18h30", "noon", "midnight".
    static func isClearTime(_ word: String) -> Bool {
        if ["noon", "midnight", "midday"].contains(word) { return true }
        guard startsWithDigit(word) else { return false }
        if let suffix = meridiemSuffix(of: word) {
            return clockTime(word.dropLast(suffix.length), pm: suffix.isPM) != nil
        }
        if word.contains(":") { return true }
        let parts = word.split(separator: "h", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[1].count == 2 && clockTime(Substring(word), pm: nil) != nil
    }

    /// The time written as "18:30", "9", "9.30", "18h30", "18h" (24-hour), or "6", "6:30" with `pm` given
    /// (12-hour, 1...12); nil for anything else or out of range.
    static func clockTime(_ body: Substring, pm: Bool?) -> TimeOfDay? {
        let hourText: Substring
        var minuteText: Substring = "00"
        if let separator = body.firstIndex(where: { $0 == ":" || $0 == "." || ($0 == "h" && pm == nil) }) {
            hourText = body[..<separator]
            let rest = body[body.index(after: separator)...]
            if body[separator] == "h", rest.isEmpty {
                minuteText = "00"
            } else {
                guard rest.count == 2 else { return nil }
                minuteText = rest
            }
        } else {
            hourText = body
        }
        guard (1...2).contains(hourText.count), hourText.allSatisfy(\.isASCIIDigit), minuteText.allSatisfy(\.isASCIIDigit),
              let hour = Int(hourText), let minute = Int(minuteText) else { return nil }
        guard let pm else { return try? TimeOfDay(hour: hour, minute: minute) }
        guard (1...12).contains(hour) else { return nil }
        return try? TimeOfDay(hour: hour % 12 + (pm ? 12 : 0), minute: minute)
    }

    /// A day of the month, 1...31, with or without an ordinal suffix ("24", "24th", "1st").
    static func dayOfMonth(_ word: String) -> Int? {
        var digits = Substring(word)
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(2)
            break
        }
        guard (1...2).contains(digits.count), digits.allSatisfy(\.isASCIIDigit), let day = Int(digits),
              (1...31).contains(day) else { return nil }
        return day
    }

    /// An amount: "10", "1.5" (up to 3 decimals), or a number word; nil for other words.
    ///
    /// - Throws: `.tooFarAhead` for more than 9 digits, which no reminder horizon allows.
    static func amount(_ word: String) throws(TimingGrammar.Failure) -> Amount? {
        if let number = numberWords[word] { return Amount(numerator: number, denominator: 1) }
        guard startsWithDigit(word) else { return nil }
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else {
            return nil
        }
        guard parts[0].count <= 9 else { throw .firm(.tooFarAhead) }
        guard let whole = Int(parts[0]) else { return nil }
        guard parts.count == 2 else { return Amount(numerator: whole, denominator: 1) }
        guard parts[1].count <= 3, let fraction = Int(parts[1]) else { return nil }
        var denominator = 1
        for _ in 0..<parts[1].count { denominator *= 10 }
        return Amount(numerator: whole * denominator + fraction, denominator: denominator)
    }

    /// A duration written as one word: "10m", "90min", "2h", "2hrs", "1.5h", "1h30", "1h30m", "3d", "2w", "30s";
    /// nil when it is not one.
    static func compactDuration(_ word: String) throws(TimingGrammar.Failure) -> (days: Int, seconds: Int)? {
        var rest = Substring(word)
        var total = (days: 0, seconds: 0)
        var previousUnit: DurationUnit?
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCIIDigit || $0 == "." }
            rest = rest.dropFirst(number.count)
            let letters = rest.prefix(while: \.isLetter)
            rest = rest.dropFirst(letters.count)
            guard !number.isEmpty, let amount = try amount(String(number)) else { return nil }
            let unit: DurationUnit
            if letters.isEmpty {
                // "1h30" means 1 hour 30 minutes; "2m30" 2 minutes 30 seconds.
                switch previousUnit {
                case .hour: unit = .minute
                case .minute: unit = .second
                default: return nil
                }
            } else {
                guard let named = units[String(letters)] else { return nil }
                unit = named
            }
            let value = unit.amount(of: amount)
            total = (total.days + value.days, total.seconds + value.seconds)
            if total.days > ReminderTiming.horizonDays || total.seconds > ReminderTiming.horizonDays * 86_400 {
                throw .firm(.tooFarAhead)
            }
            previousUnit = unit
        }
        return total
    }
}

/// A non-negative rational amount of a unit, as "1.5 hours" or "half an hour" says it.
struct Amount {
    var numerator: Int
    var denominator: Int
}

/// A unit of a spoken duration: seconds to hours are elapsed time, days and weeks are calendar days.
enum DurationUnit {
    case second, minute, hour, day, week

    /// `amount` of this unit as whole calendar days plus seconds (fractions of a day become seconds, rounded down).
    func amount(of amount: Amount) -> (days: Int, seconds: Int) {
        switch self {
        case .second: return (0, amount.numerator / amount.denominator)
        case .minute: return (0, amount.numerator * 60 / amount.denominator)
        case .hour: return (0, amount.numerator * 3_600 / amount.denominator)
        case .day, .week:
            let days = amount.numerator * (self == .week ? 7 : 1)
            return (days / amount.denominator, days % amount.denominator * 86_400 / amount.denominator)
        }
    }
}
