import ChatterBots

/// When a reminder should fire, as the person said it, before `now` and their time zone place it in time
/// ("at 18:30" is today or tomorrow depending on the time it is said): see `ReminderRequest.reminder(now:timeZone:)`.
public enum ReminderTiming: Sendable, Hashable {
    /// After a delay from now ("in 10 minutes", "in 3 days").
    case after(ReminderDelay)
    /// Once, at a local time on a day ("at 18:30", "tomorrow at 9", "on friday at 17:00").
    case once(at: TimeOfDay, on: ReminderDay)
    /// Every day at a local time ("every day at 9:00").
    case daily(at: TimeOfDay)
    /// On some weekdays at a local time ("every monday at 10:00", "every weekday at 8:30").
    case weekly(on: Set<Weekday>, at: TimeOfDay)
    /// Every so many minutes of elapsed time, the first that long from now ("every 2 hours").
    case every(minutes: Int)

    /// How far ahead a reminder may be set: about 10 years.
    public static let horizonDays = 3_660

    /// The first time this timing fires when said at `now` by someone living in `timeZone`, and the schedule
    /// it fires by after that.
    ///
    /// Times are whole seconds: a delay counts from `now` with its fraction of a second dropped.
    /// - Throws: `.alreadyPast` for "today"/a date whose time is over, `.tooFarAhead` beyond `horizonDays`,
    ///   `.missingTiming` for a repetition that never fires (no weekdays).
    func firstOccurrence(now: Date, timeZone: TimeZone) throws(ReminderCommandError) -> (due: Date, schedule: ReminderSchedule) {
        let horizon = ReminderTiming.horizonDays * 86_400
        switch self {
        case .after(let delay):
            // Days are checked alone first so that no delay, however large, can overflow the sum.
            guard delay.days >= 0, delay.seconds >= 0, delay.days <= ReminderTiming.horizonDays, delay.seconds <= horizon,
                  delay.approximateSeconds <= horizon else { throw .tooFarAhead }
            var instant = now.wholeSeconds
            if delay.days > 0 {
                let reading = timeZone.wallClock(at: instant)
                instant = timeZone.firstInstant(on: reading.date.adding(days: delay.days), atSecondOfDay: reading.secondOfDay)
            }
            instant.addTimeInterval(TimeInterval(delay.seconds))
            return (instant, .once(in: timeZone))
        case .once(let time, let day):
            let instant = try ReminderTiming.instant(at: time, on: day, now: now, timeZone: timeZone)
            guard instant.timeIntervalSince(now) <= TimeInterval(horizon) else { throw .tooFarAhead }
            return (instant, .once(in: timeZone))
        case .daily(let time):
            return try ReminderTiming.first(of: .daily(at: time, timeZone: timeZone), now: now, timeZone: timeZone)
        case .weekly(let weekdays, let time):
            return try ReminderTiming.first(of: .weekly(on: weekdays, at: time, timeZone: timeZone), now: now, timeZone: timeZone)
        case .every(let minutes):
            guard minutes >= 1 else { throw .unsupportedRepeat("every \(minutes) minutes") }
            guard minutes <= ReminderTiming.longestIntervalMinutes else { throw .tooFarAhead }
            let first = now.wholeSeconds.addingTimeInterval(TimeInterval(minutes * 60))
            return (first, ReminderSchedule(repeating: .every(.seconds(minutes * 60)), timeZone: timeZone))
        }
    }

    /// The longest interval of `every`: the reminder horizon, about 10 years, in minutes.
    public static let longestIntervalMinutes = horizonDays * 1_440

    private static func first(
        of rule: RepeatRule, now: Date, timeZone: TimeZone
    ) throws(ReminderCommandError) -> (due: Date, schedule: ReminderSchedule) {
        guard let due = rule.nextOccurrence(following: now, after: now) else { throw .missingTiming }
        return (due, ReminderSchedule(repeating: rule, timeZone: timeZone))
    }

    private static func instant(
        at time: TimeOfDay, on day: ReminderDay, now: Date, timeZone: TimeZone
    ) throws(ReminderCommandError) -> Date {
        let today = timeZone.localDate(at: now)
        func on(_ date: LocalDate) -> Date {
            timeZone.firstInstant(on: date, at: time)
        }
        func first(of weekday: Weekday, fromDaysAhead start: Int) -> Date {
            for offset in start...(start + 7) {
                let date = today.adding(days: offset)
                if date.weekday == weekday, on(date) > now { return on(date) }
            }
            return on(today.adding(days: 14))
        }
        switch day {
        case .todayOrTomorrow:
            let instant = on(today)
            return instant > now ? instant : on(today.adding(days: 1))
        case .today:
            let instant = on(today)
            guard instant > now else { throw .alreadyPast("today at \(time)") }
            return instant
        case .tomorrow:
            return on(today.adding(days: 1))
        case .weekday(let weekday):
            return first(of: weekday, fromDaysAhead: 0)
        case .nextWeekday(let weekday):
            return first(of: weekday, fromDaysAhead: 1)
        case .date(let date):
            let instant = on(date)
            guard instant > now else { throw .alreadyPast("\(date) at \(time)") }
            return instant
        case .dayOfYear(let month, let dayOfMonth):
            // Eight years always include a leap year, for 29 February.
            for year in today.year...(today.year + 8) {
                if let date = LocalDate(year: year, month: month, day: dayOfMonth), on(date) > now { return on(date) }
            }
            throw .unreadableDate("\(dayOfMonth) \(ReminderWording.monthNames[max(0, min(11, month - 1))])")
        }
    }
}
