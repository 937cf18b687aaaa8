import BotRuntime
import ChatterBots
import Foundation
import Testing
import WebSocket

/// The messages a sync leaves to REST paging (`hasMore`) can make a page larger than the HTTP client accepts: a
/// message of 4,096 characters counted as grapheme clusters can be about 1 MB, and a page holds up to 100. The
/// backfill must still page through, asking for fewer messages a page, and hand each message over once, in order;
/// the conversation's later fetches start at the size it learned, until its messages are small again.
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
                connectTimeout: .hangGuard, requestTimeout: .hangGuard,
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

    /// A bot whose REST client accepts at most `responseLimit` bytes, and which answers nothing (so that every
    /// page holds ana's messages only), sees ana's hello live, then `largeMessages` large ones sent while its socket
    /// was down: its backfill learns to ask for 12 a page. Returns the bot, the conversation and its probe.
    private func learnSmallerPages(_ harness: RuntimeHarness) async throws -> (RunningBot, Conversation, BotProbe) {
        let client = HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .hangGuard, requestTimeout: .hangGuard,
            parserLimits: HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: Self.responseLimit)))
        let probe = BotProbe()
        var bot = ScriptedBot(probe: probe)
        bot.onMessageScript = { _, _ in }
        let running = try await harness.start(bot) { environment in
            environment.syncLimitPerConversation = 1
            environment.restTransport = .builtIn(client)
        }
        let conversation = try await harness.direct(harness.ana)
        let hello = try await harness.say("hi", as: harness.ana, in: conversation)
        try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: running)
        try await sendWhileAway(Array(repeating: Self.largeBody, count: Self.largeMessages), to: running, in: conversation, probe: probe, harness)
        #expect(refusals(in: harness) == 3)
        return (running, conversation, probe)
    }

    /// Drops the bot's socket, has ana send `texts` while it is down, and waits until the bot reconnected, handled
    /// them (its `probe` saw the last) and has nothing left to do.
    private func sendWhileAway(
        _ texts: [String], to bot: RunningBot, in conversation: Conversation, probe: BotProbe, _ harness: RuntimeHarness
    ) async throws {
        try await harness.inject(.dropSocket)
        try await bot.waitUntil(.reconnecting)
        var last: Message?
        for text in texts { last = try await harness.say(text, as: harness.ana, in: conversation) }
        let lastSeq = try #require(last).seq
        try await harness.waitUntil("the bot reconnected and handled seq \(lastSeq)") {
            if let due = await bot.status.reconnectAt { await harness.clock.advance(to: due) }
            return probe.messages.last?.seq == lastSeq
        }
        try await bot.waitUntilIdle()
    }

    /// The pages the HTTP client refused as too large so far.
    private func refusals(in harness: RuntimeHarness) -> Int {
        harness.logs.all.filter { $0.level == .warning && $0.message.contains("bytes this client accepts; asking for") }.count
    }

    /// The `limit` of each backfill page fetched since the log's `from`th record.
    private func pageLimits(in harness: RuntimeHarness, from: Int) -> [Int] {
        harness.logs.all.dropFirst(from).compactMap { record in
            guard record.message.hasPrefix("fetched "), let open = record.message.range(of: "(limit ") else { return nil }
            return Int(record.message[open.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test func aLaterBackfillOfTheConversationAsksForTheLearnedSizeWithoutARefusal() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, conversation, probe) = try await learnSmallerPages(harness)
            let handledBefore = probe.messages.count
            let logsBefore = harness.logs.all.count

            try await sendWhileAway(Array(repeating: Self.largeBody, count: Self.largeMessages), to: bot, in: conversation, probe: probe, harness)
            #expect(refusals(in: harness) == 3)
            #expect(pageLimits(in: harness, from: logsBefore) == [12, 12])
            let seqs = probe.messages.map(\.seq)
            #expect(seqs == Array(1...seqs.count))
            #expect(seqs.count == handledBefore + Self.largeMessages)
            await bot.stop()
        }
    }

    @Test func pagesOfSmallMessagesGrowTheLearnedSizeBackStepByStep() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, conversation, probe) = try await learnSmallerPages(harness)
            let logsBefore = harness.logs.all.count

            try await sendWhileAway((1...40).map { "small \($0)" }, to: bot, in: conversation, probe: probe, harness)
            #expect(pageLimits(in: harness, from: logsBefore) == [12, 24, 48])
            #expect(refusals(in: harness) == 3)
            let seqs = probe.messages.map(\.seq)
            #expect(seqs == Array(1...seqs.count))
            await bot.stop()
        }
    }
}
