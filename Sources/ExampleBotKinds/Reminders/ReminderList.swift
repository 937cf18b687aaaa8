import ChatterBots

/// A person's reminders numbered from 1 as "list" shows them and "cancel 2" refers to them:
///
///     Your reminders (Europe/Lisbon):
///     1. stretch — today 14:40
///     2. stand up — tomorrow 09:00, every day
///
/// Numbers follow the order given; give the reminders in due order (ties broken by a stable key such as the
/// storage id), the same order for "list" and "cancel", so a number means the same reminder in both.
public struct ReminderList: Sendable, Hashable {
    /// The reminders, number 1 first.
    public let reminders: [Reminder]
    /// The person's zone: times are shown in each reminder's own zone, named when it differs from this one.
    public let timeZone: TimeZone

    /// The list of `reminders`, numbered in this order, for a person living in `timeZone`.
    public init(_ reminders: [Reminder], timeZone: TimeZone) {
        self.reminders = reminders
        self.timeZone = timeZone
    }

    /// The position in `reminders` of the reminder numbered `number`.
    ///
    /// - Throws: `.noSuchReminder` when no reminder has that number.
    public func index(ofNumber number: Int) throws(ReminderCommandError) -> Int {
        guard number >= 1, number <= reminders.count else {
            throw .noSuchReminder(number: number, count: reminders.count)
        }
        return number - 1
    }

    /// The list as the bot sends it, days named relative to `now` ("today 14:40", "Fri 5 Dec 17:00").
    public func text(now: Date) -> String {
        guard !reminders.isEmpty else {
            return "You have no reminders. Set one with 'remind me in 10 minutes to stretch'."
        }
        var lines = ["Your reminders (\(ReminderWording.zoneName(timeZone))):"]
        for (offset, reminder) in reminders.enumerated() {
            let zone = reminder.schedule.timeZone
            var line = "\(offset + 1). \(reminder.task) — \(ReminderWording.shortOccasion(reminder.due, in: zone, now: now))"
            if zone.identifier != timeZone.identifier { line += " (\(ReminderWording.zoneName(zone)))" }
            if let cadence = ReminderWording.cadence(of: reminder.schedule.repeatRule) { line += ", \(cadence)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
