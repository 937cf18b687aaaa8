import Foundation

/// What a wall clock in some time zone shows at an instant: a local date and the second of that day.
public struct WallClockReading: Hashable, Sendable {
    /// The local calendar date.
    public var date: LocalDate
    /// 0..<86_400.
    public var secondOfDay: Int

    /// The reading to the minute ("14:40").
    public var timeOfDay: TimeOfDay {
        TimeOfDay(uncheckedHour: secondOfDay / 3_600, minute: secondOfDay % 3_600 / 60)
    }

    /// A reading of `date` at `secondOfDay` (0..<86_400).
    public init(date: LocalDate, secondOfDay: Int) {
        self.date = date
        self.secondOfDay = secondOfDay
    }
}

/// Wall-clock arithmetic from the zone's offsets alone (no `Calendar` policies), so it gives the same answers
/// with every Foundation: what a clock shows at an instant, and the instant a clock shows a given time.
extension TimeZone {
    /// What a wall clock in this zone shows at `instant` (fractions of a second dropped).
    public func wallClock(at instant: Date) -> WallClockReading {
        // Clamped to ±30,000 years so no instant (not even a corrupt or infinite one) can trap the conversion to Int.
        let raw = instant.timeIntervalSince1970
        let bounded = raw.isNaN ? 0 : min(max(raw, -1e12), 1e12)
        let clamped = Date(timeIntervalSince1970: bounded)
        let seconds = Int(bounded.rounded(.down)) + secondsFromGMT(for: clamped)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        return WallClockReading(date: LocalDate(daysSinceEpoch: days), secondOfDay: seconds - days * 86_400)
    }

    /// The local date at `instant` in this zone.
    public func localDate(at instant: Date) -> LocalDate {
        wallClock(at: instant).date
    }

    /// The local time of day (to the minute) at `instant` in this zone.
    public func timeOfDay(at instant: Date) -> TimeOfDay {
        wallClock(at: instant).timeOfDay
    }

    /// The first instant at which a wall clock in this zone shows `secondOfDay` on `date`.
    ///
    /// - A time that occurs twice (a fall-back overlap) gives its first occurrence, on the earlier offset.
    /// - A time that does not exist (a spring-forward gap) gives the first valid instant after the gap: the moment
    ///   of the change itself, so 02:30 on a day whose clocks jump from 02:00 to 03:00 gives 03:00.
    public func firstInstant(on date: LocalDate, atSecondOfDay secondOfDay: Int) -> Date {
        // The wall reading counted as if it were UTC; the real instant is `wall - offset` for the offset in force.
        let wall = date.daysSinceEpoch * 86_400 + secondOfDay
        // Every offset in force within ±30 h of the reading covers any real offset (all lie within ±14 h).
        var offsets: Set<Int> = []
        for step in -5...5 {
            offsets.insert(offset(at: wall + step * 6 * 3_600))
        }
        let valid = offsets.map { wall - $0 }.filter { offset(at: $0) == wall - $0 }
        if let first = valid.min() {
            return Date(timeIntervalSince1970: TimeInterval(first))
        }
        // A gap: the first instant whose wall reading has reached `wall`. The reading only moves forward
        // across a gap, so a binary search over the bracket finds the change itself.
        var low = wall - (offsets.max() ?? 0)
        var high = wall - (offsets.min() ?? 0)
        guard high > low, high + offset(at: high) >= wall else {
            return Date(timeIntervalSince1970: TimeInterval(high))
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if middle + offset(at: middle) >= wall { high = middle } else { low = middle }
        }
        return Date(timeIntervalSince1970: TimeInterval(high))
    }

    /// The first instant at which a wall clock in this zone shows `time` on `date` (see
    /// `firstInstant(on:atSecondOfDay:)` for times skipped or repeated by a clock change).
    public func firstInstant(on date: LocalDate, at time: TimeOfDay) -> Date {
        firstInstant(on: date, atSecondOfDay: time.secondOfDay)
    }

    private func offset(at unixSeconds: Int) -> Int {
        secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}
