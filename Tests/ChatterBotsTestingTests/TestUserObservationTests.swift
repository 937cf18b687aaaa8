import ChatterBots
import ChatterBotsTesting
import Foundation
import Testing

/// What a `TestUser` sees the bot do besides sending: its edits, deletions, reactions, typing and read receipts.
/// The bot's edits, deletions and reactions are made through the bot's own account (`harness.botREST`), as its
/// context will make them; typing and receipts come from the running bot.
@Suite("TestUser observations")
struct TestUserObservationTests {
    @Test func theBotsEditOfItsMessageIsSeenAndTheUsersOwnEditIsNot() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("hi")
            let reply = try await alice.nextMessage()
            try await alice.edit(sent, to: "hi there")
            _ = try await alice.nextMessage()  // the bot's description of alice's edit
            _ = try await harness.botREST.editMessage(reply.id, in: reply.conversationId, body: "echo: hi (edited)")
            try await harness.settle()  // the edit has arrived before the test asks for it
            let edit = try await alice.nextEdit()
            #expect(edit.id == reply.id)
            #expect(edit.body == "echo: hi (edited)")
            #expect(edit.editedAt != nil)
        }
    }

    @Test func theBotsDeletionOfItsMessageIsSeen() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("hi")
            let reply = try await alice.nextMessage()
            _ = try await harness.botREST.deleteMessage(reply.id, in: reply.conversationId)
            let deletion = try await alice.nextDeletion(in: try await alice.directConversation())
            #expect(deletion.id == reply.id)
            #expect(deletion.isDeleted)
        }
    }

    @Test func theBotsReactionsAddedAndTakenBackAreSeenAndOtherMembersAreNot() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("quiet")
            try await alice.react("❤️", to: sent)
            let bot = harness.botREST
            _ = try await bot.addReaction("👍", to: sent.id, in: sent.conversationId)
            _ = try await bot.removeReaction("👍", from: sent.id, in: sent.conversationId)
            let added = try await alice.nextReactionChange()
            #expect(added.id == sent.id)
            #expect(added.reactions == [
                Message.Reaction(emoji: "❤️", userIds: [alice.id]), Message.Reaction(emoji: "👍", userIds: [harness.botUser.id]),
            ])
            let removed = try await alice.nextReactionChange()
            #expect(removed.reactions == [Message.Reaction(emoji: "❤️", userIds: [alice.id])])
        }
    }

    @Test func theBotsTypingIsSeenStartingBeforeItsReplyAndStoppingAfter() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("type")
            let started = try await alice.nextTyping()
            #expect(started == TypingIndicator(conversationId: sent.conversationId, userId: harness.botUser.id, isTyping: true))
            #expect(try await alice.nextText() == "echo: type")
            #expect(try await alice.nextTyping(in: try await alice.directConversation()).isTyping == false)
        }
    }

    @Test func theBotsReadReceiptIsSeenForEveryMessageItRead() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            let first = try await alice.send("quiet")
            let second = try await alice.send("quiet")
            let watermarks = try await alice.waitUntilBotHasRead(second)
            #expect(watermarks.userId == harness.botUser.id)
            #expect(watermarks.lastReadSeq >= second.seq)
            #expect(watermarks.lastDeliveredSeq >= second.seq)
            #expect(try await alice.waitUntilBotHasRead(first).lastReadSeq >= first.seq)
        }
    }

    @Test func aWaitStartedBeforeTheBotReadsEndsWhenItReads() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await harness.stopBot()
            let sent = try await alice.send("quiet")
            async let read = alice.waitUntilBotHasRead(sent)
            try await harness.startBot()  // reads what came while it was down
            #expect(try await read.lastReadSeq >= sent.seq)
        }
    }

    @Test func waitingForAReceiptTheBotNeverSendsFailsSayingWhatWasAwaited() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await harness.stopBot()
            let sent = try await alice.send("quiet")
            let error = await #expect(throws: BotTestError.self) {
                try await alice.waitUntilBotHasRead(sent, timeout: .milliseconds(300))
            }
            #expect(error?.description == """
                timed out after 0.3 seconds waiting for the bot to read conversation \(sent.conversationId) up to seq \
                \(sent.seq), as alice sees it
                """)
        }
    }
}
