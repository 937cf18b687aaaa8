import BotRuntime
import ChatterBots
import Foundation
import Testing
import WebSocket

/// The messages a sync leaves to REST paging (`hasMore`) can make a page larger than the HTTP client accepts: a
/// message of 4,096 characters counted as grapheme clusters can be about 1 MB, and a page holds up to 100. The
/// backfill must still page through, asking for fewer messages a page, and hand each message over once, in order.
@Suite struct OversizedBackfillPageTests {
    /// 4,096 characters of "e" and six combining accents, 13 UTF-8 bytes each: 53,248 bytes a message.
    private static let largeBody = String(repeating: "e" + String(repeating: "\u{0301}", count: 6), count: 4_096)
    private static let largeMessages = 24
    /// The HTTP client's body limit in this test: the 23 messages left to paging (about 1.2 MB) are refused in
    /// pages of 100, 50 and 25; pages of 12 (about 640 KB) fit.
    private static let responseLimit = 1 << 20

    @Test func aPageTooLargeForTheHTTPClientIsAskedForInSmallerPagesAndEveryMessageIsHandledOnceInOrder() async throws {
        try await RuntimeHarness.run { harness in
            let client = HTTPClient(configuration: HTTPClientConfiguration(
                parserLimits: HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: Self.responseLimit)))
            defer { client.closeIdleConnections() }
            let configure: (inout BotRuntimeEnvironment) -> Void = { environment in
                environment.syncLimitPerConversation = 1
                environment.restTransport = .builtIn(client)
            }
            let probe = BotProbe()
            var bot = ScriptedBot(probe: probe)
            bot.onMessageScript = { message, context in try await context.reply(to: message, "got seq \(message.message.seq)") }

            let first = try await harness.start(bot, configure)
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hi", as: harness.ana, in: conversation)
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: first)
            await first.stop()
            var last: Message?
            for _ in 0..<Self.largeMessages { last = try await harness.say(Self.largeBody, as: harness.ana, in: conversation) }

            let restarted = try await harness.start(bot, configure)
            try await harness.waitUntilHandled(upTo: try #require(last).seq, in: conversation, by: restarted)
            let lastSeq = try #require(last).seq
            let seqs = [hello.seq] + Array((lastSeq - Self.largeMessages + 1)...lastSeq)
            #expect(probe.messages.map(\.seq) == seqs)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == seqs.map { "got seq \($0)" })
            #expect(harness.logs.contains(.warning, "asking for 12 at a time"))
            await restarted.stop()
        }
    }
}
