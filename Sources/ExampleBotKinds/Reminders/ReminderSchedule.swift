import Foundation

/// A `RepeatRule` in the IANA time zone its local times are read in: the part of a reminder that says when,
/// stored as JSON in the bot's state (`{"rule":{…},"timeZone":"Europe/Lisbon"}`).
///
/// Daily and weekly rules follow the wall clock, so a daily 09:00 stays 09:00 local across clock changes.
/// A local time missing from a spring-forward gap fires at the first valid instant after the gap (02:30 on the
/// day New York jumps from 02:00 to 03:00 fires at 03:00); a time repeated by a fall-back fires once, at its
/// first occurrence. A day missing from the zone's calendar altogether has no daily or weekly occurrence.
public struct ReminderSchedule: Sendable, Hashable, Codable {
    /// When it fires: once or by a repetition.
    public let rule: RepeatRule
    /// The zone whose wall clock the rule's local times are read on.
    public let timeZone: TimeZone

    /// `rule` with its local times read in `timeZone`.
    public init(rule: RepeatRule, timeZone: TimeZone) {
        self.rule = rule
        self.timeZone = timeZone
    }

    /// The first time the reminder fires strictly after `instant`, or nil when it never fires again
    /// (a one-off at or before `instant`).
    ///
    /// After firing an occurrence due at `due`, pass `max(due, now)` to skip occurrences missed while offline
    /// (`Reminder.rescheduled(afterFiringAt:)` does that).
    public func nextOccurrence(after instant: Date) -> Date? {
        switch rule {
        case .once(let at):
            return at > instant ? at : nil
        case .daily(let time):
            return firstOccurrence(after: instant, at: time) { _ in true }
        case .weekly(let weekdays, let time):
            guard !weekdays.isEmpty else { return nil }
            return firstOccurrence(after: instant, at: time) { weekdays.contains($0.weekday) }
        case .every(let minutes, let start):
            guard minutes >= 1 else { return nil }
            if start > instant { return start }
            let step = TimeInterval(minutes) * 60
            let elapsedSteps = ((instant.timeIntervalSince1970 - start.timeIntervalSince1970) / step).rounded(.down)
            return Date(timeIntervalSince1970: start.timeIntervalSince1970 + (elapsedSteps + 1) * step)
        }
    }

    /// The first instant after `instant` at local `time` on a day that `includes`, searching the next 15 days.
    private func firstOccurrence(after instant: Date, at time: LocalTime, on includes: (LocalDate) -> Bool) -> Date? {
        // Start a day early: an instant just after local midnight can still precede a gap-shifted time of the day before.
        let today = timeZone.localDate(at: instant)
        for offset in -1...15 {
            let day = today.adding(days: offset)
            guard includes(day) else { continue }
            let candidate = timeZone.firstInstant(on: day, at: time)
            // A day the zone skipped entirely (Samoa, 30 December 2011) has no occurrence: its gap ends on the next day.
            if candidate > instant, timeZone.localDate(at: candidate) == day { return candidate }
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case rule, timeZone
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let identifier = try container.decode(String.self, forKey: .timeZone)
        guard let zone = TimeZone(identifier: identifier) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeZone, in: container, debugDescription: "Unknown time zone identifier \"\(identifier)\"")
        }
        self.init(rule: try container.decode(RepeatRule.self, forKey: .rule), timeZone: zone)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rule, forKey: .rule)
        try container.encode(timeZone.identifier, forKey: .timeZone)
    }
}
