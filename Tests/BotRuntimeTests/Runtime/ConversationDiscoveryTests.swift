import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A message of a conversation the bot does not know (its `conversation.created` lost) makes the bot look the
/// conversation up; a look-up that fails for now holds the message and is tried again.
@Suite struct ConversationDiscoveryTests {
    @Test func aMessageWhoseConversationCouldNotBeLookedUpIsAnsweredOnceTheLookUpIsTriedAgain() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let device = try #require(try await harness.connectedDevice())
            await harness.sandbox.admin.loseEvents("conversation.created", count: 1, of: device)
            harness.sandbox.admin.failRequests(to: .conversation, count: 1)

            let conversation = try await harness.direct(harness.ana)
            _ = try await harness.say("hi", as: harness.ana, in: conversation)
            try await harness.waitUntil("the look-up failed and waits to be tried again") {
                harness.logs.contains(.warning, "looking it up again in 1.0 s")
            }
            #expect(probe.texts.isEmpty)
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("hi answered after the second look-up") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hi"]
            }
            #expect(probe.texts == ["hi"])
            await bot.stop()
        }
    }

    @Test func aMessageThatMadeTheBotLookUpItsConversationIsAnsweredWhenNewConversationsStartAfterTheirLastMessage() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe)) { environment in
                environment.newConversationStart = .afterLastMessage
            }
            let device = try #require(try await harness.connectedDevice())
            await harness.sandbox.admin.loseEvents("conversation.created", count: 1, of: device)

            let conversation = try await harness.direct(harness.ana)
            _ = try await harness.say("hi", as: harness.ana, in: conversation)
            try await harness.waitUntil("hi answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hi"]
            }
            #expect(probe.texts == ["hi"])
            await bot.stop()
        }
    }

    @Test func messagesHeldForAFailedLookUpGoInWhenTheConversationBecomesKnownAnotherWay() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe)) { environment in
                environment.newConversationStart = .afterLastMessage
            }
            let device = try #require(try await harness.connectedDevice())
            await harness.sandbox.admin.loseEvents("conversation.created", count: 1, of: device)
            harness.sandbox.admin.failRequests(to: .conversation, count: 1)

            let group = try await harness.rest(harness.ana).createGroup(title: "Team", memberIds: [harness.botty.user.id])
            _ = try await harness.say("hi", as: harness.ana, in: group)
            try await harness.waitUntil("the look-up failed and waits to be tried again") {
                harness.logs.contains(.warning, "looking it up again in 1.0 s")
            }
            // The rename reaches the bot as `conversation.updated`: it knows the group before the look-up's retry.
            _ = try await harness.rest(harness.ana).updateConversation(group.id, title: "Team, renamed")
            try await harness.waitUntil("hi answered without waiting for the retry") {
                try await harness.texts(in: group, from: harness.botty) == ["echo: hi"]
            }
            #expect(probe.texts == ["hi"])
            await bot.stop()
        }
    }
}
