import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import WebSocket

/// A bot's media message, end to end: uploaded in the handler, sent with its unit of work, and resent with the same
/// upload after a lost ack.
@Suite struct MediaSendTests {
    static let picture = Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 2, 3])

    @Test func aPictureReplyArrivesAsAPhotoWithItsCaptionAndItsBytes() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                let picture = try MediaAttachment(data: Self.picture, contentType: "image/gif")
                try await context.messaging.replyMedia(to: message, picture, caption: "here it is")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("a picture please", as: harness.ana, in: direct)
            let botId = harness.botty.user.id
            try await harness.waitUntil("the picture arrived") {
                try await harness.messages(in: direct).contains { $0.senderId == botId && $0.kind == .photo }
            }
            let reply = try #require(try await harness.messages(in: direct).first { $0.senderId == botId })
            #expect(reply.body == "here it is")
            let file = try await harness.rest(harness.ana).downloadMedia(try #require(reply.mediaId))
            #expect(file.data == Self.picture)
            #expect(file.contentType == "image/gif")
            await bot.stop()
        }
    }

    @Test func anUploadWhoseConnectionClosedBeforeAnAnswerIsTriedAgainAndTheReplyArrives() async throws {
        try await RuntimeHarness.run { harness in
            let relay = try TCPRelay(targetPort: harness.sandbox.apiURL.port ?? 0)
            defer { relay.close() }
            relay.closeNextRequest(startingWith: "POST /v1/media ")
            let apiThroughRelay = try #require(URL(string: "http://127.0.0.1:\(relay.port)/v1"))
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                let picture = try MediaAttachment(data: Self.picture, contentType: "image/gif")
                try await context.messaging.replyMedia(to: message, picture, caption: "despite it")
            }
            // No kept connections: the upload goes out on a connection of its own, which the HTTP client never repeats.
            let bot = try await harness.start(script) { environment in
                environment.server.apiBaseURL = apiThroughRelay
                environment.restTransport = .builtIn(HTTPClient(configuration: HTTPClientConfiguration(
                    connectTimeout: .hangGuard, requestTimeout: .hangGuard, maxIdleConnectionsPerOrigin: 0)))
            }
            let direct = try await harness.direct(harness.ana)
            try await harness.say("a picture please", as: harness.ana, in: direct)

            try await harness.waitUntil("the first try failed") { harness.logs.contains(.warning, "could not upload a file") }
            let retryAt = harness.clock.now.addingTimeInterval(0.5)
            #expect(await eventually { harness.clock.nextDeadline.map { $0 <= retryAt } ?? false })
            await harness.clock.advance(by: .milliseconds(500))

            let botId = harness.botty.user.id
            try await harness.waitUntil("the picture arrived") {
                try await harness.messages(in: direct).contains { $0.senderId == botId && $0.kind == .photo && $0.body == "despite it" }
            }
            #expect(relay.closedRequests == 1)
            await bot.stop()
        }
    }

    @Test func aMediaSendWhoseAckWasLostIsResentWithTheSameUploadAndStoredOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                let picture = try MediaAttachment(data: Self.picture, contentType: "image/gif")
                probe.record(try await context.messaging.replyMedia(to: message, picture, caption: "once").acknowledged())
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.inject(.dropBeforeNextAck)
            let ping = try await harness.say("picture", as: harness.ana, in: direct)

            try await bot.waitUntil(.reconnecting)
            await harness.clock.advance(by: .milliseconds(1300))
            try await bot.waitUntilLive(harness)
            try await harness.waitUntil("the caller's send returned") { probe.acks.count == 1 }
            try await harness.waitUntilHandled(upTo: ping.seq, in: direct, by: bot)

            let replies = try await harness.messages(in: direct).filter { $0.senderId == harness.botty.user.id }
            #expect(replies.map(\.body) == ["once"])
            #expect(replies.map(\.kind) == [.photo])
            #expect(probe.acks.map(\.messageId) == replies.map(\.id))
            await bot.stop()
        }
    }

    @Test func aFileTheServiceWouldRefuseIsRefusedInTheHandlerWithAReasonToSend() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                do {
                    _ = try MediaAttachment(data: Data("plain".utf8), contentType: "text/plain")
                } catch {
                    try await context.reply(to: message, "refused: \(error)")
                }
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("a text file please", as: harness.ana, in: direct)
            try await harness.waitUntil("the refusal is explained") {
                try await harness.texts(in: direct, from: harness.botty).first?.hasPrefix("refused: the service does not store text/plain") == true
            }
            await bot.stop()
        }
    }
}
