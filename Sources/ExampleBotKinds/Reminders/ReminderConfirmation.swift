import ChatterBots

/// The bot's reply when it has done what a command asked, stating exactly what it understood, in the local
/// time of the reminder's zone: "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today."
public struct ReminderConfirmation: Sendable, Hashable, CustomStringConvertible {
    /// The reply to send.
    public let text: String

    /// The confirmation of a new reminder, its first occurrence (`reminder.due`) named relative to `now`:
    /// - "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today."
    /// - "Okay, I'll remind you to pay rent tomorrow, Mon 1 Dec at 09:00 (Europe/Lisbon)."
    /// - "Okay, I'll remind you to call mom on Fri 5 Dec at 17:00 (Europe/Lisbon)." (with the year if not this one)
    /// - "Okay, I'll remind you to stand up every day at 09:00 (Europe/Lisbon), first on Mon 1 Dec."
    /// - "Okay, I'll remind you to drink water every 2 hours, first at 16:40 (Europe/Lisbon) today."
    public init(_ reminder: Reminder, now: Date) {
        let zone = reminder.schedule.timeZone
        let zoneName = ReminderWording.zoneName(zone)
        let lead = "Okay, I'll remind you to \(reminder.task)"
        let cadence = ReminderWording.cadence(of: reminder.schedule.repeatRule)
        switch reminder.schedule.repeatRule {
        case nil:
            text = "\(lead) \(ReminderWording.occasion(reminder.due, in: zone, now: now))."
        case .daily(let time, _)?, .weekly(_, let time, _)?:
            let first: String
            switch ReminderWording.day(of: reminder.due, in: zone, now: now) {
            case .today: first = "first today"
            case .tomorrow(let label), .yesterday(let label), .other(let label): first = "first on \(label)"
            }
            text = "\(lead) \(cadence ?? "every day") at \(time) (\(zoneName)), \(first)."
        case .every?:
            text = "\(lead) \(cadence ?? ""), first \(ReminderWording.occasion(reminder.due, in: zone, now: now))."
        }
    }

    private init(text: String) {
        self.text = text
    }

    /// "Okay, I cancelled reminder 2: stretch." — `number` as the list showed it.
    public static func cancelled(_ reminder: Reminder, number: Int) -> ReminderConfirmation {
        ReminderConfirmation(text: "Okay, I cancelled reminder \(number): \(reminder.task).")
    }

    /// "Okay, I cancelled all 3 of your reminders.", or that there was none to cancel.
    public static func cancelledAll(count: Int) -> ReminderConfirmation {
        switch count {
        case ...0: ReminderConfirmation(text: "You have no reminders to cancel.")
        case 1: ReminderConfirmation(text: "Okay, I cancelled your only reminder.")
        default: ReminderConfirmation(text: "Okay, I cancelled all \(count) of your reminders.")
        }
    }

    /// "Okay, your time zone is now Europe/Lisbon, where it's 14:30." — the local time lets the person check it.
    public static func timeZoneSet(_ zone: TimeZone, now: Date) -> ReminderConfirmation {
        let name = ReminderWording.zoneName(zone)
        return ReminderConfirmation(text: "Okay, your time zone is now \(name), where it's \(ReminderWording.clock(now, in: zone)).")
    }

    public var description: String {
        text
    }
}
