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
            var scripted = ScriptedBot(probe: probe)
            scripted.onMessageScript = { _, _ in }
            let bot = try await harness.start(scripted, receipts: ReceiptPolicy(sendsDelivered: true, sendsRead: false)) {
                environment in environment.receipts = ReceiptPolicy(sendsDelivered: true, sendsRead: true)
            }
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.say("first", as: harness.ana, in: conversation)
            try await harness.waitUntil("the first message is handled") { probe.texts == ["first"] }
            try await bot.waitUntilIdle()
            let second = try await harness.say("second", as: harness.ana, in: conversation)
            try await harness.waitUntil("the second message is delivered") {
                try await watermarks(harness, conversation).delivered >= second.seq
            }
            #expect(try await watermarks(harness, conversation).read < first.seq)
            await bot.stop()
        }
    }

    private func watermarks(_ harness: RuntimeHarness, _ conversation: Conversation) async throws -> (delivered: Int, read: Int) {
        let current = try await harness.sandbox.service.conversation(harness.ana.caller, conversation.id)
        let bot = current.members.first { $0.userId == harness.botty.user.id }
        return (bot?.lastDeliveredSeq ?? 0, bot?.lastReadSeq ?? 0)
    }
}
