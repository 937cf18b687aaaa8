import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A page of a fetch answered `RATE_LIMITED` waits what the service asked (`Retry-After`) and goes on from there,
/// instead of ending the fetch and leaving the gap to a later check.
@Suite struct FetchRateLimitTests {
    @Test func aRateLimitedPageIsAskedAgainAfterTheRetryAfterTheServiceGave() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, conversation) = try await BotSessionConversationTests.botMissingTheNextMessage(in: harness)
            let texts = ["m1", "m2", "m3"]
            var last: Message?
            for text in texts { last = try await harness.say(text, as: harness.ana, in: conversation) }
            try await BotSessionConversationTests.waitUntilParked(try #require(last), in: harness)
            try await bot.waitUntilIdle()
            harness.sandbox.admin.rateLimitRequests(to: .messages, count: 1, retryAfterSeconds: 2)

            await harness.clock.advance(by: .seconds(4))
            try await harness.waitUntil("the gap's fetch was rate limited") {
                harness.logs.contains(.warning, "was rate limited: asking again in 2")
            }
            #expect(probe.texts.isEmpty)
            await harness.clock.advance(by: .seconds(2))
            try await harness.waitUntil("m1 fetched after the wait, then all three answered in order") {
                try await harness.texts(in: conversation, from: harness.botty).count == 3
            }
            #expect(probe.texts == texts)
            await bot.stop()
        }
    }
}
