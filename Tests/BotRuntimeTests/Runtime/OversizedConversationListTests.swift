import BotRuntime
import ChatterBots
import Foundation
import Testing
import WebSocket

/// `GET /conversations?updatedSince=` takes no `limit`: a page of up to 100 conversations, each with a `lastMessage`
/// of up to about 1 MB, can be larger than the HTTP client accepts. The bot reads it up to the most the contract lets
/// it hold; beyond that it goes live with the conversations it knows rather than retrying the refresh for ever.
@Suite struct OversizedConversationListTests {
    /// 4,096 characters of "e" and six combining accents, 13 UTF-8 bytes each: 53,248 bytes a message.
    private static let largeBody = String(repeating: "e" + String(repeating: "\u{0301}", count: 6), count: 4_096)
    /// Eight groups whose last message is large make a list of about 430 KB.
    private static let largeGroups = 8
    /// The REST client's body limit in these tests, below the list.
    private static let responseLimit = 256 * 1024

    /// Ana opens `largeGroups` groups with the bot and writes a large message in each.
    private func groupsWithALargeMessage(_ harness: RuntimeHarness) async throws -> [Conversation] {
        var groups: [Conversation] = []
        for index in 1...Self.largeGroups {
            let group = try await harness.rest(harness.ana).createGroup(title: "group \(index)", memberIds: [harness.botty.user.id])
            try await harness.say(Self.largeBody, as: harness.ana, in: group)
            groups.append(group)
        }
        return groups
    }

    /// A bot whose REST client accepts `responseLimit` bytes a response, and `conversationList` bytes for the
    /// conversation list when given.
    private func start(
        _ bot: ScriptedBot, in harness: RuntimeHarness, conversationList: Int? = nil
    ) async throws -> (RunningBot, HTTPClient) {
        let client = HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .hangGuard, requestTimeout: .hangGuard,
            parserLimits: HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: Self.responseLimit)))
        let running = try await harness.start(bot) { environment in
            environment.restTransport = .builtIn(client)
            if let conversationList { environment.largestRESTResponses = [.conversations: conversationList] }
        }
        return (running, client)
    }

    @Test func aConversationListLargerThanTheHTTPClientsLimitIsReadAndEveryConversationAnswered() async throws {
        try await RuntimeHarness.run { harness in
            let groups = try await groupsWithALargeMessage(harness)
            let probe = BotProbe()
            var bot = ScriptedBot(probe: probe)
            bot.onMessageScript = { message, context in try await context.reply(to: message, "got \(message.text.utf8.count) bytes") }
            let (running, client) = try await start(bot, in: harness)
            defer { client.closeIdleConnections() }

            try await running.waitUntil(.live)
            try await running.waitUntilIdle()
            for group in groups {
                #expect(try await harness.texts(in: group, from: harness.botty) == ["got \(Self.largeBody.utf8.count) bytes"])
            }
            #expect(await running.status.lastError == nil)
            await running.stop()
        }
    }

    @Test func aConversationListLargerThanTheContractAllowsLeavesTheBotLiveWithTheConversationsItKnows() async throws {
        try await RuntimeHarness.run { harness in
            let direct = try await harness.direct(harness.ana)
            let probe = BotProbe()
            let (first, firstClient) = try await start(ScriptedBot(probe: probe), in: harness)
            let hello = try await harness.say("hello", as: harness.ana, in: direct)
            try await harness.waitUntilHandled(upTo: hello.seq, in: direct, by: first)
            await first.stop()
            firstClient.closeIdleConnections()

            _ = try await groupsWithALargeMessage(harness)
            try await harness.say("still there?", as: harness.ana, in: direct)
            let (bot, client) = try await start(ScriptedBot(probe: probe), in: harness, conversationList: Self.responseLimit + 1)
            defer { client.closeIdleConnections() }

            try await bot.waitUntil(.live)
            try await bot.waitUntilIdle()
            #expect(try await harness.texts(in: direct, from: harness.botty) == ["echo: hello", "echo: still there?"])
            let lastError = try #require(await bot.status.lastError)
            #expect(lastError.contains("GET /conversations") && lastError.contains("only a larger limit helps"))
            await bot.stop()
        }
    }
}
