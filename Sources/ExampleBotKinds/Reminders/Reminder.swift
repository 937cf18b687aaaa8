import ChatterBots

/// One reminder as the bot keeps it: what to say, when it repeats, and when it is next due.
///
/// Made by `ReminderRequest.reminder(now:timeZone:)`; stored by the bot as JSON (`due` as `"2025-12-01T14:40:00Z"`);
/// shown by `ReminderConfirmation`, `ReminderList` and `ReminderAlert`.
public struct Reminder: Sendable, Hashable, Codable {
    /// What to remind of, verbatim as the person wrote it ("call Mom").
    public let task: String
    /// When it fires, in which zone.
    public let schedule: ReminderSchedule
    /// The next time it fires.
    public let due: Date

    /// A reminder as stored; `due` should be an occurrence of `schedule` (the bot reads it back as it wrote it).
    public init(task: String, schedule: ReminderSchedule, due: Date) {
        self.task = task
        self.schedule = schedule
        self.due = due
    }

    /// The same reminder due at its next occurrence after it fired at `firedAt`, or nil for a one-off, which is done.
    ///
    /// Occurrences missed while the bot was offline are skipped rather than fired in a burst: a daily 09:00
    /// reminder fired late at 15:00 is next due tomorrow at 09:00. The same instant as the reminder's scheduled
    /// job gets next, since both follow the same `RepeatRule`.
    public func rescheduled(afterFiringAt firedAt: Date) -> Reminder? {
        guard let next = schedule.nextOccurrence(following: due, after: firedAt) else { return nil }
        return Reminder(task: task, schedule: schedule, due: next)
    }

    private enum CodingKeys: String, CodingKey {
        case task, schedule, due
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            task: try container.decode(String.self, forKey: .task),
            schedule: try container.decode(ReminderSchedule.self, forKey: .schedule),
            due: try container.decodeUTCText(forKey: .due))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(task, forKey: .task)
        try container.encode(schedule, forKey: .schedule)
        try container.encode(due.utcText, forKey: .due)
    }
}
