import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// Scheduled jobs across restarts and hours of (virtual) time.
@Suite struct BotSessionScheduleTests {
    /// Heartbeats and idle closes far apart, so that hours can pass in a few clock steps.
    static let quietRealtime = RealtimeConfiguration(heartbeatInterval: .seconds(86_400), idleTimeout: .seconds(3 * 86_400))

    struct Reminder: Codable, Sendable {
        var conversation: Conversation.ID
        var text: String
    }

    /// A bot that schedules a reminder when asked and says it when the job fires.
    static func reminderBot(_ probe: BotProbe, every interval: Duration? = nil) -> ScriptedBot {
        var bot = ScriptedBot(probe: probe)
        bot.onMessageScript = { message, context in
            let job = try await context.schedule(
                "remind", after: .seconds(600), repeating: interval.map { .every($0) },
                payload: Reminder(conversation: message.conversationId, text: "reminder: \(message.text)"))
            try await context.reply(to: message, "scheduled for \(Timestamp(job.dueAt).iso8601)")
        }
        bot.onJobScript = { job, context in
            let reminder = try job.payload(as: Reminder.self)
            try await context.send(reminder.text, to: reminder.conversation)
        }
        return bot
    }

    @Test func aJobDueDuringARestartFiresOnceAfterIt() async throws {
        try await RuntimeHarness.run(realtime: Self.quietRealtime) { harness in
            let first = try await harness.start(Self.reminderBot(BotProbe()))
            let conversation = try await harness.direct(harness.ana)
            let asked = harness.clock.now
            try await harness.say("stretch", as: harness.ana, in: conversation)
            try await harness.eventually("scheduled") { await first.status.messagesOut == 1 }
            await first.stop()

            await harness.clock.advance(by: .seconds(1200))  // due after 600 s, while the bot is down
            let probe = BotProbe()
            let bot = try await harness.start(Self.reminderBot(probe))
            try await harness.eventually("the reminder is sent") {
                try await harness.texts(in: conversation, from: harness.botty).count == 2
            }
            try await harness.settle()
            #expect(probe.jobs.map(\.dueAt) == [Timestamp(asked.addingTimeInterval(600)).date])
            #expect(try await harness.texts(in: conversation, from: harness.botty).last == "reminder: stretch")
            await harness.clock.advance(by: .seconds(3600))
            try await harness.settle()
            #expect(probe.jobs.count == 1)
            await bot.stop()
        }
    }

    @Test func aRepeatingJobKeepsItsCadenceAcrossSteps() async throws {
        try await RuntimeHarness.run(realtime: Self.quietRealtime) { harness in
            let probe = BotProbe()
            let bot = try await harness.start(Self.reminderBot(probe, every: .seconds(3600)))
            let conversation = try await harness.direct(harness.ana)
            let asked = harness.clock.now
            try await harness.say("drink water", as: harness.ana, in: conversation)
            try await harness.eventually("scheduled") { await bot.status.messagesOut == 1 }

            await harness.clock.advance(by: .seconds(600))
            try await harness.eventually("first occurrence") { probe.jobs.count == 1 }
            for occurrence in 2...3 {
                await harness.clock.advance(by: .seconds(3600))
                try await harness.eventually("occurrence \(occurrence)") { probe.jobs.count == occurrence }
            }
            let expected = (0..<3).map { Timestamp(asked.addingTimeInterval(600 + 3600 * Double($0))).date }
            #expect(probe.jobs.map(\.dueAt) == expected)
            try await harness.eventually("every reminder is sent") {
                try await harness.texts(in: conversation, from: harness.botty).filter { $0.hasPrefix("reminder:") }.count == 3
            }
            await bot.stop()
        }
    }

    @Test func aRepeatingJobMissedDuringDowntimeFiresOnceThenKeepsItsRhythm() async throws {
        try await RuntimeHarness.run(realtime: Self.quietRealtime) { harness in
            let first = try await harness.start(Self.reminderBot(BotProbe(), every: .seconds(3600)))
            let conversation = try await harness.direct(harness.ana)
            let asked = harness.clock.now
            try await harness.say("walk", as: harness.ana, in: conversation)
            try await harness.eventually("scheduled") { await first.status.messagesOut == 1 }
            await first.stop()

            // Down for three occurrences (at +600 s, +4200 s, +7800 s); back at +9000 s.
            await harness.clock.advance(by: .seconds(9000))
            let probe = BotProbe()
            let bot = try await harness.start(Self.reminderBot(probe, every: .seconds(3600)))
            try await harness.eventually("one late occurrence") { probe.jobs.count == 1 }
            try await harness.settle()
            #expect(probe.jobs.count == 1)
            await harness.clock.advance(by: .seconds(2400))  // +11400 s: the rhythm's next slot
            try await harness.eventually("back on the rhythm") { probe.jobs.count == 2 }
            #expect(probe.jobs.last?.dueAt == Timestamp(asked.addingTimeInterval(600 + 3 * 3600)).date)
            await bot.stop()
        }
    }
}
