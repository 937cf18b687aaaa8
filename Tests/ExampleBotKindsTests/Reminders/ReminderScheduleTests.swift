import Foundation
import Testing
@testable import ExampleBotKinds

/// Occurrences of schedules across clock changes, weekly and interval cadences, and the JSON the bot stores.
@Suite("ReminderSchedule")
struct ReminderScheduleTests {
    /// The occurrences of `schedule` after `start`, `count` of them.
    func occurrences(of schedule: ReminderSchedule, after start: Date, count: Int) -> [Date] {
        var result: [Date] = []
        var cursor = start
        while result.count < count, let next = schedule.nextOccurrence(after: cursor) {
            result.append(next)
            cursor = next
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

    @Test func dailyNineOClockInLisbonStaysNineAcrossTheMarchChange() {
        // Lisbon springs forward on Sunday 29 March 2026 at 01:00 UTC (WET to WEST).
        let schedule = ReminderSchedule(rule: .daily(at: Fixture.time(9)), timeZone: Fixture.lisbon)
        let fired = occurrences(of: schedule, after: Fixture.instant("2026-03-27T12:00:00Z"), count: 4)
        #expect(fired == ["2026-03-28T09:00:00Z", "2026-03-29T08:00:00Z", "2026-03-30T08:00:00Z", "2026-03-31T08:00:00Z"].map(Fixture.instant))
        #expect(fired.map { wallClock($0, in: Fixture.lisbon) } == ["2026-03-28 09:00", "2026-03-29 09:00", "2026-03-30 09:00", "2026-03-31 09:00"])
    }

    @Test func dailyNineOClockInLisbonStaysNineAcrossTheOctoberChange() {
        // Lisbon falls back on Sunday 25 October 2026 at 01:00 UTC (WEST to WET).
        let schedule = ReminderSchedule(rule: .daily(at: Fixture.time(9)), timeZone: Fixture.lisbon)
        let fired = occurrences(of: schedule, after: Fixture.instant("2026-10-23T12:00:00Z"), count: 3)
        #expect(fired == ["2026-10-24T08:00:00Z", "2026-10-25T09:00:00Z", "2026-10-26T09:00:00Z"].map(Fixture.instant))
        #expect(fired.map { wallClock($0, in: Fixture.lisbon) } == ["2026-10-24 09:00", "2026-10-25 09:00", "2026-10-26 09:00"])
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

    @Test func dailyTwoThirtyInNewYorkFiresAtThreeOnTheGapDayAndTwoThirtyAfter() {
        let schedule = ReminderSchedule(rule: .daily(at: Fixture.time(2, 30)), timeZone: Fixture.newYork)
        let fired = occurrences(of: schedule, after: Fixture.instant("2026-03-07T00:00:00-05:00"), count: 3)
        #expect(fired.map { wallClock($0, in: Fixture.newYork) } == ["2026-03-07 02:30", "2026-03-08 03:00", "2026-03-09 02:30"])
    }

    @Test func anAmbiguousFallBackTimeFiresOnceAtItsFirstOccurrence() {
        // New York falls back on Sunday 1 November 2026: 01:00–02:00 happens twice (EDT, then EST).
        let schedule = ReminderSchedule(rule: .daily(at: Fixture.time(1, 30)), timeZone: Fixture.newYork)
        let fired = occurrences(of: schedule, after: Fixture.instant("2026-10-31T00:00:00-04:00"), count: 3)
        #expect(fired == ["2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"].map(Fixture.instant))
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

    @Test func aThirtyMinuteGapInLordHoweMovesToItsEnd() {
        // Lord Howe Island springs forward by half an hour, 02:00 to 02:30, on Sunday 4 October 2026.
        let zone = Fixture.zone("Australia/Lord_Howe")
        let schedule = ReminderSchedule(rule: .daily(at: Fixture.time(2, 15)), timeZone: zone)
        let fired = occurrences(of: schedule, after: Fixture.instant("2026-10-03T12:00:00+10:30"), count: 2)
        #expect(fired.map { wallClock($0, in: zone) } == ["2026-10-04 02:30", "2026-10-05 02:15"])
    }

    @Test func aDayMissingFromTheCalendarIsSkipped() {
        // Samoa skipped Friday 30 December 2011 when it moved across the date line.
        let zone = Fixture.zone("Pacific/Apia")
        let schedule = ReminderSchedule(rule: .daily(at: Fixture.time(10)), timeZone: zone)
        let fired = occurrences(of: schedule, after: Fixture.instant("2011-12-29T12:00:00-10:00"), count: 2)
        #expect(fired.map { wallClock($0, in: zone) } == ["2011-12-31 10:00", "2012-01-01 10:00"])
    }

    // MARK: Cadences

    @Test func weeklyOnMondayAndFridayFiresOnlyOnThoseDays() {
        let schedule = ReminderSchedule(rule: .weekly(on: [.monday, .friday], at: Fixture.time(10)), timeZone: Fixture.newYork)
        let fired = occurrences(of: schedule, after: Fixture.sunday, count: 5)
        #expect(fired.map { wallClock($0, in: Fixture.newYork) }
            == ["2025-12-01 10:00", "2025-12-05 10:00", "2025-12-08 10:00", "2025-12-12 10:00", "2025-12-15 10:00"])
    }

    @Test func everyWeekdaySkipsTheWeekend() {
        let schedule = ReminderSchedule(rule: .weekly(on: Weekday.workdays, at: Fixture.time(8, 30)), timeZone: Fixture.kolkata)
        let fired = occurrences(of: schedule, after: Fixture.instant("2025-12-04T12:00:00+05:30"), count: 4)
        #expect(fired.map { wallClock($0, in: Fixture.kolkata) } == ["2025-12-05 08:30", "2025-12-08 08:30", "2025-12-09 08:30", "2025-12-10 08:30"])
    }

    @Test func weeklyOnSundayAtTwoThirtyInNewYorkMovesOnlyOnTheGapSunday() {
        let schedule = ReminderSchedule(rule: .weekly(on: [.sunday], at: Fixture.time(2, 30)), timeZone: Fixture.newYork)
        let fired = occurrences(of: schedule, after: Fixture.instant("2026-03-02T00:00:00-05:00"), count: 2)
        #expect(fired.map { wallClock($0, in: Fixture.newYork) } == ["2026-03-08 03:00", "2026-03-15 02:30"])
    }

    @Test func everyNMinutesIsElapsedTimeEvenAcrossAClockChange() {
        let start = Fixture.instant("2026-03-08T00:00:00-05:00")
        let schedule = ReminderSchedule(rule: .every(minutes: 90, from: start), timeZone: Fixture.newYork)
        let fired = occurrences(of: schedule, after: start.addingTimeInterval(-1), count: 4)
        #expect(fired == (0..<4).map { start.addingTimeInterval(TimeInterval($0 * 5_400)) })
    }

    @Test func everyNMinutesResumesOnItsOwnCadenceAfterAGap() {
        let start = Fixture.instant("2025-11-30T16:30:00Z")
        let schedule = ReminderSchedule(rule: .every(minutes: 120, from: start), timeZone: Fixture.utc)
        // Offline from 16:31 to 21:10: the next occurrence is 22:30, still on the 2-hour grid from 16:30.
        #expect(schedule.nextOccurrence(after: Fixture.instant("2025-11-30T21:10:00Z")) == Fixture.instant("2025-11-30T22:30:00Z"))
        #expect(schedule.nextOccurrence(after: Fixture.instant("2025-11-30T22:30:00Z")) == Fixture.instant("2025-12-01T00:30:00Z"))
    }

    @Test func aOneOffFiresOnceAndThenNever() {
        let at = Fixture.instant("2025-11-30T14:40:00Z")
        let schedule = ReminderSchedule(rule: .once(at: at), timeZone: Fixture.lisbon)
        #expect(schedule.nextOccurrence(after: Fixture.sunday) == at)
        #expect(schedule.nextOccurrence(after: at) == nil)
    }

    @Test func aRepeatingReminderFiredLateSkipsTheOccurrencesMissedOffline() {
        let reminder = Reminder(
            task: "stand up", schedule: ReminderSchedule(rule: .daily(at: Fixture.time(9)), timeZone: Fixture.lisbon),
            due: Fixture.instant("2025-11-28T09:00:00Z"))
        let next = reminder.rescheduled(afterFiringAt: Fixture.instant("2025-11-30T15:00:00Z"))
        #expect(next?.due == Fixture.instant("2025-12-01T09:00:00Z"))
        #expect(next?.task == "stand up")
    }

    @Test func aOneOffIsNotRescheduledAfterFiring() {
        let reminder = Reminder(
            task: "stretch", schedule: ReminderSchedule(rule: .once(at: Fixture.sunday), timeZone: Fixture.lisbon), due: Fixture.sunday)
        #expect(reminder.rescheduled(afterFiringAt: Fixture.sunday) == nil)
    }

    // MARK: Stored form

    @Test func eachRuleIsStoredAsReadableJSONAndReadBackEqual() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let cases: [(ReminderSchedule, String)] = [
            (ReminderSchedule(rule: .once(at: Fixture.instant("2025-11-30T14:40:00Z")), timeZone: Fixture.lisbon),
             #"{"rule":{"at":"2025-11-30T14:40:00Z","kind":"once"},"timeZone":"Europe/Lisbon"}"#),
            (ReminderSchedule(rule: .daily(at: Fixture.time(9)), timeZone: Fixture.newYork),
             #"{"rule":{"kind":"daily","time":"09:00"},"timeZone":"America/New_York"}"#),
            (ReminderSchedule(rule: .weekly(on: [.friday, .monday], at: Fixture.time(10, 5)), timeZone: Fixture.kolkata),
             #"{"rule":{"kind":"weekly","time":"10:05","weekdays":["monday","friday"]},"timeZone":"Asia/Kolkata"}"#),
            (ReminderSchedule(rule: .every(minutes: 120, from: Fixture.instant("2025-11-30T16:30:00Z")), timeZone: Fixture.utc),
             #"{"rule":{"from":"2025-11-30T16:30:00Z","kind":"every","minutes":120},"timeZone":"\#(Fixture.utc.identifier)"}"#),
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
        #"{"rule":{"kind":"daily","time":"09:00"},"timeZone":"Mars/Olympus"}"#,
        #"{"rule":{"kind":"daily","time":"25:00"},"timeZone":"Europe/Lisbon"}"#,
        #"{"rule":{"kind":"weekly","time":"09:00","weekdays":[]},"timeZone":"Europe/Lisbon"}"#,
        #"{"rule":{"kind":"every","minutes":0,"from":"2025-11-30T16:30:00Z"},"timeZone":"Europe/Lisbon"}"#,
        #"{"rule":{"kind":"once","at":"yesterday"},"timeZone":"Europe/Lisbon"}"#,
        #"{"rule":{"kind":"monthly","time":"09:00"},"timeZone":"Europe/Lisbon"}"#,
    ])
    func corruptStoredSchedulesFailToDecodeInsteadOfCrashing(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ReminderSchedule.self, from: Data(json.utf8))
        }
    }
}
