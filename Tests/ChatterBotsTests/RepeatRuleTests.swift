import Foundation
import Testing

@testable import ChatterBots

/// Occurrences of repeat rules: fixed rates keep their grid, calendar rules follow the wall clock of their zone
/// across clock changes (gaps, overlaps, skipped days), and the JSON the store keeps.
@Suite("Repeat rules")
struct RepeatRuleTests {
    let utc = TimeZone(identifier: "UTC")!

    private func date(_ text: String) throws -> Date { try Timestamp(iso8601: text).date }

    /// The occurrences of `rule` after `start`, `count` of them, each run on time.
    private func occurrences(of rule: RepeatRule, after start: Date, count: Int) -> [Date] {
        var result: [Date] = []
        var cursor = start
        while result.count < count, let next = rule.nextOccurrence(following: cursor, after: cursor) {
            result.append(next)
            cursor = next
        }
        return result
    }

    /// The wall-clock reading of `instant` in `zone`, by Foundation's `Calendar` (independent of the code under test).
    private func wallClock(_ instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    private func zone(_ identifier: String) throws -> TimeZone { try #require(TimeZone(identifier: identifier)) }
    private func time(_ hour: Int, _ minute: Int = 0) throws -> TimeOfDay { try TimeOfDay(hour: hour, minute: minute) }

    // MARK: Fixed rate

    @Test func fixedRateKeepsItsRhythmAndSkipsMissedRuns() throws {
        let rule = RepeatRule.every(.seconds(3600))
        let due = try date("2026-10-22T09:00:00.000Z")
        #expect(rule.nextOccurrence(following: due, after: due) == (try date("2026-10-22T10:00:00.000Z")))
        #expect(rule.nextOccurrence(following: due, after: try date("2026-10-22T12:30:00.000Z")) == (try date("2026-10-22T13:00:00.000Z")))
        #expect(RepeatRule.every(.zero).nextOccurrence(following: due, after: due) == nil)
    }

    @Test func fixedRateIsElapsedTimeEvenAcrossAClockChange() throws {
        // New York springs forward on Sunday 8 March 2026: 02:00 EST becomes 03:00 EDT.
        let start = try date("2026-03-08T05:00:00.000Z")  // 00:00 EST
        let fired = occurrences(of: .every(.seconds(5_400)), after: start, count: 4)
        #expect(fired == (1...4).map { start.addingTimeInterval(TimeInterval($0 * 5_400)) })
    }

    @Test func fixedRateResumesOnItsOwnGridAfterAGap() throws {
        let rule = RepeatRule.every(.seconds(7_200))
        let due = try date("2025-11-30T16:30:00.000Z")
        // Offline from 16:31 to 21:10: the next occurrence is 22:30, still on the 2-hour grid from 16:30.
        #expect(rule.nextOccurrence(following: due, after: try date("2025-11-30T21:10:00.000Z")) == (try date("2025-11-30T22:30:00.000Z")))
        #expect(rule.nextOccurrence(following: due, after: try date("2025-11-30T22:30:00.000Z")) == (try date("2025-12-01T00:30:00.000Z")))
    }

    @Test func hugeIntervalsAndInstantsGiveNoOccurrenceInsteadOfOverflowing() throws {
        let due = try date("2025-11-30T14:30:00.000Z")
        #expect(RepeatRule.every(.seconds(Int64.max)).nextOccurrence(following: due, after: due) == nil)
        #expect(RepeatRule.every(.milliseconds(Int64.max)).nextOccurrence(following: due, after: due) == nil)
        #expect(RepeatRule.every(.seconds(60)).nextOccurrence(following: due, after: Date(timeIntervalSince1970: .infinity)) == nil)
        let daily = RepeatRule.daily(at: try time(9), timeZone: try zone("Europe/Lisbon"))
        #expect(daily.nextOccurrence(following: .distantPast, after: .distantPast) != nil)
        #expect(daily.nextOccurrence(following: due, after: Date(timeIntervalSince1970: .infinity)) == nil)
    }

    // MARK: Daily across clock changes

    @Test func dailyStaysAtLocalTimeAcrossTheEndOfSummerTime() throws {
        let lisbon = try zone("Europe/Lisbon")
        let rule = RepeatRule.daily(at: try time(9), timeZone: lisbon)
        let saturday = try date("2026-10-24T08:00:00.000Z")  // 09:00 WEST
        #expect(rule.nextOccurrence(following: saturday, after: saturday) == (try date("2026-10-25T09:00:00.000Z")))  // 09:00 WET
    }

    @Test func dailyNineOClockInLisbonStaysNineAcrossTheMarchChange() throws {
        // Lisbon springs forward on Sunday 29 March 2026 at 01:00 UTC (WET to WEST).
        let lisbon = try zone("Europe/Lisbon")
        let fired = occurrences(of: .daily(at: try time(9), timeZone: lisbon), after: try date("2026-03-27T12:00:00.000Z"), count: 4)
        #expect(fired == (try ["2026-03-28T09:00:00.000Z", "2026-03-29T08:00:00.000Z", "2026-03-30T08:00:00.000Z", "2026-03-31T08:00:00.000Z"].map(date)))
        #expect(fired.map { wallClock($0, in: lisbon) } == ["2026-03-28 09:00", "2026-03-29 09:00", "2026-03-30 09:00", "2026-03-31 09:00"])
    }

    @Test func dailyNineOClockInLisbonStaysNineAcrossTheOctoberChange() throws {
        // Lisbon falls back on Sunday 25 October 2026 at 01:00 UTC (WEST to WET).
        let lisbon = try zone("Europe/Lisbon")
        let fired = occurrences(of: .daily(at: try time(9), timeZone: lisbon), after: try date("2026-10-23T12:00:00.000Z"), count: 3)
        #expect(fired == (try ["2026-10-24T08:00:00.000Z", "2026-10-25T09:00:00.000Z", "2026-10-26T09:00:00.000Z"].map(date)))
        #expect(fired.map { wallClock($0, in: lisbon) } == ["2026-10-24 09:00", "2026-10-25 09:00", "2026-10-26 09:00"])
    }

    @Test func dailyTimeInTheSpringGapRunsAtTheNextExistingTime() throws {
        let newYork = try zone("America/New_York")
        let rule = RepeatRule.daily(at: try time(2, 30), timeZone: newYork)
        let due = try date("2026-03-07T07:30:00.000Z")  // 02:30 EST on the day before the change
        let next = try #require(rule.nextOccurrence(following: due, after: due))
        #expect(next == (try date("2026-03-08T07:00:00.000Z")))  // 03:00 EDT: 02:30 does not exist that day
    }

    @Test func dailyTwoThirtyInNewYorkFiresAtThreeOnTheGapDayAndTwoThirtyAfter() throws {
        let newYork = try zone("America/New_York")
        let fired = occurrences(of: .daily(at: try time(2, 30), timeZone: newYork), after: try date("2026-03-07T05:00:00.000Z"), count: 3)
        #expect(fired.map { wallClock($0, in: newYork) } == ["2026-03-07 02:30", "2026-03-08 03:00", "2026-03-09 02:30"])
    }

    @Test func anAmbiguousFallBackTimeFiresOnceAtItsFirstOccurrence() throws {
        // New York falls back on Sunday 1 November 2026: 01:00–02:00 happens twice (EDT, then EST).
        let newYork = try zone("America/New_York")
        let fired = occurrences(of: .daily(at: try time(1, 30), timeZone: newYork), after: try date("2026-10-31T04:00:00.000Z"), count: 3)
        #expect(fired == (try ["2026-10-31T05:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"].map(date)))
    }

    @Test func aThirtyMinuteGapInLordHoweMovesToItsEnd() throws {
        // Lord Howe Island springs forward by half an hour, 02:00 to 02:30, on Sunday 4 October 2026.
        let lordHowe = try zone("Australia/Lord_Howe")
        let fired = occurrences(of: .daily(at: try time(2, 15), timeZone: lordHowe), after: try date("2026-10-03T01:30:00.000Z"), count: 2)
        #expect(fired.map { wallClock($0, in: lordHowe) } == ["2026-10-04 02:30", "2026-10-05 02:15"])
    }

    @Test func aDayMissingFromTheCalendarIsSkipped() throws {
        // Samoa skipped Friday 30 December 2011 when it moved across the date line.
        let apia = try zone("Pacific/Apia")
        let fired = occurrences(of: .daily(at: try time(10), timeZone: apia), after: try date("2011-12-29T22:00:00.000Z"), count: 2)
        #expect(fired.map { wallClock($0, in: apia) } == ["2011-12-31 10:00", "2012-01-01 10:00"])
    }

    @Test func aDailyJobMissedForDaysRunsOnceLateThenAtItsTimeAgain() throws {
        let lisbon = try zone("Europe/Lisbon")
        let rule = RepeatRule.daily(at: try time(9), timeZone: lisbon)
        let next = rule.nextOccurrence(following: try date("2025-11-28T09:00:00.000Z"), after: try date("2025-11-30T15:00:00.000Z"))
        #expect(next == (try date("2025-12-01T09:00:00.000Z")))
    }

    // MARK: Weekly

    @Test func weeklyPicksTheSoonestListedDay() throws {
        let rule = RepeatRule.weekly(on: [.monday, .thursday], at: try time(9, 30), timeZone: utc)
        let thursday = try date("2026-10-22T09:30:00.000Z")
        #expect(rule.nextOccurrence(following: thursday, after: thursday) == (try date("2026-10-26T09:30:00.000Z")))
        #expect(RepeatRule.weekly(on: [], at: try time(9, 30), timeZone: utc).nextOccurrence(following: thursday, after: thursday) == nil)
    }

    @Test func weeklyOnMondayAndFridayFiresOnlyOnThoseDays() throws {
        let newYork = try zone("America/New_York")
        let rule = RepeatRule.weekly(on: [.monday, .friday], at: try time(10), timeZone: newYork)
        let fired = occurrences(of: rule, after: try date("2025-11-30T14:30:00.000Z"), count: 5)
        #expect(fired.map { wallClock($0, in: newYork) }
            == ["2025-12-01 10:00", "2025-12-05 10:00", "2025-12-08 10:00", "2025-12-12 10:00", "2025-12-15 10:00"])
    }

    @Test func weeklyOnWorkdaysSkipsTheWeekend() throws {
        let kolkata = try zone("Asia/Kolkata")
        let rule = RepeatRule.weekly(on: [.monday, .tuesday, .wednesday, .thursday, .friday], at: try time(8, 30), timeZone: kolkata)
        let fired = occurrences(of: rule, after: try date("2025-12-04T06:30:00.000Z"), count: 4)
        #expect(fired.map { wallClock($0, in: kolkata) } == ["2025-12-05 08:30", "2025-12-08 08:30", "2025-12-09 08:30", "2025-12-10 08:30"])
    }

    @Test func weeklyOnSundayAtTwoThirtyInNewYorkMovesOnlyOnTheGapSunday() throws {
        let newYork = try zone("America/New_York")
        let rule = RepeatRule.weekly(on: [.sunday], at: try time(2, 30), timeZone: newYork)
        let fired = occurrences(of: rule, after: try date("2026-03-02T05:00:00.000Z"), count: 2)
        #expect(fired.map { wallClock($0, in: newYork) } == ["2026-03-08 03:00", "2026-03-15 02:30"])
    }

    // MARK: Stored form

    @Test func rulesAndJobsRoundTripThroughJSON() throws {
        let rules: [RepeatRule] = [
            .every(.milliseconds(1500)),
            .daily(at: try time(7, 5), timeZone: try zone("Asia/Tokyo")),
            .weekly(on: [.saturday, .sunday], at: try time(23, 59), timeZone: utc),
        ]
        for rule in rules {
            #expect(try JSONDecoder().decode(RepeatRule.self, from: JSONEncoder().encode(rule)) == rule)
        }
        try expectRoundTrip(RepeatRule.self, #"{"kind":"weekly","weekdays":["sunday","saturday"],"time":"23:59","timeZone":"America/Sao_Paulo"}"#)
        try expectRoundTrip(RepeatRule.self, #"{"kind":"every","milliseconds":7200000}"#)
        let job = try expectRoundTrip(
            ScheduledJob.self,
            #"{"id":"J1","name":"reminder","dueAt":"2026-10-22T09:30:00.123Z","repeatRule":{"kind":"daily","time":"09:30","timeZone":"Europe/Lisbon"},"payload":{"text":"stretch"},"occurrence":3}"#)
        #expect(job.payload == ["text": "stretch"])
        #expect(job.occurrence == 3)
    }

    @Test func invalidTimesAndZonesAreRejected() {
        #expect(throws: InvalidTimeOfDay(hour: 24, minute: 0)) { try TimeOfDay(hour: 24, minute: 0) }
        #expect(throws: InvalidTimeOfDay.self) { try TimeOfDay(hour: 9, minute: -1) }
        #expect(throws: InvalidTimeOfDay.self) { try TimeOfDay(hour: 23, minute: 60) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TimeOfDay.self, from: Data(#""9:30""#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TimeOfDay.self, from: Data(#""+9:30""#.utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RepeatRule.self, from: Data(#"{"kind":"daily","time":"09:30","timeZone":"Mars/Olympus"}"#.utf8))
        }
    }

    @Test(arguments: [
        #"{"kind":"daily","time":"25:00","timeZone":"Europe/Lisbon"}"#,
        #"{"kind":"weekly","time":"09:00","weekdays":[],"timeZone":"Europe/Lisbon"}"#,
        #"{"kind":"weekly","time":"09:00","weekdays":["funday"],"timeZone":"Europe/Lisbon"}"#,
        #"{"kind":"every","milliseconds":0}"#,
        #"{"kind":"every","milliseconds":-60000}"#,
        #"{"kind":"monthly","time":"09:00","timeZone":"Europe/Lisbon"}"#,
    ])
    func corruptStoredRulesFailToDecodeInsteadOfCrashing(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RepeatRule.self, from: Data(json.utf8)) }
    }

    @Test func anIntervalTooLongForMillisecondsFailsToEncode() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(RepeatRule.every(.seconds(Int64.max))) }
    }
}
