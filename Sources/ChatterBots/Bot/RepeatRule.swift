import Foundation

/// How a scheduled job repeats after each occurrence; the runtime's scheduler and bots compute occurrences
/// with `nextOccurrence(following:after:)`.
///
/// Calendar rules follow the wall clock of their time zone, so "every day at 09:00 in Europe/Lisbon" stays at
/// 09:00 local time across daylight-saving changes:
/// - a local time skipped by a spring-forward gap fires at the first valid instant after the gap (02:30 on the
///   day New York jumps from 02:00 to 03:00 fires at 03:00), and at its own time on every other day;
/// - a local time repeated by a fall-back fires once, at its first occurrence;
/// - a day missing from the zone's calendar altogether (Samoa skipped 30 December 2011) has no occurrence.
///
/// Stored as JSON with a `kind` field: `{"kind":"every","milliseconds":7200000}`,
/// `{"kind":"daily","time":"09:00","timeZone":"Europe/Lisbon"}`,
/// `{"kind":"weekly","weekdays":["monday","friday"],"time":"10:00","timeZone":"Europe/Lisbon"}`.
public enum RepeatRule: Hashable, Sendable, Codable {
    /// At a fixed rate of elapsed time: `interval` after each due time (must be positive); clock changes do
    /// not shift it.
    case every(Duration)
    /// Every day at a local time.
    case daily(at: TimeOfDay, timeZone: TimeZone)
    /// On the given weekdays (at least one) at a local time.
    case weekly(on: Set<Weekday>, at: TimeOfDay, timeZone: TimeZone)

    /// The occurrence that follows `due`, skipping every occurrence that is not after `now`: a job the
    /// bot missed while it was down runs once, late, and then keeps its rhythm (a daily 09:00 job that ran
    /// late at 15:00 is next due tomorrow at 09:00; an hourly one stays on its grid). With `now` equal to
    /// `due`, simply the next occurrence. Nil when the rule can never fire (a non-positive interval, no
    /// weekdays) or the next occurrence is beyond any calendar.
    public func nextOccurrence(following due: Date, after now: Date) -> Date? {
        switch self {
        case .every(let interval):
            return Self.nextOnGrid(from: due, step: interval, after: now)
        case .daily(let time, let timeZone):
            return Self.firstOccurrence(after: max(due, now), at: time, in: timeZone) { _ in true }
        case .weekly(let weekdays, let time, let timeZone):
            guard !weekdays.isEmpty else { return nil }
            return Self.firstOccurrence(after: max(due, now), at: time, in: timeZone) { weekdays.contains($0.weekday) }
        }
    }

    /// The first point of the grid `start + k × step` (k ≥ 1) after `now`, in whole milliseconds; nil on overflow.
    private static func nextOnGrid(from due: Date, step interval: Duration, after now: Date) -> Date? {
        guard let step = interval.exactMilliseconds, step > 0,
              let start = due.millisecondsSince1970, let limit = now.millisecondsSince1970 else { return nil }
        var steps: Int64 = 1
        if limit >= start {
            let (elapsed, overflow) = limit.subtractingReportingOverflow(start)
            guard !overflow else { return nil }
            steps = elapsed / step + 1
        }
        let (offset, productOverflow) = steps.multipliedReportingOverflow(by: step)
        let (next, sumOverflow) = start.addingReportingOverflow(offset)
        guard !productOverflow, !sumOverflow else { return nil }
        return Timestamp(millisecondsSince1970: next).date
    }

    /// The first instant after `instant` at local `time` on a day that `includes`, searching the next 15 days.
    private static func firstOccurrence(
        after instant: Date, at time: TimeOfDay, in timeZone: TimeZone, on includes: (LocalDate) -> Bool
    ) -> Date? {
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

    enum CodingKeys: String, CodingKey { case kind, milliseconds, weekdays, time, timeZone }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        func timeZone() throws -> TimeZone {
            let identifier = try container.decode(String.self, forKey: .timeZone)
            guard let timeZone = TimeZone(identifier: identifier) else {
                throw DecodingError.dataCorruptedError(forKey: .timeZone, in: container, debugDescription: "Unknown time zone \"\(identifier)\"")
            }
            return timeZone
        }
        switch kind {
        case "every":
            let milliseconds = try container.decode(Int64.self, forKey: .milliseconds)
            guard milliseconds > 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .milliseconds, in: container, debugDescription: "An interval must be positive, got \(milliseconds) ms")
            }
            self = .every(.milliseconds(milliseconds))
        case "daily": self = .daily(at: try container.decode(TimeOfDay.self, forKey: .time), timeZone: try timeZone())
        case "weekly":
            let weekdays = try container.decode([Weekday].self, forKey: .weekdays)
            guard !weekdays.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .weekdays, in: container, debugDescription: "A weekly rule needs at least one weekday")
            }
            self = .weekly(on: Set(weekdays), at: try container.decode(TimeOfDay.self, forKey: .time), timeZone: try timeZone())
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "Unknown repeat rule \"\(kind)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .every(let interval):
            guard let milliseconds = interval.exactMilliseconds else {
                throw EncodingError.invalidValue(self, .init(
                    codingPath: encoder.codingPath, debugDescription: "An interval of \(interval) does not fit in milliseconds"))
            }
            try container.encode("every", forKey: .kind)
            try container.encode(milliseconds, forKey: .milliseconds)
        case .daily(let time, let timeZone):
            try container.encode("daily", forKey: .kind)
            try container.encode(time, forKey: .time)
            try container.encode(timeZone.identifier, forKey: .timeZone)
        case .weekly(let weekdays, let time, let timeZone):
            try container.encode("weekly", forKey: .kind)
            try container.encode(weekdays.sorted { $0.calendarWeekday < $1.calendarWeekday }, forKey: .weekdays)
            try container.encode(time, forKey: .time)
            try container.encode(timeZone.identifier, forKey: .timeZone)
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, truncated toward zero; nil when that does not fit in an `Int64`.
    var exactMilliseconds: Int64? {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, sumOverflow) = milliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflow || sumOverflow ? nil : total
    }
}

extension Date {
    /// Milliseconds since 1970 rounded like `Timestamp(_:)`; nil for an instant no `Timestamp` can hold.
    var millisecondsSince1970: Int64? {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, milliseconds > -9.2e18, milliseconds < 9.2e18 else { return nil }
        return Int64(milliseconds)
    }
}
