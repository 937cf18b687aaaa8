import ChatterBots

/// Reads a `ReminderTiming` from the words of a message: any order of a delay ("in 10 minutes"), a time
/// ("at 18:30"), a day ("tomorrow", "on friday") and a repetition ("every monday"), which must fit together.
///
/// One value reads one attempt over `range` of the tokens. Failures say whether the words clearly meant a time
/// (they started with a digit), which decides whether a reminder written task-first reports them or keeps
/// looking further along the message.
struct TimingGrammar {
    struct Failure: Error {
        let error: ReminderCommandError
        /// True when the words were certainly meant as a time but were wrong ("at 25:99"), false when they may
        /// just be part of the task ("at the station").
        let isFirm: Bool

        static func firm(_ error: ReminderCommandError) -> Failure { Failure(error: error, isFirm: true) }
        static func soft(_ error: ReminderCommandError) -> Failure { Failure(error: error, isFirm: false) }
    }

    private enum Repetition {
        case daily
        case weekly(Set<Weekday>)
        case minutes(Int)
    }

    private let tokens: [MessageToken]
    private let start: Int
    private let end: Int
    private let defaultTime: TimeOfDay
    private var position: Int
    private var delay: ReminderDelay?
    private var time: TimeOfDay?
    private var day: ReminderDay?
    private var repetition: Repetition?
    private var conflicting = false

    private init(tokens: [MessageToken], range: Range<Int>, defaultTime: TimeOfDay) {
        self.tokens = tokens
        start = range.lowerBound
        end = range.upperBound
        position = range.lowerBound
        self.defaultTime = defaultTime
    }

    /// The timing at the start of `range`, and where it ends. With `wholeRange`, words left over are a failure.
    static func parse(
        _ tokens: [MessageToken], in range: Range<Int>, defaultTime: TimeOfDay, wholeRange: Bool
    ) throws(Failure) -> (timing: ReminderTiming, end: Int) {
        var grammar = TimingGrammar(tokens: tokens, range: range, defaultTime: defaultTime)
        try grammar.readComponents()
        if wholeRange, grammar.position < range.upperBound {
            throw .soft(.unreadableTiming(grammar.text(range)))
        }
        return (try grammar.timing(), grammar.position)
    }

    /// True when a timing component can start at `index` ("in", "at", "tomorrow", "every", "friday", "18:30"…).
    static func startsComponent(_ tokens: [MessageToken], at index: Int) -> Bool {
        guard tokens.indices.contains(index) else { return false }
        let word = tokens[index].word
        if Vocabulary.componentKeywords.contains(word) || Vocabulary.fullWeekdays[word] != nil
            || Vocabulary.pluralWeekdays[word] != nil || LocalDate(iso8601: word) != nil || Vocabulary.isClearTime(word) {
            return true
        }
        if word == "next", tokens.indices.contains(index + 1) {
            return Vocabulary.weekdays[tokens[index + 1].word] != nil
        }
        return false
    }

    // MARK: Components

    private mutating func readComponents() throws(Failure) {
        while position < end {
            let word = self.word(position)
            switch word {
            case "in":
                try readDelay()
            case "at":
                position += 1
                set(time: try readTime(after: "at"))
            case "today":
                position += 1
                set(day: .today)
            case "tomorrow":
                position += 1
                set(day: .tomorrow)
            case "on":
                try readOn()
            case "next":
                guard position + 1 < end, let weekday = Vocabulary.weekdays[self.word(position + 1)] else { return }
                position += 2
                set(day: .nextWeekday(weekday))
            case "every", "each":
                try readEvery()
            case "daily", "everyday":
                position += 1
                set(repetition: .daily)
            case "hourly":
                position += 1
                set(repetition: .minutes(60))
            default:
                if let weekday = Vocabulary.fullWeekdays[word] {
                    position += 1
                    set(day: .weekday(weekday))
                } else if Vocabulary.pluralWeekdays[word] != nil {
                    set(repetition: .weekly(readWeekdayList()))
                } else if let date = LocalDate(iso8601: word) {
                    position += 1
                    set(day: .date(date))
                } else if Vocabulary.isClearTime(word)
                            || (time == nil && (day != nil || repetition != nil) && Vocabulary.startsWithDigit(word)) {
                    set(time: try readTime(after: nil))
                } else {
                    return
                }
            }
        }
    }

    private func timing() throws(Failure) -> ReminderTiming {
        guard position > start else { throw .soft(.unreadableTiming(text(start..<end))) }
        let span = text(start..<position)
        guard !conflicting else { throw .soft(.unreadableTiming(span)) }
        if let delay {
            guard time == nil, day == nil, repetition == nil else { throw .soft(.unreadableTiming(span)) }
            return .after(delay)
        }
        if let repetition {
            guard day == nil else { throw .soft(.unreadableTiming(span)) }
            switch repetition {
            case .minutes(let minutes):
                guard time == nil else { throw .soft(.unreadableTiming(span)) }
                return .every(minutes: minutes)
            case .daily:
                return .daily(at: time ?? defaultTime)
            case .weekly(let weekdays):
                return weekdays.count == 7 ? .daily(at: time ?? defaultTime) : .weekly(on: weekdays, at: time ?? defaultTime)
            }
        }
        if let day {
            if time == nil, day == .today { throw .firm(.missingTimeOfDay("today")) }
            return .once(at: time ?? defaultTime, on: day)
        }
        if let time {
            return .once(at: time, on: .todayOrTomorrow)
        }
        throw .soft(.unreadableTiming(span))
    }

    private mutating func set(time newTime: TimeOfDay) {
        if time != nil { conflicting = true }
        time = newTime
    }

    private mutating func set(day newDay: ReminderDay) {
        if day != nil { conflicting = true }
        day = newDay
    }

    private mutating func set(repetition newRepetition: Repetition) {
        if repetition != nil { conflicting = true }
        repetition = newRepetition
    }

    /// "in" and a duration.
    private mutating func readDelay() throws(Failure) {
        position += 1
        let durationStart = position
        guard let duration = try readDuration() else {
            throw .soft(.unreadableDuration(text(durationStart..<end)))
        }
        if delay != nil { conflicting = true }
        delay = ReminderDelay(days: duration.days, seconds: duration.seconds)
    }

    /// "on" and a weekday, weekdays ("on mondays") or a date.
    private mutating func readOn() throws(Failure) {
        position += 1
        if position < end, word(position) == "the" { position += 1 }
        guard position < end else { throw .soft(.unreadableDate("")) }
        let word = self.word(position)
        if let weekday = Vocabulary.weekdays[word] {
            position += 1
            set(day: .weekday(weekday))
        } else if Vocabulary.pluralWeekdays[word] != nil {
            set(repetition: .weekly(readWeekdayList()))
        } else if let date = try readDate() {
            set(day: date)
        } else {
            let failure = ReminderCommandError.unreadableDate(text(position..<(position + 1)))
            throw Vocabulary.startsWithDigit(word) ? .firm(failure) : .soft(failure)
        }
    }

    /// "every" and a day, weekdays, or an interval.
    private mutating func readEvery() throws(Failure) {
        let everyIndex = position
        position += 1
        guard position < end else { throw .soft(.unreadableTiming(text(everyIndex..<end))) }
        let word = self.word(position)
        switch word {
        case "day":
            position += 1
            set(repetition: .daily)
            return
        case "weekday", "weekdays", "workday", "workdays":
            position += 1
            set(repetition: .weekly(Weekday.workdays))
            return
        case "weekend", "weekends":
            position += 1
            set(repetition: .weekly(Weekday.weekend))
            return
        case "other", "second", "week", "fortnight", "month", "year":
            position += 1
            if word == "other" || word == "second", position < end { position += 1 }
            throw .firm(.unsupportedRepeat(text(everyIndex..<position)))
        default:
            break
        }
        if Vocabulary.weekdays[word] != nil || Vocabulary.pluralWeekdays[word] != nil {
            set(repetition: .weekly(readWeekdayList()))
            return
        }
        let duration: (days: Int, seconds: Int)
        if let unit = Vocabulary.units[word] {
            // "every hour", "every minute"
            position += 1
            duration = unit.amount(of: Amount(numerator: 1, denominator: 1))
        } else if let read = try readDuration() {
            duration = read
        } else {
            throw .soft(.unreadableTiming(text(everyIndex..<end)))
        }
        let said = text(everyIndex..<position)
        if duration.days == 1, duration.seconds == 0 {
            set(repetition: .daily)
        } else if duration.days > 0 || duration.seconds < 60 || duration.seconds % 60 != 0 {
            throw .firm(.unsupportedRepeat(said))
        } else {
            set(repetition: .minutes(duration.seconds / 60))
        }
    }

    /// One or more weekdays, singular or plural, joined by commas, "and", "&" or "or".
    private mutating func readWeekdayList() -> Set<Weekday> {
        var weekdays: Set<Weekday> = []
        while position < end {
            let resume = position
            if !weekdays.isEmpty, ["and", "&", "or"].contains(word(position)) { position += 1 }
            guard position < end else {
                position = resume
                break
            }
            if let weekday = Vocabulary.weekdays[word(position)] ?? Vocabulary.pluralWeekdays[word(position)] {
                weekdays.insert(weekday)
                position += 1
            } else {
                position = resume
                break
            }
        }
        return weekdays
    }

    // MARK: Durations

    /// Terms such as "1 hour and 30 minutes", "90 min", "2h", "an hour and a half"; nil when none starts here.
    private mutating func readDuration() throws(Failure) -> (days: Int, seconds: Int)? {
        let durationStart = position
        guard var total = try readDurationTerm() else { return nil }
        while position < end {
            let resume = position
            if ["and", "&", "plus"].contains(word(position)) { position += 1 }
            guard let term = try readDurationTerm() else {
                position = resume
                break
            }
            total = (total.days + term.days, total.seconds + term.seconds)
            // Stop at once beyond the horizon, so that no run of terms can overflow the sum.
            if total.days > ReminderTiming.horizonDays || total.seconds > ReminderTiming.horizonDays * 86_400 {
                throw .firm(.tooFarAhead)
            }
        }
        guard total.days > 0 || total.seconds > 0 else {
            throw .firm(.unreadableDuration(text(durationStart..<position)))
        }
        return total
    }

    private mutating func readDurationTerm() throws(Failure) -> (days: Int, seconds: Int)? {
        guard position < end else { return nil }
        let word = self.word(position)
        // "half an hour", "half a day"
        if word == "half", position + 2 < end, ["a", "an"].contains(self.word(position + 1)),
           let unit = Vocabulary.units[self.word(position + 2)] {
            position += 3
            return unit.amount(of: Amount(numerator: 1, denominator: 2))
        }
        if Vocabulary.startsWithDigit(word), word.contains(where: \.isLetter) {
            guard let compact = try Vocabulary.compactDuration(word) else {
                throw .firm(.unreadableDuration(text(position..<(position + 1))))
            }
            position += 1
            return compact
        }
        guard let amount = try Vocabulary.amount(word) else { return nil }
        guard position + 1 < end, let unit = Vocabulary.units[self.word(position + 1)] else {
            guard Vocabulary.startsWithDigit(word) else { return nil }
            throw .firm(.unreadableDuration(text(position..<min(position + 2, end))))
        }
        position += 2
        var value = unit.amount(of: amount)
        // "an hour and a half"
        if position + 2 < end, self.word(position) == "and", self.word(position + 1) == "a", self.word(position + 2) == "half" {
            position += 3
            let half = unit.amount(of: Amount(numerator: 1, denominator: 2))
            value = (value.days + half.days, value.seconds + half.seconds)
        }
        return value
    }

    // MARK: Times and dates

    /// A time of day: "18:30", "9", "6pm", "6:30 pm", "18h30", "noon", "midnight", "9 o'clock".
    private mutating func readTime(after keyword: String?) throws(Failure) -> TimeOfDay {
        guard position < end else { throw .soft(.unreadableTiming(keyword ?? "")) }
        let timeStart = position
        let word = self.word(position)
        switch word {
        case "noon", "midday":
            position += 1
            return .noon
        case "midnight":
            position += 1
            return .midnight
        default:
            break
        }
        guard Vocabulary.startsWithDigit(word) else { throw .soft(.unreadableTime(text(position..<(position + 1)))) }
        position += 1
        var body = Substring(word)
        var meridiem = Vocabulary.meridiemSuffix(of: word)
        if let suffix = meridiem {
            body = body.dropLast(suffix.length)
        } else if position < end, let separate = Vocabulary.meridiems[self.word(position)] {
            meridiem = (separate, 0)
            position += 1
        }
        guard let time = Vocabulary.clockTime(body, pm: meridiem.map(\.isPM)) else {
            throw .firm(.unreadableTime(text(timeStart..<position)))
        }
        if position < end, ["o'clock", "oclock"].contains(self.word(position)), time.minute == 0 {
            position += 1
        }
        return time
    }

    /// A date: "2026-12-24", "24 December [2026]", "24th of december", "december 24[th] [2026]"; nil when
    /// the words are no date at all.
    private mutating func readDate() throws(Failure) -> ReminderDay? {
        let dateStart = position
        let first = word(position)
        if let date = LocalDate(iso8601: first) {
            position += 1
            return .date(date)
        }
        if Vocabulary.startsWithDigit(first), first.contains("-") {
            throw .firm(.unreadableDate(text(position..<(position + 1))))
        }
        var cursor = position
        let dayNumber: Int
        let month: Int
        if let number = Vocabulary.dayOfMonth(first) {
            cursor += 1
            if cursor < end, word(cursor) == "of" { cursor += 1 }
            guard cursor < end, let named = Vocabulary.months[word(cursor)] else { return nil }
            dayNumber = number
            month = named
            cursor += 1
        } else if let named = Vocabulary.months[first], cursor + 1 < end,
                  let number = Vocabulary.dayOfMonth(word(cursor + 1)) {
            dayNumber = number
            month = named
            cursor += 2
        } else {
            return nil
        }
        var year: Int?
        if cursor < end, word(cursor).count == 4, word(cursor).allSatisfy(\.isASCIIDigit) {
            year = Int(word(cursor))
            cursor += 1
        }
        position = cursor
        if let year {
            guard let date = LocalDate(year: year, month: month, day: dayNumber) else {
                throw .firm(.unreadableDate(text(dateStart..<cursor)))
            }
            return .date(date)
        }
        // Valid in a leap year (2000) means it exists in some year: 29 February waits for the next leap year.
        guard LocalDate(year: 2000, month: month, day: dayNumber) != nil else {
            throw .firm(.unreadableDate(text(dateStart..<cursor)))
        }
        return .dayOfYear(month: month, day: dayNumber)
    }

    // MARK: Tokens

    private func word(_ index: Int) -> String {
        tokens[index].word
    }

    private func text(_ range: Range<Int>) -> String {
        let clamped = max(range.lowerBound, 0)..<min(range.upperBound, tokens.count)
        return MessageToken.text(of: tokens[clamped.lowerBound..<max(clamped.lowerBound, clamped.upperBound)])
    }
}
