import Foundation
import ChatterBots
import Testing
@testable import ExampleBotKinds

/// Each supported phrase, said at `Fixture.sunday` (Sun 30 Nov 2025 14:30 UTC), lands on the right instant in
/// UTC, Lisbon (UTC+0 in winter), New York (UTC−5) and Kolkata (UTC+5:30, where it is already 20:00).
@Suite("Reminder phrases resolve to instants")
struct ReminderPhraseResolutionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let phrase: String
        /// Expected first occurrence per zone, as UTC text: UTC, Lisbon, New York, Kolkata.
        let expected: [String: String]
        var testDescription: String { phrase }

        init(_ phrase: String, utc: String, lisbon: String? = nil, newYork: String, kolkata: String) {
            self.phrase = phrase
            expected = ["UTC": utc, "Europe/Lisbon": lisbon ?? utc, "America/New_York": newYork, "Asia/Kolkata": kolkata]
        }

        /// The same instant in every zone (a delay from now).
        init(_ phrase: String, everywhere: String) {
            self.init(phrase, utc: everywhere, newYork: everywhere, kolkata: everywhere)
        }
    }

    static let cases: [Case] = [
        Case("in 10 minutes", everywhere: "2025-11-30T14:40:00Z"),
        Case("in 1 minute", everywhere: "2025-11-30T14:31:00Z"),
        Case("in a minute", everywhere: "2025-11-30T14:31:00Z"),
        Case("in an hour", everywhere: "2025-11-30T15:30:00Z"),
        Case("in 2 hours", everywhere: "2025-11-30T16:30:00Z"),
        Case("in 1 hour and 30 minutes", everywhere: "2025-11-30T16:00:00Z"),
        Case("in 90 min", everywhere: "2025-11-30T16:00:00Z"),
        Case("in 2h", everywhere: "2025-11-30T16:30:00Z"),
        Case("in 1h30", everywhere: "2025-11-30T16:00:00Z"),
        Case("in half an hour", everywhere: "2025-11-30T15:00:00Z"),
        Case("in an hour and a half", everywhere: "2025-11-30T16:00:00Z"),
        Case("in 1.5 hours", everywhere: "2025-11-30T16:00:00Z"),
        Case("in 30 seconds", everywhere: "2025-11-30T14:30:30Z"),
        Case("in 3 days", everywhere: "2025-12-03T14:30:00Z"),
        Case("in 2 weeks", everywhere: "2025-12-14T14:30:00Z"),
        // Kolkata: 18:30 has passed at 20:00, so tomorrow.
        Case("at 18:30", utc: "2025-11-30T18:30:00Z", newYork: "2025-11-30T23:30:00Z", kolkata: "2025-12-01T13:00:00Z"),
        Case("at 6:30pm", utc: "2025-11-30T18:30:00Z", newYork: "2025-11-30T23:30:00Z", kolkata: "2025-12-01T13:00:00Z"),
        Case("at 6:30 p.m.", utc: "2025-11-30T18:30:00Z", newYork: "2025-11-30T23:30:00Z", kolkata: "2025-12-01T13:00:00Z"),
        Case("at 18h30", utc: "2025-11-30T18:30:00Z", newYork: "2025-11-30T23:30:00Z", kolkata: "2025-12-01T13:00:00Z"),
        Case("at 6pm", utc: "2025-11-30T18:00:00Z", newYork: "2025-11-30T23:00:00Z", kolkata: "2025-12-01T12:30:00Z"),
        Case("at 9", utc: "2025-12-01T09:00:00Z", newYork: "2025-12-01T14:00:00Z", kolkata: "2025-12-01T03:30:00Z"),
        Case("at 12am", utc: "2025-12-01T00:00:00Z", newYork: "2025-12-01T05:00:00Z", kolkata: "2025-11-30T18:30:00Z"),
        Case("at noon", utc: "2025-12-01T12:00:00Z", newYork: "2025-11-30T17:00:00Z", kolkata: "2025-12-01T06:30:00Z"),
        Case("tomorrow at 9", utc: "2025-12-01T09:00:00Z", newYork: "2025-12-01T14:00:00Z", kolkata: "2025-12-01T03:30:00Z"),
        Case("at 9 tomorrow", utc: "2025-12-01T09:00:00Z", newYork: "2025-12-01T14:00:00Z", kolkata: "2025-12-01T03:30:00Z"),
        Case("tomorrow", utc: "2025-12-01T09:00:00Z", newYork: "2025-12-01T14:00:00Z", kolkata: "2025-12-01T03:30:00Z"),
        Case("tomorrow 7:15am", utc: "2025-12-01T07:15:00Z", newYork: "2025-12-01T12:15:00Z", kolkata: "2025-12-01T01:45:00Z"),
        Case("today at 21:00", utc: "2025-11-30T21:00:00Z", newYork: "2025-12-01T02:00:00Z", kolkata: "2025-11-30T15:30:00Z"),
        Case("on friday at 17:00", utc: "2025-12-05T17:00:00Z", newYork: "2025-12-05T22:00:00Z", kolkata: "2025-12-05T11:30:00Z"),
        Case("friday at 5pm", utc: "2025-12-05T17:00:00Z", newYork: "2025-12-05T22:00:00Z", kolkata: "2025-12-05T11:30:00Z"),
        Case("on 2026-12-24 at 8:00", utc: "2026-12-24T08:00:00Z", newYork: "2026-12-24T13:00:00Z", kolkata: "2026-12-24T02:30:00Z"),
        Case("on 24 december at 8:00", utc: "2025-12-24T08:00:00Z", newYork: "2025-12-24T13:00:00Z", kolkata: "2025-12-24T02:30:00Z"),
        Case("on december 24th 2026 at 8", utc: "2026-12-24T08:00:00Z", newYork: "2026-12-24T13:00:00Z", kolkata: "2026-12-24T02:30:00Z"),
        // Already past this year: the next 30 November at 08:00 is in 2026.
        Case("on 30 november at 8:00", utc: "2026-11-30T08:00:00Z", newYork: "2026-11-30T13:00:00Z", kolkata: "2026-11-30T02:30:00Z"),
        Case("every day at 9:00", utc: "2025-12-01T09:00:00Z", newYork: "2025-12-01T14:00:00Z", kolkata: "2025-12-01T03:30:00Z"),
        Case("every day at 21:00", utc: "2025-11-30T21:00:00Z", newYork: "2025-12-01T02:00:00Z", kolkata: "2025-11-30T15:30:00Z"),
        Case("daily at 21:00", utc: "2025-11-30T21:00:00Z", newYork: "2025-12-01T02:00:00Z", kolkata: "2025-11-30T15:30:00Z"),
        Case("every monday at 10:00", utc: "2025-12-01T10:00:00Z", newYork: "2025-12-01T15:00:00Z", kolkata: "2025-12-01T04:30:00Z"),
        Case("every weekday at 8:30", utc: "2025-12-01T08:30:00Z", newYork: "2025-12-01T13:30:00Z", kolkata: "2025-12-01T03:00:00Z"),
        Case("every sunday at 22:00", utc: "2025-11-30T22:00:00Z", newYork: "2025-12-01T03:00:00Z", kolkata: "2025-11-30T16:30:00Z"),
        Case("every 2 hours", everywhere: "2025-11-30T16:30:00Z"),
        Case("every 30 minutes", everywhere: "2025-11-30T15:00:00Z"),
    ]

    static let zones = ["UTC", "Europe/Lisbon", "America/New_York", "Asia/Kolkata"]

    @Test(arguments: cases, zones)
    func phraseSaidOnSundayAfternoonFiresAtTheExpectedInstant(_ phrase: Case, zone: String) throws {
        let reminder = try Fixture.reminder("remind me \(phrase.phrase) to stretch", in: Fixture.zone(zone))
        let expected = try #require(phrase.expected[zone])
        #expect(reminder.due == Fixture.instant(expected), "\(phrase.phrase) in \(zone): \(reminder.due)")
        #expect(reminder.task == "stretch")
        #expect(reminder.schedule.timeZone.identifier == Fixture.zone(zone).identifier)
    }

    @Test(arguments: cases)
    func theTaskMayComeFirst(_ phrase: Case) throws {
        let taskFirst = try Fixture.reminder("remind me to stretch \(phrase.phrase)", in: Fixture.lisbon)
        let timeFirst = try Fixture.reminder("remind me \(phrase.phrase) to stretch", in: Fixture.lisbon)
        #expect(taskFirst == timeFirst)
    }
}
