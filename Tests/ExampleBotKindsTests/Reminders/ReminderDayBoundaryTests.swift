import Foundation
import ChatterBots
import Testing
@testable import ExampleBotKinds

/// Which day a time lands on: today while it is still ahead, tomorrow after; "tomorrow" across midnight and the
/// ends of months and years, always by the person's zone rather than UTC.
@Suite("Today, tomorrow and the ends of months")
struct ReminderDayBoundaryTests {
    @Test func atATimeStillAheadIsToday() throws {
        let reminder = try Fixture.reminder("remind me at 18:30 to call mom", now: Fixture.instant("2025-11-30T18:29:59Z"), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2025-11-30T18:30:00Z"))
    }

    @Test func atATimeJustPassedIsTomorrow() throws {
        let reminder = try Fixture.reminder("remind me at 18:30 to call mom", now: Fixture.instant("2025-11-30T18:31:00Z"), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2025-12-01T18:30:00Z"))
    }

    @Test func atTheExactTimeIsTomorrowBecauseTheMomentIsNotAhead() throws {
        let reminder = try Fixture.reminder("remind me at 18:30 to call mom", now: Fixture.instant("2025-11-30T18:30:00Z"), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2025-12-01T18:30:00Z"))
    }

    @Test func todayAtAPassedTimeIsRefusedRatherThanMovedToTomorrow() throws {
        let request = try Fixture.request("remind me today at 8:00 to call mom")
        let error = Fixture.error { () throws(ReminderCommandError) in
            try request.reminder(now: Fixture.sunday, timeZone: Fixture.lisbon)
        }
        #expect(error == .alreadyPast("today at 08:00"))
        #expect(error?.message == "Today at 08:00 has already passed. Say a time that's still ahead.")
    }

    @Test func aDatePassedIsRefused() throws {
        let request = try Fixture.request("remind me on 2020-01-01 at 8:00 to call mom")
        let error = Fixture.error { () throws(ReminderCommandError) in
            try request.reminder(now: Fixture.sunday, timeZone: Fixture.lisbon)
        }
        #expect(error?.message == "2020-01-01 at 08:00 has already passed. Say a time that's still ahead.")
    }

    @Test func tomorrowJustBeforeMidnightOnNewYearsEveIsNewYearsDay() throws {
        let reminder = try Fixture.reminder("remind me tomorrow to call mom", now: Fixture.instant("2025-12-31T23:59:30Z"), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2026-01-01T09:00:00Z"))
    }

    @Test func tomorrowJustAfterMidnightIsTheDayAfter() throws {
        let reminder = try Fixture.reminder("remind me tomorrow to call mom", now: Fixture.instant("2026-01-01T00:00:30Z"), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2026-01-02T09:00:00Z"))
    }

    @Test func tomorrowFollowsTheLocalDateNotUTC() throws {
        // 01:00 UTC on 1 January is still 20:00 on 31 December in New York: tomorrow is 1 January there.
        let newYork = try Fixture.reminder("remind me tomorrow at 9 to call mom", now: Fixture.instant("2026-01-01T01:00:00Z"), in: Fixture.newYork)
        #expect(newYork.due == Fixture.instant("2026-01-01T09:00:00-05:00"))
        // 20:00 UTC on 31 December is already 01:30 on 1 January in Kolkata: tomorrow is 2 January there.
        let kolkata = try Fixture.reminder("remind me tomorrow at 9 to call mom", now: Fixture.instant("2025-12-31T20:00:00Z"), in: Fixture.kolkata)
        #expect(kolkata.due == Fixture.instant("2026-01-02T09:00:00+05:30"))
    }

    @Test(arguments: [
        ("2026-04-30T12:00:00Z", "2026-05-01T09:00:00+01:00"),
        ("2026-02-28T12:00:00Z", "2026-03-01T09:00:00Z"),
        ("2028-02-28T12:00:00Z", "2028-02-29T09:00:00Z"),
        ("2028-02-29T12:00:00Z", "2028-03-01T09:00:00Z"),
        ("2026-12-31T12:00:00Z", "2027-01-01T09:00:00Z"),
    ])
    func tomorrowCrossesTheEndOfTheMonthAndYear(now: String, expected: String) throws {
        let reminder = try Fixture.reminder("remind me tomorrow to pay rent", now: Fixture.instant(now), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant(expected))
    }

    @Test func inMinutesCrossesMidnightIntoTomorrow() throws {
        let reminder = try Fixture.reminder("remind me in 10 minutes to sleep", now: Fixture.instant("2025-12-31T23:55:00Z"), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2026-01-01T00:05:00Z"))
    }

    @Test func aWeekdayLaterTodayIsTodayAndOneAlreadyPassedIsNextWeek() throws {
        // Sunday 14:30 in Lisbon.
        let later = try Fixture.reminder("remind me on sunday at 18:00 to call mom", in: Fixture.lisbon)
        #expect(later.due == Fixture.instant("2025-11-30T18:00:00Z"))
        let passed = try Fixture.reminder("remind me on sunday at 10:00 to call mom", in: Fixture.lisbon)
        #expect(passed.due == Fixture.instant("2025-12-07T10:00:00Z"))
    }

    @Test func nextWeekdayIsNeverToday() throws {
        let reminder = try Fixture.reminder("remind me next sunday at 18:00 to call mom", in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2025-12-07T18:00:00Z"))
    }

    @Test func aDayOfYearWithoutAYearIsTheNextOneStillAhead() throws {
        // 29 February without a year waits for the next leap year.
        let leap = try Fixture.reminder("remind me on 29 february at 9 to celebrate", in: Fixture.lisbon)
        #expect(leap.due == Fixture.instant("2028-02-29T09:00:00Z"))
    }

    @Test func delaysCountFromTheWholeSecondSoStoredTimesAreWholeSeconds() throws {
        let reminder = try Fixture.reminder("remind me in 10 minutes to stretch", now: Fixture.instant("2025-11-30T14:30:00Z").addingTimeInterval(0.75), in: Fixture.lisbon)
        #expect(reminder.due == Fixture.instant("2025-11-30T14:40:00Z"))
    }
}
