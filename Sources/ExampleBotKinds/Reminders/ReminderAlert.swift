import ChatterBots

/// The message the bot sends when a reminder fires: "Reminder: stretch", with a note when it fires more than
/// a grace period after it was due because the bot was offline: "Reminder: stretch (late: I was offline at 14:40)".
///
/// The note applies to every reminder, one-off or repeating; the missed time is in the reminder's zone and names
/// its day when that is not the day of firing ("at 14:40 yesterday", "on Mon 1 Dec at 14:40").
public struct ReminderAlert: Sendable, Hashable, CustomStringConvertible {
    /// How late a reminder may fire before the message says so: 2 minutes.
    public static let defaultGrace: Duration = .seconds(120)

    /// The message to send.
    public let text: String
    /// True when it fired more than the grace period after `due`.
    public let isLate: Bool

    /// The alert for `reminder` firing at `firedAt`.
    public init(_ reminder: Reminder, firedAt: Date, grace: Duration = ReminderAlert.defaultGrace) {
        let graceSeconds = TimeInterval(grace.components.seconds) + TimeInterval(grace.components.attoseconds) * 1e-18
        isLate = firedAt.timeIntervalSince(reminder.due) > graceSeconds
        guard isLate else {
            text = "Reminder: \(reminder.task)"
            return
        }
        let zone = reminder.schedule.timeZone
        let time = ReminderWording.clock(reminder.due, in: zone)
        let missed: String
        switch ReminderWording.day(of: reminder.due, in: zone, now: firedAt) {
        case .today: missed = "at \(time)"
        case .yesterday: missed = "at \(time) yesterday"
        case .tomorrow(let label), .other(let label): missed = "on \(label) at \(time)"
        }
        text = "Reminder: \(reminder.task) (late: I was offline \(missed))"
    }

    public var description: String {
        text
    }
}
