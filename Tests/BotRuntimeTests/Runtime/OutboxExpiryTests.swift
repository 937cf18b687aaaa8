@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing

/// Outbox entries that outlived the service's 24 h idempotency window are failed unsent, not resent.
@Suite struct OutboxExpiryTests {
    /// Writes `text` to the stopped bot's outbox for `conversation`, as a send made while it was offline.
    static func enqueueOffline(_ text: String, id: ClientMessageID, in conversation: Conversation, harness: RuntimeHarness) async throws {
        let url = harness.environment().storeURL(forBot: harness.botty.user.username)
        let store = try await BotStore.open(path: url.path, clock: harness.clock)
        _ = try await store.enqueue(MessageSend(conversationId: conversation.id, clientMessageId: id, content: .text(text)))
        await store.close()
    }

    @Test func anEntryOlderThanTheIdempotencyWindowIsFailedUnsentAfterTheReconnect() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()

            try await Self.enqueueOffline("stale news", id: "cm-stale", in: conversation, harness: harness)
            await harness.clock.advance(by: .seconds(24 * 3600 + 1))
            try await Self.enqueueOffline("fresh news", id: "cm-fresh", in: conversation, harness: harness)

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.eventually("the fresh entry is sent and the stale one settled") {
                let status = await restarted.status
                return status.outboxDepth == 0 && status.messagesOut == 1
            }
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["fresh news"])
            #expect(await restarted.status.messagesExpired == 1)
            #expect(harness.logs.contains(.error, "older than the service's idempotency window"))
            await restarted.stop()

            let store = try await BotStore.open(
                path: harness.environment().storeURL(forBot: harness.botty.user.username).path, clock: harness.clock)
            let stale = try #require(try await store.outboxEntry("cm-stale"))
            #expect(stale.status == .failed)
            #expect(stale.lastError == OutboxSender.expiredCode)
            #expect(try await store.outboxEntry("cm-fresh")?.status == .acked)
            await store.close()
        }
    }

    @Test func anEntryJustInsideTheWindowIsStillSent() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()

            try await Self.enqueueOffline("late but safe", id: "cm-late", in: conversation, harness: harness)
            await harness.clock.advance(by: .seconds(24 * 3600 - 60))

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.eventually("the entry is acknowledged") { await restarted.status.messagesOut == 1 }
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["late but safe"])
            #expect(await restarted.status.messagesExpired == 0)
            await restarted.stop()
        }
    }

    @Test func theExpiredOutcomeSaysWhyAndWhatToDo() {
        let expired = OutgoingMessageExpired(
            clientMessageId: "cm-1", enqueuedAt: Date(timeIntervalSince1970: 1_800_000_000), window: .seconds(24 * 3600))
        #expect(expired.description.contains("24 h idempotency window"))
        #expect(expired.description.contains("send it again"))
    }
}
