import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A bot's messages end to end: handled once, in order, replied to exactly once, with receipts.
@Suite struct BotSessionMessagingTests {
    @Test func aMessageIsHandledOnceAndAnsweredOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)

            try await harness.eventually("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"]
            }
            try await harness.settle()
            #expect(try await harness.messages(in: conversation).map(\.body) == ["hello", "echo: hello"])
            #expect(probe.messages.map(\.id) == [hello.id])
            let status = await bot.status
            #expect(status.messagesIn == 1)
            try await harness.eventually("the ack is recorded") { await bot.status.messagesOut == 1 }
            #expect(await bot.status.outboxDepth == 0)
            #expect(await bot.stop() == .shutdown)
        }
    }
}
