import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A bot's own receipts setting (`bots[].receipts`, or the file's) goes over the runtime's for every bot.
@Suite struct ReceiptPolicyTests {
    /// The runtime sends both receipts; this bot is set to `receipt.delivered` only. Its first message's read
    /// receipt would have gone out, on the same socket, before the second message's delivered receipt.
    @Test func aBotsOwnSettingWinsOverTheRuntimes() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let deliveredOnly = ReceiptPolicy(sendsDelivered: true, sendsRead: false)
            let bot = try await harness.start(.silent(probe: probe), receipts: deliveredOnly) { environment in
                environment.receipts = ReceiptPolicy(sendsDelivered: true, sendsRead: true)
            }
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.say("first", as: harness.ana, in: conversation)
            try await harness.waitUntil("the first message is handled") { probe.texts == ["first"] }
            try await bot.waitUntilIdle()
            let second = try await harness.say("second", as: harness.ana, in: conversation)
            try await harness.waitUntil("the second message is delivered") {
                try await harness.watermarks(in: conversation).delivered >= second.seq
            }
            #expect(try await harness.watermarks(in: conversation).read < first.seq)
            await bot.stop()
        }
    }
}
