import ChatterBots

/// How long from now, as "in 3 days and 2 hours" says it: whole calendar days, then elapsed seconds.
///
/// Days move the date and keep the wall-clock time (in 3 days at 14:30 is 14:30 three days later even across a
/// clock change); the seconds are then added as elapsed time.
public struct ReminderDelay: Sendable, Hashable {
    /// Calendar days (weeks count as 7).
    public let days: Int
    /// Elapsed seconds on top of the days.
    public let seconds: Int

    /// A delay of `days` calendar days plus `seconds` elapsed seconds.
    public init(days: Int = 0, seconds: Int = 0) {
        self.days = days
        self.seconds = seconds
    }

    /// The delay as (approximate) seconds, counting every day as 24 h.
    var approximateSeconds: Int {
        days * 86_400 + seconds
    }
}
