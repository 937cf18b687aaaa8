@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing

/// Outbox entries first sent longer ago than the service's 24 h idempotency window are failed, not resent; entries
/// never sent are sent, however long they waited.
@Suite struct OutboxExpiryTests {
    /// Writes `text` to the stopped bot's outbox for `conversation`, as a send made while it was offline.
    static func enqueueOffline(_ text: String, id: ClientMessageID, in conversation: Conversation, harness: RuntimeHarness) async throws {
        let url = harness.environment().storeURL(forBot: harness.botty.user.username)
        let store = try await BotStore.open(path: url.path, clock: harness.clock)
        _ = try await store.enqueue(MessageSend(conversationId: conversation.id, clientMessageId: id, content: .text(text)))
        await store.close()
    }

    /// Records the first send of the stopped bot's entry `id` now, as a run that sent it and lost its ack would have.
    static func recordFirstSend(of id: ClientMessageID, harness: RuntimeHarness) async throws {
        let url = harness.environment().storeURL(forBot: harness.botty.user.username)
        let store = try await BotStore.open(path: url.path, clock: harness.clock)
        try await store.recordFirstAttempts([id], at: harness.clock.now)
        await store.close()
    }

    @Test func anEntryNeverSentIsSentAfterADayOfflineNotExpired() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()

            try await Self.enqueueOffline("queued while offline", id: "cm-offline", in: conversation, harness: harness)
            await harness.clock.advance(by: .seconds(24 * 3600 + 1))

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await restarted.waitUntilIdle()  // the entry is acknowledged
            #expect(await restarted.status.messagesOut == 1)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["queued while offline"])
            #expect(await restarted.status.messagesExpired == 0)
            await restarted.stop()
        }
    }

    /// Stops the running `bot` after its reply to "x" in `conversation` reached the service with its ack held back,
    /// so that the reply's entry stays pending in the store; returns the reply's clientMessageId.
    static func replyWithItsAckLost(
        by bot: RunningBot, in conversation: Conversation, harness: RuntimeHarness
    ) async throws -> ClientMessageID {
        let device = try #require(try await harness.connectedDevice())
        try await harness.inject(.delayAcks(.seconds(3 * 24 * 3600)))
        try await harness.say("x", as: harness.ana, in: conversation)
        try await harness.waitUntil("the reply is stored, its ack held back") {
            try await harness.texts(in: conversation, from: harness.botty) == ["echo: x"]
        }
        let stopping = Task { await bot.stop(deadline: .seconds(2)) }
        try await bot.waitUntil(.stopping)  // the shutdown waits for the ack
        await harness.clock.advance(by: .seconds(3))
        #expect(try await value(of: stopping, within: .hangGuard, "the session to stop") == .shutdown)
        await harness.sandbox.admin.clearFaults(of: device)
        let reply = try await harness.messages(in: conversation).last { $0.senderId == harness.botty.user.id }
        return try #require(reply?.clientMessageId)
    }

    /// A reply first sent a day ago whose message the service never stored (its frame was lost): a resend could
    /// duplicate it if the service had it, so the entry is failed, not resent; a fresh entry still goes out.
    @Test func anEntryFirstSentLongerAgoThanTheWindowIsFailedUnsentAfterTheReconnect() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()

            try await Self.enqueueOffline("lost on the way", id: "cm-lost", in: conversation, harness: harness)
            try await Self.recordFirstSend(of: "cm-lost", harness: harness)
            await harness.clock.advance(by: .seconds(24 * 3600 + 1))
            try await Self.enqueueOffline("fresh news", id: "cm-fresh", in: conversation, harness: harness)
            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await restarted.waitUntilIdle()  // the fresh entry is sent and the stale one settled
            #expect(await restarted.status.outboxDepth == 0)
            #expect(await restarted.status.messagesOut == 1)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["fresh news"])
            #expect(await restarted.status.messagesExpired == 1)
            #expect(harness.logs.contains(.error, "first sent longer ago than the service's idempotency window"))
            await restarted.stop()

            let store = try await BotStore.open(
                path: harness.environment().storeURL(forBot: harness.botty.user.username).path, clock: harness.clock)
            #expect(try await store.pendingOutbox().isEmpty)
            #expect(try await store.outboxEntry("cm-lost")?.status == .failed)
            #expect(try await store.outboxEntry("cm-fresh")?.status == .acked)
            await store.close()
        }
    }

    /// Enqueued two days ago, first sent 23 hours ago: still within the window, so it is resent.
    @Test func anEntryFirstSentJustInsideTheWindowIsResentWhateverItsEnqueueTime() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()

            try await Self.enqueueOffline("late but safe", id: "cm-late", in: conversation, harness: harness)
            await harness.clock.advance(by: .seconds(25 * 3600))
            try await Self.recordFirstSend(of: "cm-late", harness: harness)
            await harness.clock.advance(by: .seconds(24 * 3600 - 60))

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await restarted.waitUntilIdle()  // the entry is acknowledged
            #expect(await restarted.status.messagesOut == 1)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["late but safe"])
            #expect(await restarted.status.messagesExpired == 0)
            await restarted.stop()
        }
    }

    @Test func theExpiredOutcomeSaysWhyAndWhatToDo() {
        let expired = OutgoingMessageExpired(
            clientMessageId: "cm-1", enqueuedAt: Date(timeIntervalSince1970: 1_800_000_000),
            firstAttemptAt: Date(timeIntervalSince1970: 1_800_000_600), window: .seconds(24 * 3600))
        #expect(expired.description.contains("24 h idempotency window"))
        #expect(expired.description.contains("send it again"))
    }
}
