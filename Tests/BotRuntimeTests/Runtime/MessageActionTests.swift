import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BotRuntime

/// Edits, deletions and reactions a handler asks for: stored with its unit of work, carried out after it against
/// the service, end to end.
@Suite struct MessageActionTests {
    @Test func aReplyIsEditedOnceItIsAcknowledged() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                let ack = try await context.reply(to: message, "draft").acknowledged()
                try await context.messaging.edit(ack.messageId, in: message.conversationId, to: "final answer")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("question", as: harness.ana, in: direct)
            try await harness.waitUntil("the reply reads as edited") {
                try await harness.messages(in: direct).contains { $0.body == "final answer" && $0.editedAt != nil }
            }
            try await bot.waitUntilIdle()
            #expect(try await harness.texts(in: direct, from: harness.botty) == ["final answer"])
            await bot.stop()
        }
    }

    @Test func workCommittedToAwaitAnAckLeavesTheMessageUnhandledUntilTheHandlerEnds() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let (gate, open) = AsyncStream.makeStream(of: Void.self)
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                let ack = try await context.reply(to: message, "Looking…").acknowledged()
                probe.record(ack)
                for await _ in gate { break }
                try await context.messaging.edit(ack.messageId, in: message.conversationId, to: "Found it.")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            let question = try await harness.say("where is it?", as: harness.ana, in: direct)
            try await harness.waitUntil("the reply is acknowledged") { probe.acks.count == 1 }

            // The reply is stored and sent, but the message is not handled yet: a crash now would run the handler
            // again (its reply and edit coming out the same), instead of leaving the reply unedited for good.
            let botId = harness.botty.user.id
            let members = try await harness.sandbox.service.conversation(harness.ana.caller, direct.id).members
            #expect((members.first { $0.userId == botId }?.lastReadSeq ?? 0) < question.seq)

            open.yield(())
            try await harness.waitUntilHandled(upTo: question.seq, in: direct, by: bot)
            #expect(try await harness.texts(in: direct, from: harness.botty) == ["Found it."])
            await bot.stop()
        }
    }

    @Test func theBotReactsToAMessageAndDeletesItsOwnReply() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                try await context.messaging.react("👍", to: message)
                let ack = try await context.reply(to: message, "oops").acknowledged()
                try await context.messaging.delete(ack.messageId, in: message.conversationId)
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            let said = try await harness.say("hello", as: harness.ana, in: direct)
            let botId = harness.botty.user.id
            try await harness.waitUntil("the reaction is there and the reply deleted") {
                let messages = try await harness.messages(in: direct)
                let reacted = messages.first { $0.id == said.id }?.reactions.contains { $0.emoji == "👍" && $0.userIds.contains(botId) }
                let deleted = messages.contains { $0.senderId == botId && $0.deletedAt != nil }
                return reacted == true && deleted
            }
            await bot.stop()
        }
    }

    @Test func aHandlerThatThrowsChangesNoMessage() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                try await context.messaging.react("👀", to: message)
                if message.text == "fail" { throw ScriptFailure() }
                try await context.reply(to: message, "seen \(message.text)")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            let failing = try await harness.say("fail", as: harness.ana, in: direct)
            try await harness.say("pass", as: harness.ana, in: direct)
            try await harness.waitUntil("the second message is answered") {
                try await harness.texts(in: direct, from: harness.botty) == ["seen pass"]
            }
            try await bot.waitUntilIdle()
            let messages = try await harness.messages(in: direct)
            #expect(messages.first { $0.id == failing.id }?.reactions.isEmpty == true)
            #expect(messages.first { $0.body == "pass" }?.reactions.map(\.emoji) == ["👀"])
            await bot.stop()
        }
    }

    @Test func aChangeTheServiceRefusesIsDroppedAndTheBotGoesOn() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                // Not the bot's message: the service answers FORBIDDEN, for good.
                try await context.messaging.edit(message.id, in: message.conversationId, to: "hijacked")
                try await context.reply(to: message, "tried")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            let said = try await harness.say("mine", as: harness.ana, in: direct)
            try await harness.waitUntil("the bot answered") {
                try await harness.texts(in: direct, from: harness.botty) == ["tried"]
            }
            try await bot.waitUntilIdle()
            #expect(try await harness.messages(in: direct).first { $0.id == said.id }?.body == "mine")
            #expect(harness.logs.contains(.error, "refused a message action for good"))
            await bot.stop()
        }
    }

    /// A handler that edits its reply twice, to "A" and then to "B".
    private static func editingTwice() -> ScriptedBot {
        var script = ScriptedBot(probe: BotProbe())
        script.onMessageScript = { message, context in
            let ack = try await context.reply(to: message, "draft").acknowledged()
            try await context.messaging.edit(ack.messageId, in: message.conversationId, to: "A")
            try await context.messaging.edit(ack.messageId, in: message.conversationId, to: "B")
        }
        return script
    }

    /// Starts botty editing its reply twice (`editingTwice()`) with a store that fails to forget the first edit's
    /// row once; returns once the first edit was carried out and forgetting it failed.
    static func editTwiceUntilForgettingTheFirstFails(in harness: RuntimeHarness) async throws -> (RunningBot, Conversation) {
        let faults = StoreFaults()
        faults.failForgettingMessageActions(count: 1)
        let bot = try await harness.start(Self.editingTwice()) { $0.storeFaults = faults }
        let direct = try await harness.direct(harness.ana)
        try await harness.say("question", as: harness.ana, in: direct)
        try await harness.waitUntil("forgetting the first edit failed") {
            harness.logs.contains(.error, "could not forget a message action")
        }
        return (bot, direct)
    }

    @Test func aLaterActionWaitsUntilTheRowOfTheOneBeforeIsForgotten() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, direct) = try await Self.editTwiceUntilForgettingTheFirstFails(in: harness)
            #expect(try await harness.texts(in: direct, from: harness.botty) == ["A"])

            let retryAt = harness.clock.now.addingTimeInterval(1)
            #expect(await eventually { harness.clock.nextDeadline.map { $0 <= retryAt } ?? false })
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("the second edit is carried out") {
                try await harness.texts(in: direct, from: harness.botty) == ["B"]
            }
            try await bot.waitUntilIdle()
            await bot.stop()
            let store = try await BotStore.open(path: harness.environment().storeURL(forBot: "botty").path, clock: harness.clock)
            #expect(try await store.pendingMessageActions().isEmpty)
            await store.close()
        }
    }

    @Test func anEditWhoseRowCouldNotBeForgottenIsNotReplayedOverALaterOneAfterARestart() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, direct) = try await Self.editTwiceUntilForgettingTheFirstFails(in: harness)
            await bot.stop()

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await restarted.waitUntilIdle()
            #expect(try await harness.texts(in: direct, from: harness.botty) == ["B"])
            await restarted.stop()
        }
    }

    @Test func anActionStoredByAnEarlierRunIsCarriedOutAfterTheStart() async throws {
        try await RuntimeHarness.run { harness in
            let direct = try await harness.direct(harness.ana)
            let said = try await harness.say("remember me", as: harness.ana, in: direct)
            // An earlier run committed a reaction and stopped before carrying it out.
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await bot.waitUntilIdle()
            await bot.stop()
            let store = try await BotStore.open(path: harness.environment().storeURL(forBot: "botty").path, clock: harness.clock)
            var unit = UnitOfWork(bot: harness.botty.user.id)
            unit.change(.addReaction("⭐"), of: said.id, in: direct.id)
            _ = try await store.commit(unit)
            #expect(try await store.pendingMessageActions().count == 1)
            await store.close()

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntil("the stored reaction is there") {
                try await harness.messages(in: direct).first { $0.id == said.id }?.reactions.map(\.emoji) == ["⭐"]
            }
            try await restarted.waitUntilIdle()
            await restarted.stop()
            let reopened = try await BotStore.open(path: harness.environment().storeURL(forBot: "botty").path, clock: harness.clock)
            #expect(try await reopened.pendingMessageActions().isEmpty)
            await reopened.close()
        }
    }
}

private struct ScriptFailure: Error {}
