import ChatterBots

/// Why a message could not become a reminder command, or why a command cannot be carried out;
/// `message` is the reply for the person, saying what was not understood and how to say it.
public enum ReminderCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A time after "at" that is not a time of day ("25:99", "13pm"); carries the text as written.
    case unreadableTime(String)
    /// A duration after "in" that could not be read ("10 parsecs"); carries the text as written.
    case unreadableDuration(String)
    /// A date or day that could not be read ("2026-02-30"); carries the text as written.
    case unreadableDate(String)
    /// Words meant as a time that fit no pattern or contradict each other ("tomorrow morning"); the text as written.
    case unreadableTiming(String)
    /// A repetition the reminders cannot do ("every 3 days", "every 30 seconds"); carries the text as written.
    case unsupportedRepeat(String)
    /// "remind me …" with a time but no task.
    case missingTask
    /// "remind me …" with no time that could be found.
    case missingTiming
    /// A day that needs a time to mean anything ("today" alone); carries the day as written.
    case missingTimeOfDay(String)
    /// A task longer than `limit` characters.
    case taskTooLong(limit: Int)
    /// An explicit day and time that is already over; carries it as the reply phrases it ("today at 08:00").
    case alreadyPast(String)
    /// A time more than `ReminderTiming.horizonDays` days ahead.
    case tooFarAhead
    /// A time zone name that is not an IANA zone; carries the name as written (empty when none was given).
    case unknownTimeZone(String)
    /// A reminder number that is not a positive whole number; carries the text as written (empty when missing).
    case unreadableReminderNumber(String)
    /// A reminder number beyond the list: `count` reminders exist.
    case noSuchReminder(number: Int, count: Int)

    /// The reply for the person: what was not understood, and an example of what works.
    public var message: String {
        switch self {
        case .unreadableTime(let text):
            return "I couldn't read the time '\(text)'. Use a 24-hour time like 18:30, or 6:30pm."
        case .unreadableDuration(let text):
            return text.isEmpty
                ? "How long from now? Say e.g. 'in 10 minutes' or 'in 1 hour and 30 minutes'."
                : "I couldn't read the duration '\(text)'. Say e.g. 'in 10 minutes', 'in 2h' or 'in 1 hour and 30 minutes'."
        case .unreadableDate(let text):
            return text.isEmpty
                ? "Which day? Say e.g. 'on friday', 'on 2026-12-24' or 'on 24 December'."
                : "I couldn't read the date '\(text)'. Say e.g. 'on friday', 'on 2026-12-24' or 'on 24 December'."
        case .unreadableTiming(let text):
            return "I couldn't tell when from '\(text)'. Say e.g. 'in 10 minutes', 'at 18:30', 'tomorrow at 9' "
                + "or 'every day at 9:00'."
        case .unsupportedRepeat(let text):
            return "I can't repeat '\(text)'. I can repeat every N minutes or hours, every day, or on weekdays "
                + "('every monday', 'every weekday')."
        case .missingTask:
            return "What should I remind you of? Put it after 'to', e.g. 'remind me in 10 minutes to stretch'."
        case .missingTiming:
            return "When should I remind you? Say e.g. 'remind me in 10 minutes to stretch' "
                + "or 'remind me to stretch at 18:30'."
        case .missingTimeOfDay(let day):
            return "At what time \(day)? Say e.g. '\(day) at 18:30'."
        case .taskTooLong(let limit):
            return "That reminder is too long; please keep it under \(limit) characters."
        case .alreadyPast(let when):
            return "\(when.prefix(1).uppercased() + when.dropFirst()) has already passed. Say a time that's still ahead."
        case .tooFarAhead:
            return "That's too far ahead: I can set reminders up to 10 years from now."
        case .unknownTimeZone(let name):
            return name.isEmpty
                ? "Which time zone? Say e.g. 'timezone Europe/Lisbon' or 'timezone America/New_York'."
                : "I don't know the time zone '\(name)'. Use an IANA name like Europe/Lisbon or America/New_York."
        case .unreadableReminderNumber(let text):
            return text.isEmpty
                ? "Which reminder? Say e.g. 'cancel 2', with the number shown by 'list'."
                : "I couldn't read the reminder number '\(text)'. Say e.g. 'cancel 2', with the number shown by 'list'."
        case .noSuchReminder(let number, let count):
            switch count {
            case 0: return "You have no reminders, so there's no reminder \(number)."
            case 1: return "There's no reminder \(number): you have 1 reminder. Say 'list' to see it."
            default: return "There's no reminder \(number): you have \(count) reminders. Say 'list' to see them."
            }
        }
    }

    public var description: String {
        message
    }
}
