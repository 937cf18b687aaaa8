import ChatterBots

/// Which day a one-off reminder at a local time falls on, before `now` and the time zone are known.
public enum ReminderDay: Sendable, Hashable {
    /// Today if the time is still ahead, otherwise tomorrow ("at 18:30").
    case todayOrTomorrow
    /// Today; an error if the time has passed ("today at 18:30").
    case today
    /// Tomorrow ("tomorrow at 9").
    case tomorrow
    /// The coming such weekday: today if the time is still ahead, otherwise within the next 7 days ("on friday").
    case weekday(Weekday)
    /// The such weekday after today, never today ("next friday").
    case nextWeekday(Weekday)
    /// This date; an error if it has passed ("on 2026-12-24", "on 24 December 2026").
    case date(LocalDate)
    /// The next such day of the year still ahead, this year or a later one ("on 24 December").
    case dayOfYear(month: Int, day: Int)
}
