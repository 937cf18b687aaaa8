import BotRuntime
import ChatterBots
import Foundation
import Testing
import WebSocket

/// A friend's messages sent while the bot was away can make a `sync.response` larger than the bot accepts: the
/// service counts a message's 4,096 characters as grapheme clusters, so one message can be far larger than the
/// sync plan expects. The bot must still go live, asking for less after each refused response.
@Suite(.serialized) struct OversizedSyncResponseTests {
    /// Each message: 4,096 characters of "e" and six combining accents, 13 UTF-8 bytes each (53,248 bytes).
    private static let largeBody = String(repeating: "e" + String(repeating: "\u{0301}", count: 6), count: 4_096)
    private static let largeMessages = 20
    /// The plan names one conversation of 20 messages per request at this limit: about 1.07 MB, refused.
    private static let inboundLimit = 1 << 20

    /// Starts a bot that answers with the size of each message and accepts at most `inboundLimit` bytes a message;
    /// takes it offline while ana sends the large messages; returns the bot and the conversation.
    private func sendLargeMessagesWhileAway(_ harness: RuntimeHarness) async throws -> (RunningBot, Conversation) {
        var bot = ScriptedBot(probe: BotProbe())
        bot.onMessageScript = { message, context in
            try await context.reply(to: message, "got \(message.text.utf8.count) bytes")
        }
        let running = try await harness.start(bot) { environment in
            environment.webSocket.limits = WebSocketLimits(maxFrameSize: Self.inboundLimit, maxMessageSize: Self.inboundLimit)
        }
        let conversation = try await harness.direct(harness.ana)
        let hello = try await harness.say("hi", as: harness.ana, in: conversation)
        try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: running)
        try await harness.inject(.dropSocket)
        try await running.waitUntil(.reconnecting)
        for _ in 0..<Self.largeMessages { try await harness.say(Self.largeBody, as: harness.ana, in: conversation) }
        return (running, conversation)
    }

    /// Waits until `condition` holds, moving the clock to each reconnect the bot schedules meanwhile.
    private func reconnecting(
        _ bot: RunningBot, in harness: RuntimeHarness, until what: String, _ condition: @escaping () async throws -> Bool
    ) async throws {
        try await harness.waitUntil(what) {
            if let due = await bot.status.reconnectAt { await harness.clock.advance(to: due) }
            return try await condition()
        }
    }

    @Test func aSyncResponseTooLargeForTheBotIsAskedForInSmallerPartsUntilTheBotGoesLive() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, conversation) = try await sendLargeMessagesWhileAway(harness)
            let answers = Array(repeating: "got \(Self.largeBody.utf8.count) bytes", count: Self.largeMessages)
            try await reconnecting(bot, in: harness, until: "every large message is answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["got 2 bytes"] + answers
            }
            try await bot.waitUntil(.live)
            #expect(harness.logs.all.contains { "\($0.message)".contains("too large for this client") })
            await bot.stop()
        }
    }

    @Test func aCloseDuringTheSyncReconnectsAsItsCloseCodeSaysRatherThanAsAFailedSync() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, _) = try await sendLargeMessagesWhileAway(harness)
            await harness.clock.advance(to: try #require(await bot.status.reconnectAt))
            try await harness.waitUntil("a reconnect planned for the close of the refused sync response") {
                harness.logs.all.contains { "\($0.message)".contains("reconnecting in") && "\($0.message)".contains("1009") }
            }
            #expect(!harness.logs.all.contains { "\($0.message)".contains("synchronization failed") })
            await bot.stop()
        }
    }
}
