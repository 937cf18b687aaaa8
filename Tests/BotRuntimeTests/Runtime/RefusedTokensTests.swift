import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// The device's tokens refused over REST while its socket stays open (a service that does not close a socket when
/// its token expires, a refresh token spent elsewhere): the session signs in again, as after a 4001, instead of
/// failing every REST request until the socket happens to drop.
@Suite struct RefusedTokensTests {
    @Test func aGapFetchRefusedForBothTokensSignsInAgainAndTheMissingMessagesAreAnswered() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, conversation) = try await BotSessionConversationTests.botMissingTheNextMessage(in: harness)
            let device = try #require(try await harness.connectedDevice())
            try await harness.sandbox.admin.expireTokensKeepingSockets(of: device)
            let texts = ["m1", "m2", "m3"]
            var last: Message?
            for text in texts { last = try await harness.say(text, as: harness.ana, in: conversation) }
            try await BotSessionConversationTests.waitUntilParked(try #require(last), in: harness)
            try await bot.waitUntilIdle()

            await harness.clock.advance(by: .seconds(4))
            try await harness.waitUntil("signed in again, m1 fetched, then all three answered in order") {
                try await harness.texts(in: conversation, from: harness.botty).count == 3
            }
            #expect(probe.texts == texts)
            #expect(harness.logs.contains(.warning, "refused the device's tokens"))
            #expect(await bot.status.reconnects == 1)
            #expect(try await harness.connectedDevice() == device, "the same device signed in again")
            await bot.stop()
        }
    }
}
