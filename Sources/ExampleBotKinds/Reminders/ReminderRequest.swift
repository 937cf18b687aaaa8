import ChatterBots

/// "Remind me <when> to <task>", understood but not yet placed in time: `reminder(now:timeZone:)` does that.
public struct ReminderRequest: Sendable, Hashable {
    /// What to remind of, verbatim as written ("call Mom").
    public let task: String
    /// When, as said (relative to the moment it is said).
    public let timing: ReminderTiming

    /// The request to be reminded of `task` at `timing`.
    public init(task: String, timing: ReminderTiming) {
        self.task = task
        self.timing = timing
    }

    /// The reminder this request makes when said at `now` by someone living in `timeZone`, due at its first occurrence.
    ///
    /// - Throws: `.alreadyPast`, `.tooFarAhead`, or `.missingTiming` for a timing that never fires (no weekdays).
    public func reminder(now: Date, timeZone: TimeZone) throws(ReminderCommandError) -> Reminder {
        let (due, schedule) = try timing.firstOccurrence(now: now, timeZone: timeZone)
        return Reminder(task: task, schedule: schedule, due: due)
    }
}
