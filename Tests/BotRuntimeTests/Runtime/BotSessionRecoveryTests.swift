import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing

/// How a bot session survives what the network and the server do to it: lost acks, gaps, close codes, silence.
@Suite struct BotSessionRecoveryTests {
    @Test func aSendWhoseAckWasLostIsResentAndStoredOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                let reply = try await context.reply(to: message, "echo: \(message.text)")
                probe.record(try await reply.acknowledged())
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            try await harness.inject(.dropBeforeNextAck)
            let ping = try await harness.say("ping", as: harness.ana, in: conversation)

            try await bot.waitUntil(.reconnecting)  // the socket dropped before the ack
            #expect(probe.acks.isEmpty)
            await harness.clock.advance(by: .milliseconds(1300))
            try await bot.waitUntilLive(harness)
            try await harness.waitUntil("the caller's send returned") { probe.acks.count == 1 }
            try await harness.waitUntilHandled(upTo: ping.seq, in: conversation, by: bot)

            let replies = try await harness.messages(in: conversation).filter { $0.senderId == harness.botty.user.id }
            #expect(replies.map(\.body) == ["echo: ping"])
            #expect(probe.acks.map(\.messageId) == replies.map(\.id))
            #expect(probe.texts == ["ping"])
            #expect(await bot.status.reconnects == 1)
            await bot.stop()
        }
    }

    @Test func aReplyStoredBeforeTheBotLeftTheGroupIsAcknowledgedOnResend() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                let reply = try await context.reply(to: message, "echo: \(message.text)")
                do {
                    probe.record(try await reply.acknowledged())
                } catch let error as ChatterAPIError {
                    probe.recordFailure(error.code.rawValue)
                }
            }
            let bot = try await harness.start(script)
            let group = try await harness.rest(harness.ana).createGroup(title: "Plans", memberIds: [harness.botty.user.id])
            try await harness.inject(.dropBeforeNextAck)
            try await harness.say("ping", as: harness.ana, in: group)
            try await bot.waitUntil(.reconnecting)  // the reply is stored; the socket dropped before its ack

            try await harness.rest(harness.ana).removeMember(harness.botty.user.id, from: group.id)
            await harness.clock.advance(by: .milliseconds(1300))
            try await bot.waitUntilLive(harness)
            try await harness.waitUntil("the resend is answered") { probe.acks.count + probe.failures.count == 1 }

            let replies = try await harness.messages(in: group).filter { $0.senderId == harness.botty.user.id }
            #expect(probe.failures.isEmpty)
            #expect(replies.map(\.body) == ["echo: ping"])
            #expect(probe.acks.map(\.messageId) == replies.map(\.id))
            await bot.stop()
        }
    }

    @Test func messagesSentWhileTheSocketWasDownArriveThroughSyncAfterTheReconnect() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let before = try await harness.say("before", as: harness.ana, in: conversation)
            try await harness.waitUntilHandled(upTo: before.seq, in: conversation, by: bot)
            #expect(await bot.status.messagesOut == 1)
            try await harness.inject(.dropSocket)
            try await bot.waitUntil(.reconnecting)
            try await harness.say("while down 1", as: harness.ana, in: conversation)
            try await harness.say("while down 2", as: harness.ana, in: conversation)
            await harness.clock.advance(by: .milliseconds(1300))
            try await harness.waitUntil("both are answered after the reconnect") {
                try await harness.texts(in: conversation, from: harness.botty).count == 3
            }
            #expect(probe.texts == ["before", "while down 1", "while down 2"])
            #expect(await bot.status.reconnects == 1)
            await bot.stop()
        }
    }

    @Test func anUnacknowledgedSendIsResentAfterARestartWithItsClientMessageID() async throws {
        try await RuntimeHarness.run { harness in
            let first = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: first))
            let conversation = try await harness.direct(harness.ana)
            let device = try #require(try await harness.connectedDevice())
            try await harness.inject(.delayAcks(.seconds(3600)))
            try await harness.say("x", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply is stored, its ack held back") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: x"]
            }
            #expect(await bot.status.outboxDepth == 1)
            let stopping = Task { await bot.stop(deadline: .seconds(2)) }
            try await bot.waitUntil(.stopping)  // the shutdown waits for the ack
            await harness.clock.advance(by: .seconds(3))
            #expect(try await value(of: stopping, within: .hangGuard, "the session to stop") == .shutdown)
            #expect(await bot.status.outboxDepth == 1)

            await harness.sandbox.admin.clearFaults(of: device)
            let second = BotProbe()
            let restarted = try await harness.start(ScriptedBot(probe: second))
            try await restarted.waitUntilIdle()  // the resend is acknowledged
            #expect(await restarted.status.messagesOut == 1)
            #expect(await restarted.status.outboxDepth == 0)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: x"])
            #expect(second.messages.isEmpty)
            await restarted.stop()
        }
    }

    @Test func aGapLargerThanTheSyncLimitIsFilledPageByPage() async throws {
        try await RuntimeHarness.run { harness in
            let configure: (inout BotRuntimeEnvironment) -> Void = { environment in
                environment.syncLimitPerConversation = 3
                environment.messagePageSize = 2
            }
            let first = try await harness.start(ScriptedBot(probe: BotProbe()), configure)
            let conversation = try await harness.direct(harness.ana)
            let firstMessage = try await harness.say("first", as: harness.ana, in: conversation)
            try await harness.waitUntilHandled(upTo: firstMessage.seq, in: conversation, by: first)
            #expect(await first.status.messagesOut == 1)
            await first.stop()

            let missed = (1...9).map { "offline \($0)" }
            var last: Message?
            for text in missed { last = try await harness.say(text, as: harness.ana, in: conversation) }
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe), configure)
            try await harness.waitUntil("every missed message is answered") {
                try await harness.texts(in: conversation, from: harness.botty).count == 10
            }
            try await harness.waitUntilHandled(upTo: try #require(last).seq, in: conversation, by: bot)
            #expect(probe.texts == missed)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: first"] + missed.map { "echo: \($0)" })
            await bot.stop()
        }
    }

    @Test func anExpiredTokenIsRefreshedAndTheBotReconnectsAtOnce() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let device = try #require(try await harness.connectedDevice())
            try await harness.inject(.expireToken)
            try await harness.waitUntil("reconnected without waiting") {
                let status = await bot.status
                return status.reconnects == 1 && status.state == .live
            }
            #expect(try await harness.connectedDevice() == device)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("still there?", as: harness.ana, in: conversation)
            try await harness.waitUntil("answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: still there?"]
            }
            await bot.stop()
        }
    }

    @Test func aRateLimitCloseWaitsTheSecondsOfItsReason() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.inject(.close(code: 4008, reason: "2"))
            try await bot.waitUntil(.reconnecting)
            #expect(harness.logs.contains(.notice, "reconnecting in 2.0 s"))
            await harness.clock.advance(by: .milliseconds(1900))
            #expect(await bot.status.state == .reconnecting)
            #expect(try await harness.connectedDevice() == nil)
            await harness.clock.advance(by: .milliseconds(200))
            try await bot.waitUntilLive(harness)
            await bot.stop()
        }
    }

    @Test func anInvalidClientKeyStopsThatBotAndOnlyIt() async throws {
        try await RuntimeHarness.run { harness in
            let botty = try await harness.start(ScriptedBot(probe: BotProbe()))
            let otto = try await harness.start(ScriptedBot(probe: BotProbe()), as: harness.otto)
            try await harness.inject(.close(code: 4002, reason: "client key invalid"), into: harness.botty)
            let reason = try await value(of: botty.task, within: .hangGuard, "the bot to stop by itself")
            guard case .configurationError(let text) = reason else {
                Issue.record("expected a configuration error, got \(reason)")
                return
            }
            #expect(text.contains("client key"))
            #expect(reason.isConfigurationError)
            #expect(await botty.status.state == .stopped)

            let conversation = try await harness.direct(harness.ana, harness.otto)
            try await harness.say("otto?", as: harness.ana, in: conversation)
            try await harness.waitUntil("the other bot goes on") {
                try await harness.texts(in: conversation, from: harness.otto) == ["echo: otto?"]
            }
            await otto.stop()
        }
    }

    @Test func aWrongPasswordStopsTheBotWithACredentialsError() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()), password: "not the password", waitUntilLive: false)
            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop by itself")
            guard case .credentialsRejected = reason else {
                Issue.record("expected rejected credentials, got \(reason)")
                return
            }
        }
    }

    @Test func aRevokedDeviceSignsInAfreshOnANewDevice() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let revoked = try #require(try await harness.connectedDevice())
            try await harness.inject(.revokeDevice)
            try await harness.waitUntil("live again on another device") {
                let device = try await harness.connectedDevice()
                return device != nil && device != revoked
            }
            try await bot.waitUntilLive(harness)
            let active = try await harness.sandbox.service.devices(ofUsers: [harness.botty.user.id]).map(\.id)
            #expect(!active.contains(revoked))
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("hi again", as: harness.ana, in: conversation)
            try await harness.waitUntil("answered from the new device") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hi again"]
            }
            await bot.stop()
        }
    }

    @Test func withoutAPongTheBotReconnectsWithinTheDeadline() async throws {
        try await RuntimeHarness.run(relay: true) { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let relay = try #require(harness.relay)
            relay.freezeExisting()
            await harness.clock.advance(by: .seconds(25))  // the ping goes into the silence
            await harness.clock.advance(by: .milliseconds(9900))
            #expect(await bot.status.state == .live)
            #expect(!harness.logs.contains(.warning, "no pong"))
            await harness.clock.advance(by: .milliseconds(100))  // 10 s without a pong
            try await bot.waitUntil(.reconnecting)  // the dead connection is dropped
            await harness.clock.advance(by: .milliseconds(1300))  // the first backoff, 1 s ± 20 %
            try await bot.waitUntilLive(harness)
            #expect(await bot.status.reconnects == 1)
            #expect(harness.logs.contains(.warning, "no pong"))
            await bot.stop()
        }
    }
}
