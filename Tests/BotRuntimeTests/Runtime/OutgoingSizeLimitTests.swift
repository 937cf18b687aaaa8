import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import Testing

/// The service's size limits (4,096-character bodies, 64 KiB frames): a message over them is refused at `send`,
/// and one that reaches the service anyway never blocks the outbox.
@Suite struct OutgoingSizeLimitTests {
    @Test func aBodyOverTheLimitIsRefusedAtSendAndNothingIsQueued() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var scripted = ScriptedBot(probe: probe)
            scripted.onMessageScript = { message, context in
                if message.text == "big" {
                    do {
                        try await context.reply(to: message, String(repeating: "x", count: 4_097))
                        probe.recordFailure("queued")
                    } catch let error as ChatterAPIError {
                        probe.recordFailure(error.code.rawValue)
                    }
                } else {
                    try await context.reply(to: message, "echo: \(message.text)")
                }
            }
            let bot = try await harness.start(scripted)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("big", as: harness.ana, in: conversation)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)

            try await harness.waitUntil("the echo is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"]
            }
            #expect(probe.failures == ["VALIDATION_FAILED"])
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(await bot.status.outboxDepth == 0)
            #expect(await bot.status.reconnects == 0)
            await bot.stop()
        }
    }

    @Test func aBodyOfExactlyTheLimitIsSent() async throws {
        try await RuntimeHarness.run { harness in
            var scripted = ScriptedBot(probe: BotProbe())
            scripted.onMessageScript = { message, context in
                try await context.reply(to: message, String(repeating: "y", count: 4_096))
            }
            let bot = try await harness.start(scripted)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("long please", as: harness.ana, in: conversation)
            try await harness.waitUntil("the long reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty).first?.count == 4_096
            }
            await bot.stop()
        }
    }

    /// Under 4,096 characters but over 64 KiB once encoded (each character a letter with 400 combining accents):
    /// refused at `send` on the payload that would be stored and sent; nothing is queued, the reply after it goes out.
    @Test func aFrameOverTheLimitIsRefusedAtSendAndNothingIsQueued() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var scripted = ScriptedBot(probe: probe)
            let heavy = String(repeating: "e" + String(repeating: "\u{0301}", count: 400), count: 100)
            scripted.onMessageScript = { message, context in
                do {
                    try await context.reply(to: message, heavy)
                    probe.recordFailure("queued")
                } catch let error as ChatterAPIError {
                    probe.recordFailure(error.code.rawValue)
                }
                try await context.reply(to: message, "after the heavy one")
            }
            let bot = try await harness.start(scripted)
            let conversation = try await harness.direct(harness.ana)
            let go = try await harness.say("go", as: harness.ana, in: conversation)
            try await harness.waitUntil("the next reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["after the heavy one"]
            }
            #expect(heavy.count == 100)
            #expect(probe.failures == ["VALIDATION_FAILED"])
            try await harness.waitUntilHandled(upTo: go.seq, in: conversation, by: bot)
            #expect(await bot.status.outboxDepth == 0)
            #expect(await bot.status.reconnects == 0)
            await bot.stop()
        }
    }

    /// A refused send takes no send index: the handler's next send gets the id of index 0, the one a re-run of the
    /// handler (where the refused message would be refused again) derives for it too.
    @Test func aRefusedSendTakesNoSendIndex() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let ids = IDRecorder()
            var scripted = ScriptedBot(probe: probe)
            scripted.onMessageScript = { message, context in
                _ = try? await context.reply(to: message, String(repeating: "x", count: 4_097))
                let sent = try await context.reply(to: message, "fits")
                ids.record(sent.clientMessageId, expected: .derived(bot: context.bot.userId, handling: message.id, index: 0))
            }
            let bot = try await harness.start(scripted)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("go", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["fits"]
            }
            let recorded = try #require(ids.pairs.first)
            #expect(recorded.sent == recorded.expected)
            await bot.stop()
        }
    }

    /// An entry already in the outbox (written by an older version, or by hand) whose frame is over 64 KiB: the
    /// service closes with 1009; the entry fails for good instead of blocking what is queued behind it.
    @Test func anEntryFollowedByA1009CloseFailsAndTheQueueMovesOn() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let store = try await BotStore.open(path: harness.environment().storeURL(forBot: "botty").path, clock: harness.clock)
            let big = try await store.enqueue(MessageSend(
                conversationId: conversation.id, clientMessageId: .random(), content: .text(String(repeating: "x", count: 70_000))))
            let small = try await store.enqueue(MessageSend(
                conversationId: conversation.id, clientMessageId: .random(), content: .text("after the big one")))
            await store.close()

            // Reconnects right after the 1009: no backoff to wait out on the clock.
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false) {
                $0.reconnectPolicy = ReconnectPolicy(delays: [.zero], jitter: 0)
            }
            try await harness.waitUntil("the entry behind the big one is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["after the big one"]
            }
            try await bot.waitUntilIdle()
            #expect(await bot.status.outboxDepth == 0)
            await bot.stop()

            let reopened = try await BotStore.open(path: harness.environment().storeURL(forBot: "botty").path, clock: harness.clock)
            let failed = try await reopened.outboxEntry(big.id)
            #expect(failed?.status == .failed)
            #expect(failed?.lastError == .payloadTooLarge)
            #expect(try await reopened.outboxEntry(small.id)?.status == .acked)
            await reopened.close()
        }
    }

    /// A 1009 close while a small reply is in flight (its ack held back): the close was not about that reply, so it
    /// is sent again on the next connection and acknowledged once, not failed.
    @Test func aSmallEntryInFlightDuringA1009CloseIsResentNotFailed() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let conversation = try await harness.direct(harness.ana)
            let device = try #require(try await harness.connectedDevice())
            try await harness.inject(.delayAcks(.seconds(3600)))
            try await harness.say("x", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply is stored, its ack held back") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: x"]
            }
            #expect(await bot.status.outboxDepth == 1)

            try await harness.inject(.close(code: 1009, reason: "message too big"))
            try await bot.waitUntil(.reconnecting)  // the connection closed
            await harness.sandbox.admin.clearFaults(of: device)
            await harness.clock.advance(by: .milliseconds(1300))
            try await bot.waitUntilLive(harness)

            try await bot.waitUntilIdle()  // the resend is acknowledged
            #expect(await bot.status.messagesOut == 1)
            #expect(await bot.status.outboxDepth == 0)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: x"])
            #expect(harness.logs.contains(.warning, "no message in flight is over the size limits"))
            #expect(!harness.logs.contains(.error, "refused for good"))
            await bot.stop()
        }
    }
}

/// The clientMessageIds a handler got, with the ones it expected.
private final class IDRecorder: Sendable {
    private let recorded = Mutex<[(sent: ClientMessageID, expected: ClientMessageID)]>([])
    var pairs: [(sent: ClientMessageID, expected: ClientMessageID)] { recorded.withLock { $0 } }
    func record(_ sent: ClientMessageID, expected: ClientMessageID) { recorded.withLock { $0.append((sent, expected)) } }
}
