import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// Edits, deletions and reactions reach handlers of their own, saying what changed, once each.
@Suite struct MessageChangeEventTests {
    /// Ana's "hello" in her direct conversation with the bot, once the bot has handled it.
    static func handledHello(_ harness: RuntimeHarness, by bot: RunningBot) async throws -> (Conversation, Message) {
        let conversation = try await harness.direct(harness.ana)
        let hello = try await harness.say("hello", as: harness.ana, in: conversation)
        try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
        return (conversation, hello)
    }

    @Test func anEditReachesOnMessageEditedWithTheBodyBeforeEachEdit() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ChangeWatchingBot(events: events))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            let ana = harness.rest(harness.ana)
            _ = try await ana.editMessage(hello.id, in: conversation.id, body: "hello there")
            try await harness.waitUntil("the first edit") { events.entries.filter { $0.hasPrefix("edited") }.count == 1 }
            _ = try await ana.editMessage(hello.id, in: conversation.id, body: "hi")
            try await harness.waitUntil("the second edit") { events.entries.filter { $0.hasPrefix("edited") }.count == 2 }
            try await bot.waitUntilIdle()
            #expect(events.entries == [
                "updated", "edited: hello -> hello there", "updated", "edited: hello there -> hi",
            ])
            await bot.stop()
        }
    }

    @Test func reactionsAddedAndRemovedReachOnReactionsChanged() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ChangeWatchingBot(events: events))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            let ana = harness.rest(harness.ana)
            _ = try await ana.addReaction("👍", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the reaction") { events.entries.filter { $0.hasPrefix("reactions") }.count == 1 }
            _ = try await ana.addReaction("🎉", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the second reaction") { events.entries.filter { $0.hasPrefix("reactions") }.count == 2 }
            _ = try await ana.removeReaction("👍", from: hello.id, in: conversation.id)
            try await harness.waitUntil("the removal") { events.entries.filter { $0.hasPrefix("reactions") }.count == 3 }
            try await bot.waitUntilIdle()
            let anaId = harness.ana.user.id
            #expect(events.entries.filter { $0.hasPrefix("reactions") } == [
                "reactions: +👍\(anaId) -", "reactions: +🎉\(anaId) -", "reactions: + -👍\(anaId)",
            ])
            #expect(!events.entries.contains { $0.hasPrefix("edited") || $0.hasPrefix("deleted") })
            await bot.stop()
        }
    }

    @Test func aDeletionForEveryoneReachesOnMessageDeleted() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ChangeWatchingBot(events: events))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            _ = try await harness.rest(harness.ana).deleteMessage(hello.id, in: conversation.id)
            try await harness.waitUntil("the deletion") { events.entries.contains { $0.hasPrefix("deleted") } }
            try await bot.waitUntilIdle()
            #expect(events.entries == ["updated", "deleted \(hello.id)"])
            await bot.stop()
        }
    }

    @Test func eachChangeIsHandledOnceWhenItsFrameComesThreeTimes() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ChangeWatchingBot(events: events))
            try await harness.inject(.duplicateEvents(types: ["message.updated"], copies: 2))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            let ana = harness.rest(harness.ana)
            _ = try await ana.editMessage(hello.id, in: conversation.id, body: "hello there")
            _ = try await ana.addReaction("👍", to: hello.id, in: conversation.id)
            _ = try await ana.deleteMessage(hello.id, in: conversation.id)
            // The deletion's copies come last: once they are handled, every frame was read.
            try await harness.waitUntil("the deletion") { events.entries.contains { $0.hasPrefix("deleted") } }
            try await bot.waitUntilIdle()
            #expect(events.entries == [
                "updated", "edited: hello -> hello there", "updated", "reactions: +👍\(harness.ana.user.id) -", "updated",
                "deleted \(hello.id)",
            ])
            await bot.stop()
        }
    }

    @Test func aReactionTakenOffAndPutBackIsHandledEachTime() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ChangeWatchingBot(events: events))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            let ana = harness.rest(harness.ana)
            for (step, change) in [(1, "add"), (2, "remove"), (3, "add")] {
                if change == "add" {
                    _ = try await ana.addReaction("👍", to: hello.id, in: conversation.id)
                } else {
                    _ = try await ana.removeReaction("👍", from: hello.id, in: conversation.id)
                }
                try await harness.waitUntil("change \(step)") { events.entries.filter { $0.hasPrefix("reactions") }.count == step }
            }
            try await bot.waitUntilIdle()
            let anaId = harness.ana.user.id
            #expect(events.entries.filter { $0.hasPrefix("reactions") } == [
                "reactions: +👍\(anaId) -", "reactions: + -👍\(anaId)", "reactions: +👍\(anaId) -",
            ])
            await bot.stop()
        }
    }

    /// A frame of a state the message has left since (a copy delivered late) is settled with the service, which
    /// says the message is no longer in it.
    @Test func aLateCopyOfAStateTheMessageHasLeftIsNotHandled() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ChangeWatchingBot(events: events))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            let ana = harness.rest(harness.ana)
            let reacted = try await ana.addReaction("👍", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the reaction") { events.entries.filter { $0.hasPrefix("reactions") }.count == 1 }
            _ = try await ana.removeReaction("👍", from: hello.id, in: conversation.id)
            try await harness.waitUntil("the removal") { events.entries.filter { $0.hasPrefix("reactions") }.count == 2 }
            await harness.sandbox.hub.deliver([SandboxDelivery(event: .messageUpdated(reacted), recipients: [harness.botty.user.id])])
            // The copy reaches the bot before this change's frame, on the same socket and in the same lane.
            _ = try await ana.addReaction("🎉", to: hello.id, in: conversation.id)
            try await harness.waitUntil("the third change") { events.entries.filter { $0.hasPrefix("reactions") }.count >= 3 }
            try await bot.waitUntilIdle()
            let anaId = harness.ana.user.id
            #expect(events.entries.filter { $0.hasPrefix("reactions") } == [
                "reactions: +👍\(anaId) -", "reactions: + -👍\(anaId)", "reactions: +🎉\(anaId) -",
            ])
            await bot.stop()
        }
    }

    @Test func thePreviousBodyOfAMessageEditedBeforeARestartIsKnownAfterIt() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            var bot = try await harness.startAny(ChangeWatchingBot(events: events))
            let (conversation, hello) = try await Self.handledHello(harness, by: bot)
            let ana = harness.rest(harness.ana)
            _ = try await ana.editMessage(hello.id, in: conversation.id, body: "hello there")
            try await harness.waitUntil("the first edit") { events.entries.filter { $0.hasPrefix("edited") }.count == 1 }
            try await bot.waitUntilIdle()
            await bot.stop()

            bot = try await harness.startAny(ChangeWatchingBot(events: events))
            _ = try await ana.editMessage(hello.id, in: conversation.id, body: "hi")
            try await harness.waitUntil("the second edit") { events.entries.filter { $0.hasPrefix("edited") }.count == 2 }
            #expect(events.entries.filter { $0.hasPrefix("edited") } == ["edited: hello -> hello there", "edited: hello there -> hi"])
            await bot.stop()
        }
    }
}

/// Records `onMessageUpdated` and the handlers that say what changed.
private struct ChangeWatchingBot: Bot {
    let events: EventRecorder

    func onMessageUpdated(_ message: Message, context: any BotContext) async throws {
        events.record("updated")
    }

    func onMessageEdited(_ message: Message, previousBody: String?, context: any BotContext) async throws {
        events.record("edited: \(previousBody ?? "?") -> \(message.body ?? "?")")
    }

    func onMessageDeleted(_ message: Message, context: any BotContext) async throws {
        events.record("deleted \(message.id)")
    }

    func onReactionsChanged(
        _ message: Message, added: [Message.Reaction], removed: [Message.Reaction], context: any BotContext
    ) async throws {
        func text(_ reactions: [Message.Reaction]) -> String {
            reactions.map { $0.emoji + $0.userIds.map(\.rawValue).joined(separator: ",") }.joined(separator: " ")
        }
        events.record("reactions: +\(text(added)) -\(text(removed))")
    }
}
