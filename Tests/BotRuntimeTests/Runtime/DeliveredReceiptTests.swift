import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// `receipt.delivered` says "everything up to seq is stored": never past a gap.
@Suite struct DeliveredReceiptTests {
    @Test func aMessageAfterAGapIsNotReportedDelivered() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(.silent(probe: probe)) { environment in
                environment.receipts = ReceiptPolicy(sendsDelivered: true, sendsRead: false)
            }
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("m1", as: harness.ana, in: conversation)
            try await harness.waitUntil("m1 is delivered") { try await harness.watermarks(in: conversation).delivered == 1 }
            // m2 is stored by the service without reaching the bot (a lost message.new): m3 lands after a gap.
            _ = try await harness.sandbox.service.postMessage(
                harness.ana.caller, conversation.id, MessagePostBody(clientMessageId: .random(), content: .text("m2")))
            let m3 = try await harness.say("m3", as: harness.ana, in: conversation)
            try await harness.waitUntil("m3 is parked behind the gap") {
                harness.logs.records(trace: m3.id.rawValue).contains { $0.message == "admitted: parked" }
            }
            try await bot.waitUntilIdle()
            #expect(probe.texts == ["m1"])
            #expect(try await harness.watermarks(in: conversation).delivered == 1)
            await bot.stop()
        }
    }

    /// A group ana opened with the bot that the bot was not told of (its `conversation.created` never sent).
    static func groupTheBotWasNotToldOf(_ harness: RuntimeHarness) async throws -> Conversation {
        try await harness.sandbox.service.createConversation(
            harness.ana.caller, .group(title: "unheard of", memberIds: [harness.botty.user.id])
        ).value.value
    }

    @Test func aMessageInAConversationNewToTheBotIsReportedDelivered() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(.silent(probe: probe)) { environment in
                environment.receipts = ReceiptPolicy(sendsDelivered: true, sendsRead: false)
            }
            let group = try await Self.groupTheBotWasNotToldOf(harness)
            try await harness.say("m1", as: harness.ana, in: group)
            try await harness.waitUntil("m1 is delivered") { try await harness.watermarks(in: group).delivered == 1 }
            try await bot.waitUntilIdle()
            #expect(probe.texts == ["m1"])
            await bot.stop()
        }
    }

    @Test func aGapBeforeAMessageInAConversationNewToTheBotIsFetchedAndReportedDelivered() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(.silent(probe: probe)) { environment in
                environment.receipts = ReceiptPolicy(sendsDelivered: true, sendsRead: false)
            }
            let group = try await Self.groupTheBotWasNotToldOf(harness)
            // m1 is stored without reaching the bot: m2, the first it hears of the group, lands after a gap.
            _ = try await harness.sandbox.service.postMessage(
                harness.ana.caller, group.id, MessagePostBody(clientMessageId: .random(), content: .text("m1")))
            let m2 = try await harness.say("m2", as: harness.ana, in: group)
            try await harness.waitUntil("m2 is parked behind the gap") {
                harness.logs.records(trace: m2.id.rawValue).contains { $0.message == "admitted: parked" }
            }
            try await bot.waitUntilIdle()

            await harness.clock.advance(by: .seconds(5))  // the gap fill delay
            try await harness.waitUntil("both are delivered") { try await harness.watermarks(in: group).delivered == 2 }
            try await bot.waitUntilIdle()
            #expect(probe.texts == ["m1", "m2"])
            await bot.stop()
        }
    }
}
