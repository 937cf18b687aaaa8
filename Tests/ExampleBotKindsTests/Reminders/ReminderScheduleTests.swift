import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

/// Reminders said in a zone keep their wall-clock times across clock changes (the rule arithmetic itself is
/// specified by `RepeatRuleTests` in ChatterBotsTests), reschedule after firing, and are stored as readable JSON.
@Suite("ReminderSchedule")
struct ReminderScheduleTests {
    /// The times `reminder` fires, each fired on time, `count` of them starting with its first.
    func firings(of reminder: Reminder, count: Int) -> [Date] {
        var result: [Date] = []
        var current: Reminder? = reminder
        while result.count < count, let next = current {
            result.append(next.due)
            current = next.rescheduled(afterFiringAt: next.due)
        }
        return result
    }

    /// The wall-clock reading of `instant` in `zone`, by Foundation's `Calendar` (independent of the code under test).
    func wallClock(_ instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    // MARK: Clock changes

    @Test func dailyNineOClockInLisbonStaysNineAcrossTheMarchChange() throws {
        // Lisbon springs forward on Sunday 29 March 2026 at 01:00 UTC (WET to WEST).
        let reminder = try Fixture.reminder("remind me every day at 9:00 to stand up", now: Fixture.instant("2026-03-27T12:00:00Z"), in: Fixture.lisbon)
        let fired = firings(of: reminder, count: 4)
        #expect(fired == ["2026-03-28T09:00:00Z", "2026-03-29T08:00:00Z", "2026-03-30T08:00:00Z", "2026-03-31T08:00:00Z"].map(Fixture.instant))
        #expect(fired.map { wallClock($0, in: Fixture.lisbon) } == ["2026-03-28 09:00", "2026-03-29 09:00", "2026-03-30 09:00", "2026-03-31 09:00"])
    }

    @Test func dailyNineOClockInLisbonStaysNineAcrossTheOctoberChange() throws {
        // Lisbon falls back on Sunday 25 October 2026 at 01:00 UTC (WEST to WET).
        let reminder = try Fixture.reminder("remind me every day at 9:00 to stand up", now: Fixture.instant("2026-10-23T12:00:00Z"), in: Fixture.lisbon)
        let fired = firings(of: reminder, count: 3)
        #expect(fired == ["2026-10-24T08:00:00Z", "2026-10-25T09:00:00Z", "2026-10-26T09:00:00Z"].map(Fixture.instant))
    }

    @Test func oneThirtyOnTheNewYorkSpringForwardDayIsBeforeTheGapAndUnchanged() throws {
        // New York springs forward on Sunday 8 March 2026: 02:00 EST becomes 03:00 EDT (07:00 UTC).
        let reminder = try Fixture.reminder("remind me tomorrow at 1:30 to check", now: Fixture.instant("2026-03-07T17:00:00Z"), in: Fixture.newYork)
        #expect(reminder.due == Fixture.instant("2026-03-08T01:30:00-05:00"))
    }

    @Test func twoThirtyInTheNewYorkSpringForwardGapFiresAtThreeWhenTheGapEnds() throws {
        let reminder = try Fixture.reminder("remind me at 2:30 to check", now: Fixture.instant("2026-03-07T17:00:00Z"), in: Fixture.newYork)
        #expect(reminder.due == Fixture.instant("2026-03-08T07:00:00Z"))
        #expect(wallClock(reminder.due, in: Fixture.newYork) == "2026-03-08 03:00")
        #expect(ReminderConfirmation(reminder, now: Fixture.instant("2026-03-07T17:00:00Z")).text
            == "Okay, I'll remind you to check tomorrow, Sun 8 Mar at 03:00 (America/New_York).")
    }

    @Test func dailyTwoThirtyInNewYorkFiresAtThreeOnTheGapDayAndTwoThirtyAfter() throws {
        let reminder = try Fixture.reminder("remind me every day at 2:30 to check", now: Fixture.instant("2026-03-07T00:00:00-05:00"), in: Fixture.newYork)
        #expect(firings(of: reminder, count: 3).map { wallClock($0, in: Fixture.newYork) } == ["2026-03-07 02:30", "2026-03-08 03:00", "2026-03-09 02:30"])
    }

    @Test func anAmbiguousFallBackTimeFiresOnceAtItsFirstOccurrence() throws {
        // New York falls back on Sunday 1 November 2026: 01:00–02:00 happens twice (EDT, then EST).
        let reminder = try Fixture.reminder("remind me every day at 1:30 to check", now: Fixture.instant("2026-10-31T00:00:00-04:00"), in: Fixture.newYork)
        #expect(firings(of: reminder, count: 3) == ["2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"].map(Fixture.instant))
    }

    @Test func inOneDayAcrossTheSpringChangeKeepsTheWallClockTime() throws {
        // Noon EST on Saturday, noon EDT on Sunday: 23 hours later.
        let reminder = try Fixture.reminder("remind me in 1 day to check", now: Fixture.instant("2026-03-07T12:00:00-05:00"), in: Fixture.newYork)
        #expect(reminder.due == Fixture.instant("2026-03-08T12:00:00-04:00"))
    }

    @Test func inHoursAcrossTheSpringChangeIsElapsedTime() throws {
        let reminder = try Fixture.reminder("remind me in 3 hours to check", now: Fixture.instant("2026-03-08T00:30:00-05:00"), in: Fixture.newYork)
        #expect(reminder.due == Fixture.instant("2026-03-08T04:30:00-04:00"))
    }

    @Test func everyNMinutesIsElapsedTimeEvenAcrossAClockChange() throws {
        let now = Fixture.instant("2026-03-08T00:00:00-05:00")
        let reminder = try Fixture.reminder("remind me every 90 minutes to move", now: now, in: Fixture.newYork)
        #expect(firings(of: reminder, count: 4) == (1...4).map { now.addingTimeInterval(TimeInterval($0 * 5_400)) })
    }

    // MARK: Cadences

    @Test func everyWeekdaySkipsTheWeekend() throws {
        let reminder = try Fixture.reminder("remind me every weekday at 8:30 to commute", now: Fixture.instant("2025-12-04T12:00:00+05:30"), in: Fixture.kolkata)
        #expect(firings(of: reminder, count: 4).map { wallClock($0, in: Fixture.kolkata) } == ["2025-12-05 08:30", "2025-12-08 08:30", "2025-12-09 08:30", "2025-12-10 08:30"])
    }

    @Test func everyNMinutesResumesOnItsOwnCadenceAfterAGap() {
        let reminder = Reminder(
            task: "drink water", schedule: ReminderSchedule(repeating: .every(.seconds(7_200)), timeZone: Fixture.utc),
            due: Fixture.instant("2025-11-30T16:30:00Z"))
        // Offline from 16:31 to 21:10: the next occurrence is 22:30, still on the 2-hour grid from 16:30.
        #expect(reminder.rescheduled(afterFiringAt: Fixture.instant("2025-11-30T21:10:00Z"))?.due == Fixture.instant("2025-11-30T22:30:00Z"))
    }

    @Test func aRepeatingReminderFiredLateSkipsTheOccurrencesMissedOffline() throws {
        let reminder = Reminder(
            task: "stand up", schedule: ReminderSchedule(repeating: .daily(at: Fixture.time(9), timeZone: Fixture.lisbon), timeZone: Fixture.lisbon),
            due: Fixture.instant("2025-11-28T09:00:00Z"))
        let next = reminder.rescheduled(afterFiringAt: Fixture.instant("2025-11-30T15:00:00Z"))
        #expect(next?.due == Fixture.instant("2025-12-01T09:00:00Z"))
        #expect(next?.task == "stand up")
    }

    @Test func aOneOffIsNotRescheduledAfterFiring() {
        let reminder = Reminder(task: "stretch", schedule: .once(in: Fixture.lisbon), due: Fixture.sunday)
        #expect(!reminder.schedule.repeats)
        #expect(reminder.rescheduled(afterFiringAt: Fixture.sunday) == nil)
    }

    // MARK: Stored form

    @Test func eachScheduleIsStoredAsReadableJSONAndReadBackEqual() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let cases: [(ReminderSchedule, String)] = [
            (.once(in: Fixture.lisbon), #"{"timeZone":"Europe/Lisbon"}"#),
            (ReminderSchedule(repeating: .daily(at: Fixture.time(9), timeZone: Fixture.newYork), timeZone: Fixture.newYork),
             #"{"repeatRule":{"kind":"daily","time":"09:00","timeZone":"America/New_York"},"timeZone":"America/New_York"}"#),
            (ReminderSchedule(repeating: .weekly(on: [.friday, .monday], at: Fixture.time(10, 5), timeZone: Fixture.kolkata), timeZone: Fixture.kolkata),
             #"{"repeatRule":{"kind":"weekly","time":"10:05","timeZone":"Asia/Kolkata","weekdays":["monday","friday"]},"timeZone":"Asia/Kolkata"}"#),
            (ReminderSchedule(repeating: .every(.seconds(7_200)), timeZone: Fixture.utc),
             #"{"repeatRule":{"kind":"every","milliseconds":7200000},"timeZone":"\#(Fixture.utc.identifier)"}"#),
        ]
        for (schedule, json) in cases {
            let encoded = String(decoding: try encoder.encode(schedule), as: UTF8.self)
            #expect(encoded == json)
            #expect(try JSONDecoder().decode(ReminderSchedule.self, from: Data(json.utf8)) == schedule)
        }
    }

    @Test func aReminderRoundTripsThroughJSON() throws {
        let reminder = try Fixture.reminder("remind me every monday at 10:00 to Sync with Ann", in: Fixture.lisbon)
        let decoded = try JSONDecoder().decode(Reminder.self, from: JSONEncoder().encode(reminder))
        #expect(decoded == reminder)
    }

    @Test(arguments: [
        #"{"repeatRule":{"kind":"daily","time":"09:00","timeZone":"Europe/Lisbon"},"timeZone":"Mars/Olympus"}"#,
        #"{"repeatRule":{"kind":"daily","time":"25:00","timeZone":"Europe/Lisbon"},"timeZone":"Europe/Lisbon"}"#,
        #"{"repeatRule":{"kind":"weekly","time":"09:00","weekdays":[],"timeZone":"Europe/Lisbon"},"timeZone":"Europe/Lisbon"}"#,
        #"{"repeatRule":{"kind":"every","milliseconds":0},"timeZone":"Europe/Lisbon"}"#,
        #"{"repeatRule":{"kind":"monthly","time":"09:00"},"timeZone":"Europe/Lisbon"}"#,
    ])
    func corruptStoredSchedulesFailToDecodeInsteadOfCrashing(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ReminderSchedule.self, from: Data(json.utf8))
        }
    }

    @Test func aReminderWithACorruptDueTimeFailsToDecode() {
        let json = #"{"task":"stretch","schedule":{"timeZone":"Europe/Lisbon"},"due":"yesterday"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Reminder.self, from: Data(json.utf8)) }
    }
}
