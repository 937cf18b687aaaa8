@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing

/// An outbox entry whose message comes in as the bot's own (the sync after a restart brings it) is acknowledged by
/// it: it is not sent again, not counted as failed, and no longer pending.
@Suite struct OutboxOwnMessageTests {
    /// Whether the bot wrote a `message.send` for `id` among the log records from `index` on.
    static func sent(_ id: ClientMessageID, since index: Int, harness: RuntimeHarness) -> Bool {
        harness.logs.all.dropFirst(index).contains {
            $0.message == "sent message.send" && $0.fields["clientMessageId"] == id.rawValue
        }
    }

    @Test func anEntryWhoseMessageTheSyncBringsIsNotSentAgain() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let conversation = try await harness.direct(harness.ana)
            let reply = try await OutboxExpiryTests.replyWithItsAckLost(by: bot, in: conversation, harness: harness)

            let restartedAt = harness.logs.all.count
            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await restarted.waitUntilIdle()
            #expect(!Self.sent(reply, since: restartedAt, harness: harness))
            #expect(await restarted.status.outboxDepth == 0)
            #expect(await restarted.status.messagesOut == 1)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: x"])
            await restarted.stop()
        }
    }

    @Test func anEntryWhoseMessageTheSyncBringsIsNotFailedAfterADayDown() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let conversation = try await harness.direct(harness.ana)
            let reply = try await OutboxExpiryTests.replyWithItsAckLost(by: bot, in: conversation, harness: harness)
            await harness.clock.advance(by: .seconds(24 * 3600))

            let restarted = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await restarted.waitUntilIdle()
            #expect(await restarted.status.messagesExpired == 0)
            #expect(await restarted.status.lastError == nil)
            #expect(!harness.logs.contains(.error, "the outbox entry is failed"))
            #expect(await restarted.status.outboxDepth == 0)
            await restarted.stop()

            let store = try await BotStore.open(
                path: harness.environment().storeURL(forBot: harness.botty.user.username).path, clock: harness.clock)
            #expect(try await store.outboxEntry(reply)?.status == .acked)
            await store.close()
        }
    }
}
