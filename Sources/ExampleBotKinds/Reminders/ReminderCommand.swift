import ChatterBots

/// What a chat message asks the reminder bot to do, as `ReminderCommandParser` understands it.
public enum ReminderCommand: Sendable, Hashable {
    /// "remind me in 10 minutes to stretch": set a reminder.
    case remind(ReminderRequest)
    /// "list reminders", "reminders": show them, numbered from 1 in due order.
    case list
    /// "cancel 2": cancel the reminder shown with this number (1 or more) by the list.
    case cancel(number: Int)
    /// "cancel all": cancel every reminder.
    case cancelAll
    /// "timezone Europe/Lisbon": read the person's times in this zone from now on.
    case setTimeZone(TimeZone)
    /// "help": explain the commands (`ReminderCommandParser.help`).
    case help
    /// Anything else; the bot replies with `usage`, a short reminder of what it understands.
    case unrecognized(usage: String)
}
