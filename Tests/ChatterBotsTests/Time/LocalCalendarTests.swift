import Foundation
import Testing
@testable import ChatterBots

/// The calendar arithmetic under repeat rules, checked against Foundation's `Calendar` as an independent oracle.
@Suite("Local dates and wall clocks")
struct LocalCalendarTests {
    static let utc = TimeZone(secondsFromGMT: 0) ?? .gmt

    func zone(_ identifier: String) -> TimeZone {
        guard let zone = TimeZone(identifier: identifier) else {
            Issue.record("Foundation does not know the zone \(identifier)")
            return LocalCalendarTests.utc
        }
        return zone
    }

    func date(_ year: Int, _ month: Int, _ day: Int) -> LocalDate {
        guard let date = LocalDate(year: year, month: month, day: day) else {
            Issue.record("No such date \(year)-\(month)-\(day)")
            return LocalDate(daysSinceEpoch: 0)
        }
        return date
    }

    func instant(_ text: String) -> Date {
        guard let date = try? Timestamp(iso8601: text).date else {
            Issue.record("Not an ISO 8601 instant: \(text)")
            return .distantPast
        }
        return date
    }

    func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    @Test func dayNumbersAndWeekdaysAgreeWithFoundationFrom1900To2200() {
        let gregorian = calendar(LocalCalendarTests.utc)
        for days in stride(from: -25_567, through: 84_000, by: 7) {
            let date = LocalDate(daysSinceEpoch: days)
            let parts = gregorian.dateComponents([.year, .month, .day, .weekday], from: Date(timeIntervalSince1970: TimeInterval(days) * 86_400))
            #expect([date.year, date.month, date.day] == [parts.year, parts.month, parts.day].map { $0 ?? 0 }, "day \(days)")
            // Foundation numbers Sunday 1 … Saturday 7.
            #expect(date.weekday.isoNumber == ((parts.weekday ?? 0) + 5) % 7 + 1, "day \(days)")
            #expect(date.daysSinceEpoch == days)
        }
    }

    @Test func impossibleDatesAndTimesAreNil() {
        #expect(LocalDate(year: 2026, month: 2, day: 29) == nil)
        #expect(LocalDate(year: 2028, month: 2, day: 29) != nil)
        #expect(LocalDate(year: 1900, month: 2, day: 29) == nil)
        #expect(LocalDate(year: 2000, month: 2, day: 29) != nil)
        #expect(LocalDate(year: 2026, month: 13, day: 1) == nil)
        #expect(LocalDate(year: 2026, month: 4, day: 31) == nil)
        #expect(LocalDate(year: 10_000, month: 1, day: 1) == nil)
        #expect(throws: InvalidTimeOfDay.self) { try TimeOfDay(hour: 24, minute: 0) }
        #expect(throws: InvalidTimeOfDay.self) { try TimeOfDay(hour: 23, minute: 60) }
    }

    @Test func isoTextIsReadOnlyAsYearMonthDayOfARealDate() {
        #expect(LocalDate(iso8601: "2026-12-24") == date(2026, 12, 24))
        for text in ["2026-02-30", "2026-1-05", "26-01-05", "2026-01-05T00:00", "２０２６-01-05", "2026-+1-05", ""] {
            #expect(LocalDate(iso8601: text) == nil, "\(text)")
        }
    }

    @Test(arguments: ["UTC", "Europe/Lisbon", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"])
    func wallClockReadingsAgreeWithFoundation(identifier: String) {
        let zone = zone(identifier)
        let oracle = calendar(zone)
        // Every 7 h 13 min through 2026, which lands near every clock change.
        for step in 0..<1_215 {
            let instant = instant("2026-01-01T00:00:00Z").addingTimeInterval(TimeInterval(step * 26_000))
            let reading = zone.wallClock(at: instant)
            let parts = oracle.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
            #expect(reading.date == date(parts.year ?? 0, parts.month ?? 0, parts.day ?? 0))
            #expect(reading.secondOfDay == (parts.hour ?? 0) * 3_600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0))
        }
    }

    @Test(arguments: ["Europe/Lisbon", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"])
    func everyLocalTimeOf2026ResolvesToItselfOrToTheEndOfItsGap(identifier: String) {
        let zone = zone(identifier)
        var gaps = 0
        for day in 0..<365 {
            let date = date(2026, 1, 1).adding(days: day)
            for quarter in 0..<96 {
                let time = TimeOfDay(uncheckedHour: quarter / 4, minute: quarter % 4 * 15)
                let instant = zone.firstInstant(on: date, at: time)
                let reading = zone.wallClock(at: instant)
                if reading.date == date, reading.timeOfDay == time {
                    // An existing time: no earlier instant shows it (the first of a fall-back pair).
                    let hourEarlier = zone.wallClock(at: instant.addingTimeInterval(-3_600))
                    let halfHourEarlier = zone.wallClock(at: instant.addingTimeInterval(-1_800))
                    #expect(!(hourEarlier.date == date && hourEarlier.timeOfDay == time))
                    #expect(!(halfHourEarlier.date == date && halfHourEarlier.timeOfDay == time))
                } else {
                    // A missing time: the instant is a clock change, whose wall reading jumps past the time asked.
                    gaps += 1
                    let before = zone.wallClock(at: instant.addingTimeInterval(-1))
                    #expect(before.date == date && before.timeOfDay < time, "\(date) \(time) in \(identifier)")
                    #expect(reading.date == date && reading.timeOfDay > time, "\(date) \(time) in \(identifier)")
                }
            }
        }
        // Lisbon and New York skip four quarter hours a year, Lord Howe two, Kolkata none.
        let expectedGaps = ["Asia/Kolkata": 0, "Australia/Lord_Howe": 2]
        #expect(gaps == expectedGaps[identifier, default: 4])
    }
}
