import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// Conversation events arrive at least once while connected: a repeated one reaches its handler once.
@Suite struct RepeatedConversationEventTests {
    /// Ana opens a group with the bot, which hears of it live.
    static func groupKnownToTheBot(_ harness: RuntimeHarness, _ bot: RunningBot) async throws -> Conversation {
        let group = try await harness.rest(harness.ana).createGroup(title: "team", memberIds: [harness.botty.user.id])
        let hello = try await harness.say("hello", as: harness.ana, in: group)
        try await harness.waitUntilHandled(upTo: hello.seq, in: group, by: bot)
        return group
    }

    /// Ana says `text` in her direct conversation with the bot and waits until it is handled: events the service
    /// sent the bot before it have been taken too.
    static func sayAfterwards(_ text: String, _ harness: RuntimeHarness, _ bot: RunningBot) async throws {
        let direct = try await harness.direct(harness.ana)
        let message = try await harness.say(text, as: harness.ana, in: direct)
        try await harness.waitUntilHandled(upTo: message.seq, in: direct, by: bot)
    }

    @Test func aRenameThatArrivesTwiceIsGreetedOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.onConversationUpdatedScript = { conversation, context in
                _ = try await context.send("welcome to \(conversation.title ?? "")", to: conversation.id)
            }
            let bot = try await harness.start(script)
            let group = try await Self.groupKnownToTheBot(harness, bot)
            try await harness.inject(.duplicateEvents(types: ["conversation.updated"], copies: 1))

            _ = try await harness.rest(harness.ana).updateConversation(group.id, title: "renamed")
            try await Self.sayAfterwards("after the rename", harness, bot)

            #expect(probe.conversationsUpdated == [group.id])
            #expect(try await harness.texts(in: group, from: harness.botty) == ["echo: hello", "welcome to renamed"])
            await bot.stop()
        }
    }

    @Test func aRemovalThatArrivesTwiceReachesOnConversationRemovedOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let group = try await Self.groupKnownToTheBot(harness, bot)
            try await harness.inject(.duplicateEvents(types: ["conversation.removed"], copies: 1))

            try await harness.rest(harness.ana).removeMember(harness.botty.user.id, from: group.id)
            try await Self.sayAfterwards("after the removal", harness, bot)

            #expect(probe.conversationsRemoved == [group.id])
            await bot.stop()
        }
    }
}
