import Foundation
import Testing
@testable import ExampleBotKinds

/// The calendar arithmetic under the schedules, checked against Foundation's `Calendar` as an independent oracle.
@Suite("Local dates and wall clocks")
struct LocalCalendarTests {
    func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    @Test func dayNumbersAndWeekdaysAgreeWithFoundationFrom1900To2200() {
        let gregorian = calendar(Fixture.utc)
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
        #expect(LocalTime(hour: 24, minute: 0) == nil)
        #expect(LocalTime(hour: 23, minute: 60) == nil)
    }

    @Test(arguments: ["UTC", "Europe/Lisbon", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"])
    func wallClockReadingsAgreeWithFoundation(identifier: String) {
        let zone = Fixture.zone(identifier)
        let oracle = calendar(zone)
        // Every 7 h 13 min through 2026, which lands near every clock change.
        for step in 0..<1_215 {
            let instant = Fixture.instant("2026-01-01T00:00:00Z").addingTimeInterval(TimeInterval(step * 26_000))
            let reading = zone.wallClock(at: instant)
            let parts = oracle.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
            #expect(reading.date == Fixture.date(parts.year ?? 0, parts.month ?? 0, parts.day ?? 0))
            #expect(reading.secondOfDay == (parts.hour ?? 0) * 3_600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0))
        }
    }

    @Test(arguments: ["Europe/Lisbon", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"])
    func everyLocalTimeOf2026ResolvesToItselfOrToTheEndOfItsGap(identifier: String) {
        let zone = Fixture.zone(identifier)
        var gaps = 0
        for day in 0..<365 {
            let date = Fixture.date(2026, 1, 1).adding(days: day)
            for quarter in 0..<96 {
                let time = Fixture.time(quarter / 4, quarter % 4 * 15)
                let instant = zone.firstInstant(on: date, at: time)
                let reading = zone.wallClock(at: instant)
                if reading.date == date, reading.time == time {
                    // An existing time: no earlier instant shows it (the first of a fall-back pair).
                    let hourEarlier = zone.wallClock(at: instant.addingTimeInterval(-3_600))
                    let halfHourEarlier = zone.wallClock(at: instant.addingTimeInterval(-1_800))
                    #expect(!(hourEarlier.date == date && hourEarlier.time == time))
                    #expect(!(halfHourEarlier.date == date && halfHourEarlier.time == time))
                } else {
                    // A missing time: the instant is a clock change, whose wall reading jumps past the time asked.
                    gaps += 1
                    let before = zone.wallClock(at: instant.addingTimeInterval(-1))
                    #expect(before.date == date && before.time < time, "\(date) \(time) in \(identifier)")
                    #expect(reading.date == date && reading.time > time, "\(date) \(time) in \(identifier)")
                }
            }
        }
        // Lisbon and New York skip four quarter hours a year, Lord Howe two, Kolkata none.
        let expectedGaps = ["Asia/Kolkata": 0, "Australia/Lord_Howe": 2]
        #expect(gaps == expectedGaps[identifier, default: 4])
    }
}
