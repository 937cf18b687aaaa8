import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// `message.updated`: each distinct update runs the handler once, with sends of its own.
@Suite struct MessageUpdateHandlingTests {
    @Test func distinctReactionUpdatesGetDistinctReplies() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.startAny(UpdateAnsweringBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            let ana = harness.rest(harness.ana)
            _ = try await ana.addReaction("👍", to: hello.id, in: conversation.id)
            try await harness.waitUntil("first reply") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
            _ = try await ana.removeReaction("👍", from: hello.id, in: conversation.id)
            try await harness.waitUntil("second reply") { try await harness.texts(in: conversation, from: harness.botty).count == 2 }
            _ = try await ana.addReaction("❤️", to: hello.id, in: conversation.id)
            try await harness.waitUntil("third reply") { try await harness.texts(in: conversation, from: harness.botty).count == 3 }
            #expect(try await harness.texts(in: conversation, from: harness.botty) == [
                "reactions: 👍x1", "reactions: ", "reactions: ❤️x1",
            ])
            await bot.stop()
        }
    }

    @Test func aDuplicatedUpdateRunsTheHandlerOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.startAny(UpdateAnsweringBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            let updated = try await harness.rest(harness.ana).addReaction("👍", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the update is answered") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
            for _ in 0..<2 {
                await harness.sandbox.hub.deliver([
                    SandboxDelivery(event: .messageUpdated(updated), recipients: [harness.botty.user.id])
                ])
            }
            // A later, different update shows that the copies were read (frames are read in order).
            _ = try await harness.rest(harness.ana).addReaction("🎉", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the later update is answered") {
                try await harness.texts(in: conversation, from: harness.botty).count == 2
            }
            try await bot.waitUntilIdle()
            #expect(probe.updates.count == 2)
            #expect(try await harness.texts(in: conversation, from: harness.botty).count == 2)
            await bot.stop()
        }
    }

    /// Update A, update B, then A again (an older copy delivered late): the copy is recognised although it is not
    /// the last update handled, so the handler runs for A and B only.
    @Test func anOlderUpdateDeliveredAgainAfterALaterOneRunsTheHandlerOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.startAny(UpdateAnsweringBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            let ana = harness.rest(harness.ana)
            let updateA = try await ana.addReaction("👍", to: hello.id, in: conversation.id)
            try await harness.waitUntil("A is answered") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
            _ = try await ana.addReaction("🎉", to: hello.id, in: conversation.id)
            try await harness.waitUntil("B is answered") { try await harness.texts(in: conversation, from: harness.botty).count == 2 }

            await harness.sandbox.hub.deliver([SandboxDelivery(event: .messageUpdated(updateA), recipients: [harness.botty.user.id])])
            // A later, different update shows that the copy was read (frames are read in order).
            _ = try await ana.addReaction("❤️", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the later update is answered") {
                try await harness.texts(in: conversation, from: harness.botty).count == 3
            }
            try await bot.waitUntilIdle()
            #expect(probe.updates.map { $0.reactions.count } == [1, 2, 3])
            #expect(try await harness.texts(in: conversation, from: harness.botty).count == 3)
            await bot.stop()
        }
    }
}

/// Answers every update of a message with the reactions it sees.
struct UpdateAnsweringBot: Bot {
    let probe: BotProbe

    func onMessageUpdated(_ message: Message, context: any BotContext) async throws {
        probe.recordUpdate(message)
        let text = "reactions: " + message.reactions.map { "\($0.emoji)x\($0.userIds.count)" }.joined(separator: ",")
        _ = try await context.send(.text(text), to: message.conversationId)
    }
}

extension RuntimeHarness {
    /// Starts any bot as `account` (botty by default) and waits until it is live.
    func startAny(
        _ bot: any Bot, as account: SeededAccount? = nil, _ configure: (inout BotRuntimeEnvironment) -> Void = { _ in }
    ) async throws -> RunningBot {
        let session = BotSession(configuration: configuration(account ?? botty), bot: bot, environment: environment(configure))
        let running = RunningBot(session: session, task: Task { await session.run() })
        watch(session)
        try await running.waitUntilLive(self)
        return running
    }
}
