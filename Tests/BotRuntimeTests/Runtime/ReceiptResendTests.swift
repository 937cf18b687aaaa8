import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import Testing

/// Receipts written to a connection that was already dead are sent again on the next one.
@Suite struct ReceiptResendTests {
    @Test func aReadReceiptWrittenIntoADeadConnectionIsSentAfterTheReconnect() async throws {
        try await RuntimeHarness.run(relay: true) { harness in
            let probe = BotProbe()
            let gate = Gate()
            var scripted = ScriptedBot(probe: probe)
            scripted.onMessageScript = { _, _ in await gate.wait() }
            let bot = try await harness.start(scripted)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("hi", as: harness.ana, in: conversation)
            try await harness.waitUntil("the handler runs") { probe.messages.count == 1 }
            let relay = try #require(harness.relay)
            relay.freezeExisting()
            gate.open()  // the handler returns: its read receipt goes into the silence
            try await bot.waitUntilIdle()
            #expect(try await harness.watermarks(in: conversation).read == 0)

            await harness.clock.advance(by: .seconds(25))  // the ping goes into the silence too
            await harness.clock.advance(by: .seconds(10))  // no pong: the connection is dropped
            try await bot.waitUntil(.reconnecting)  // the dead connection is dropped
            await harness.clock.advance(by: .milliseconds(1300))
            try await bot.waitUntilLive(harness)
            try await harness.waitUntil("the read receipt reaches the service") {
                try await harness.watermarks(in: conversation).read == 1
            }
            await bot.stop()
        }
    }
}
