import BotRuntime
import ChatterBots
import ChatterBotsTesting
import Foundation
import Testing

/// Scheduled jobs across restarts and hours of (virtual) time, with the testing kit: its `advance` stops at each
/// deadline and waits until the bot has done what came due, so "nothing more happened" needs no sleeping.
@Suite struct BotSessionScheduleTests {
    struct Reminder: Codable, Sendable {
        var conversation: Conversation.ID
        var text: String
    }

    /// A bot that schedules a reminder 600 s ahead when asked and says it when the job fires.
    static func reminderBot(_ probe: BotProbe, every interval: Duration? = nil) -> ScriptedBot {
        let remind = JobKind<Reminder>("remind")
        var bot = ScriptedBot(probe: probe)
        bot.onMessageScript = { message, context in
            let job = try await context.jobs.schedule(
                remind, after: .seconds(600), repeating: interval.map { .every($0) },
                payload: Reminder(conversation: message.conversationId, text: "reminder: \(message.text)"))
            try await context.reply(to: message, "scheduled for \(Timestamp(job.dueAt).iso8601)")
        }
        bot.onJobScript = { job, context in
            let reminder = try #require(try job.payload(of: remind))
            try await context.send(reminder.text, to: reminder.conversation)
        }
        return bot
    }

    /// A harness running `reminderBot(probe, every:)`, made afresh at each (re)start as a new process would.
    static func harness(_ probe: BotProbe, every interval: Duration? = nil) async throws -> BotTestHarness {
        try await BotTestHarness.start(kind: "test") { _ in reminderBot(probe, every: interval) }
    }

    @Test func aJobDueDuringARestartFiresOnceAfterIt() async throws {
        let probe = BotProbe()
        try await Self.harness(probe).run { harness in
            let ana = try await harness.user("ana")
            let asked = harness.now
            try await ana.send("stretch")
            _ = try await ana.nextMessage()
            try await harness.stopBot()

            try await harness.advance(by: .seconds(1200))  // due after 600 s, while the bot is down
            try await harness.startBot()
            #expect(try await ana.nextText() == "reminder: stretch")
            #expect(probe.jobs.map(\.dueAt) == [Timestamp(asked.addingTimeInterval(600)).date])
            try await harness.advance(by: .seconds(3600))
            #expect(probe.jobs.count == 1)
            #expect(try await ana.remainingMessages().isEmpty)
        }
    }

    @Test func aRepeatingJobKeepsItsCadenceAcrossSteps() async throws {
        let probe = BotProbe()
        try await Self.harness(probe, every: .seconds(3600)).run { harness in
            let ana = try await harness.user("ana")
            let asked = harness.now
            try await ana.send("drink water")
            _ = try await ana.nextMessage()

            try await harness.advance(by: .seconds(600))
            #expect(probe.jobs.count == 1)
            for occurrence in 2...3 {
                try await harness.advance(by: .seconds(3600))
                #expect(probe.jobs.count == occurrence)
            }
            let expected = (0..<3).map { Timestamp(asked.addingTimeInterval(600 + 3600 * Double($0))).date }
            #expect(probe.jobs.map(\.dueAt) == expected)
            #expect(try await ana.remainingMessages().map(\.body) == Array(repeating: "reminder: drink water", count: 3))
        }
    }

    @Test func aRepeatingJobMissedDuringDowntimeFiresOnceThenKeepsItsRhythm() async throws {
        let probe = BotProbe()
        try await Self.harness(probe, every: .seconds(3600)).run { harness in
            let ana = try await harness.user("ana")
            let asked = harness.now
            try await ana.send("walk")
            _ = try await ana.nextMessage()
            try await harness.stopBot()

            // Down for three occurrences (at +600 s, +4200 s, +7800 s); back at +9000 s.
            try await harness.advance(by: .seconds(9000))
            try await harness.startBot()
            #expect(probe.jobs.count == 1)
            try await harness.advance(by: .seconds(2400))  // +11400 s: the rhythm's next slot
            #expect(probe.jobs.count == 2)
            #expect(probe.jobs.last?.dueAt == Timestamp(asked.addingTimeInterval(600 + 3 * 3600)).date)
        }
    }
}
