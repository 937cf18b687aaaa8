import BotRuntime
import ChatterBots
import ChatterBotsTesting
import Foundation
import Testing
@testable import ExampleBotKinds

/// The reminder bot as it runs, against the sandbox on a virtual clock: each phrase confirmed with the exact
/// local time it understood and fired at that instant, time zones and a DST change, restarts and downtime,
/// list and cancel, the usage message, and groups.
@Suite("ReminderBot end to end")
struct ReminderBotEndToEndTests {
    /// A reminder bot whose people live in Lisbon by default, started at `start` (Sunday 30 Nov 2025, 14:30).
    static func harness(
        at start: Date = Fixture.sunday, options: JSONValue = ["defaultTimeZone": "Europe/Lisbon"]
    ) async throws -> BotTestHarness {
        try await BotTestHarness.start(
            ReminderBot.botKind, options: options, configuration: BotTestConfiguration(start: start, timeZone: Fixture.lisbon))
    }

    struct Phrase: Sendable, CustomTestStringConvertible {
        let message: String
        let confirmation: String
        /// The first instant it fires, local time in Lisbon.
        let due: String
        let task: String
        var testDescription: String { message }
    }

    static let phrases: [Phrase] = [
        Phrase(
            message: "remind me in 10 minutes to stretch",
            confirmation: "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today.", due: "2025-11-30 14:40", task: "stretch"),
        Phrase(
            message: "remind me at 18:30 to call mom",
            confirmation: "Okay, I'll remind you to call mom at 18:30 (Europe/Lisbon) today.", due: "2025-11-30 18:30", task: "call mom"),
        Phrase(
            message: "remind me tomorrow at 9 to pay rent",
            confirmation: "Okay, I'll remind you to pay rent tomorrow, Mon 1 Dec at 09:00 (Europe/Lisbon).",
            due: "2025-12-01 09:00", task: "pay rent"),
        Phrase(
            message: "remind me every day at 9:00 to stand up",
            confirmation: "Okay, I'll remind you to stand up every day at 09:00 (Europe/Lisbon), first on Mon 1 Dec.",
            due: "2025-12-01 09:00", task: "stand up"),
        Phrase(
            message: "remind me every monday at 10:00 to plan the week",
            confirmation: "Okay, I'll remind you to plan the week every Monday at 10:00 (Europe/Lisbon), first on Mon 1 Dec.",
            due: "2025-12-01 10:00", task: "plan the week"),
        // 09:00 has passed at 14:30: the next 09:00 is tomorrow's.
        Phrase(
            message: "remind me at 9:00 to water the plants",
            confirmation: "Okay, I'll remind you to water the plants tomorrow, Mon 1 Dec at 09:00 (Europe/Lisbon).",
            due: "2025-12-01 09:00", task: "water the plants"),
    ]

    @Test(arguments: phrases)
    func eachPhraseIsConfirmedWithItsLocalTimeAndFiresAtThatInstant(_ phrase: Phrase) async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send(phrase.message)
            #expect(try await alice.nextText() == phrase.confirmation)

            let due = try harness.instant(phrase.due)
            try await harness.advance(to: due.addingTimeInterval(-1))
            #expect(try await alice.remainingMessages().isEmpty, "nothing before \(phrase.due)")
            try await harness.advance(to: due)
            let reminder = try await alice.nextMessage()
            #expect(reminder.body == "@alice Reminder: \(phrase.task)")
            #expect(reminder.createdAt.date == due)
        }
    }

    @Test func aPersonsTimeZoneIsWhereTheirTimesAreRead() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("timezone America/New_York")
            #expect(try await alice.nextText() == "Okay, your time zone is now America/New_York, where it's 09:30.")
            try await alice.send("remind me at 18:30 to call mom")
            #expect(try await alice.nextText() == "Okay, I'll remind you to call mom at 18:30 (America/New_York) today.")
            try await harness.advance(to: Fixture.instant("2025-11-30T23:30:00Z"))
            let reminder = try await alice.nextMessage()
            #expect(reminder.body == "@alice Reminder: call mom")
            #expect(reminder.createdAt.date == Fixture.instant("2025-11-30T23:30:00Z"))
        }
    }

    /// Europe/Lisbon moves from UTC+0 to UTC+1 at 01:00 UTC on Sunday 29 March 2026.
    @Test func aDailyReminderKeepsItsLocalTimeAcrossTheSpringDSTChange() async throws {
        try await Self.harness(at: Fixture.instant("2026-03-27T10:00:00Z"), options: [:]).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("timezone Europe/Lisbon")
            #expect(try await alice.nextText() == "Okay, your time zone is now Europe/Lisbon, where it's 10:00.")
            try await alice.send("remind me every day at 9:00 to stand up")
            #expect(try await alice.nextText()
                == "Okay, I'll remind you to stand up every day at 09:00 (Europe/Lisbon), first on Sat 28 Mar.")

            try await harness.advance(to: Fixture.instant("2026-03-30T12:00:00Z"))
            let fired = try await alice.remainingMessages()
            #expect(fired.map(\.body) == Array(repeating: "@alice Reminder: stand up", count: 3))
            #expect(fired.map(\.createdAt.date) == [
                "2026-03-28T09:00:00Z", "2026-03-29T08:00:00Z", "2026-03-30T08:00:00Z",
            ].map(Fixture.instant))
            #expect(fired.map { harness.localTime(of: $0.createdAt.date) } == [
                "2026-03-28 09:00", "2026-03-29 09:00", "2026-03-30 09:00",
            ])
        }
    }

    @Test func aWeeklyReminderFiresEveryMondayAndOnNoOtherDay() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("remind me every monday at 10:00 to plan the week")
            _ = try await alice.nextMessage()
            try await harness.advance(by: .days(14))  // to Sunday 14 December
            let fired = try await alice.remainingMessages()
            #expect(fired.map(\.body) == Array(repeating: "@alice Reminder: plan the week", count: 2))
            #expect(fired.map { harness.localTime(of: $0.createdAt.date) } == ["2025-12-01 10:00", "2025-12-08 10:00"])
        }
    }

    @Test func aReminderFiresOnTimeAfterTheBotRestarts() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("remind me in 10 minutes to stretch")
            _ = try await alice.nextMessage()
            try await harness.restartBot()
            try await harness.advance(by: .minutes(10))
            let reminder = try await alice.nextMessage()
            #expect(reminder.body == "@alice Reminder: stretch")
            #expect(reminder.createdAt.date == Fixture.instant("2025-11-30T14:40:00Z"))
        }
    }

    @Test func aReminderDueWhileTheBotWasDownFiresAtStartSayingItIsLate() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("remind me in 10 minutes to stretch")
            _ = try await alice.nextMessage()
            try await harness.stopBot()
            try await harness.advance(by: .hours(1))
            try await harness.startBot()
            let reminder = try await alice.nextMessage()
            #expect(reminder.body == "@alice Reminder: stretch (late: I was offline at 14:40)")
            #expect(reminder.createdAt.date == Fixture.instant("2025-11-30T15:30:00Z"))
        }
    }

    @Test func listAndCancelNumberTheRemindersTheSameWayAndACancelledOneNeverFires() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            for phrase in ["remind me in 2 hours to water the plants", "remind me in 10 minutes to stretch",
                           "remind me tomorrow at 9 to pay rent"] {
                try await alice.send(phrase)
                _ = try await alice.nextMessage()
            }
            try await alice.send("list reminders")
            #expect(try await alice.nextText() == """
                Your reminders (Europe/Lisbon):
                1. stretch — today 14:40
                2. water the plants — today 16:30
                3. pay rent — tomorrow 09:00
                """)
            try await alice.send("cancel 2")
            #expect(try await alice.nextText() == "Okay, I cancelled reminder 2: water the plants.")
            try await alice.send("list")
            #expect(try await alice.nextText() == """
                Your reminders (Europe/Lisbon):
                1. stretch — today 14:40
                2. pay rent — tomorrow 09:00
                """)
            try await harness.advance(by: .hours(3))
            #expect(try await alice.remainingMessages().map(\.body) == ["@alice Reminder: stretch"])
        }
    }

    /// The example of the README's "Testing your bot", as written there.
    @Test func theReadmeExampleRunsAsWritten() async throws {
        let harness = try await BotTestHarness.start(ReminderBot.botKind, options: ["defaultTimeZone": "Europe/Lisbon"])
        try await harness.run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("remind me in 10 minutes to stretch")
            #expect(try await alice.nextText() == "Okay, I'll remind you to stretch at 00:10 (Europe/Lisbon) today.")
            try await harness.advance(by: .minutes(10))
            #expect(try await alice.nextText() == "@alice Reminder: stretch")
            #expect(try await alice.remainingMessages().isEmpty)
        }
    }

    @Test func somethingItCannotParseGetsTheUsageMessage() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("what's the weather like?")
            #expect(try await alice.nextText() == ReminderCommandParser.usage)
        }
    }

    @Test func inAGroupItConfirmsQuotingTheRequestAndRemindsEveryoneThere() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            let ben = try await harness.user("ben")
            let team = try await harness.group("Team", members: [alice, ben])
            let request = try await alice.send("remind me in 10 minutes to stretch", in: team)
            let confirmation = try await alice.nextMessage(in: team)
            #expect(confirmation.body == "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today.")
            #expect(confirmation.replyToId == request.id)
            try await harness.advance(by: .minutes(10))
            #expect(try await ben.remainingMessages(in: team).map(\.body) == [
                "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today.", "@alice Reminder: stretch",
            ])
            #expect(try await alice.nextText(in: team) == "@alice Reminder: stretch")
        }
    }

    @Test func inAGroupTalkNotMeantForTheBotIsLeftAlone() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            let ben = try await harness.user("ben")
            let team = try await harness.group("Team", members: [alice, ben])
            try await ben.send("shall we cancel the meeting?", in: team)
            try await alice.send("see you at 18:30", in: team)
            #expect(try await alice.remainingMessages().isEmpty)
            #expect(try await ben.remainingMessages().isEmpty)
        }
    }
}
