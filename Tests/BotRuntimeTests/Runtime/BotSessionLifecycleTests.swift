import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// Friend requests, shutdown, start-up.
@Suite struct BotSessionLifecycleTests {
    @Test func friendRequestsSentWhileOfflineAreDecidedAfterReconnectingPerPolicy() async throws {
        try await RuntimeHarness.run { harness in
            let policy = FriendRequestPolicy.allowlist(["CLEO"])
            let first = try await harness.start(ScriptedBot(probe: BotProbe()), policy: policy)
            await first.stop()

            let fromCleo = try await harness.rest(harness.cleo).sendFriendRequest(to: .userId(harness.botty.user.id))
            let fromDan = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe), policy: policy)
            try await harness.waitUntil("cleo's request is accepted") {
                try await harness.rest(harness.cleo).friends().contains { $0.user.id == harness.botty.user.id }
            }
            try await harness.waitUntil("the new friendship reaches the bot") {
                probe.friendsAdded.map(\.user.id) == [harness.cleo.user.id]
            }
            #expect(Set(probe.friendRequests.map(\.id)) == [fromCleo.id, fromDan.id])
            let pending = try await harness.rest(harness.dan).friendRequests().outgoing
            #expect(pending.map(\.id) == [fromDan.id])
            await bot.stop()
        }
    }

    /// An outage of `GET /friends` must not keep the bot from going live: it catches up, answers and sends, and
    /// the friendships are refreshed once the endpoint answers again.
    @Test func aFailingFriendsRefreshDelaysOnlyTheFriendships() async throws {
        try await RuntimeHarness.run { harness in
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()
            let conversation = try await harness.direct(harness.ana)
            let missed = try await harness.say("hello", as: harness.ana, in: conversation)
            let request = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            harness.sandbox.admin.failRequests(to: .friends, count: Int.max)
            let before = await harness.sandbox.admin.socketEvents().last?.sequence

            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe), policy: .everyone)
            try await bot.waitUntilLive(harness)
            try await harness.waitUntilHandled(upTo: missed.seq, in: conversation, by: bot)
            try await harness.waitUntil("the reply is sent") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"]
            }
            #expect(probe.friendRequests.isEmpty, "the request comes with the friendships' refresh, which failed")

            harness.sandbox.admin.failRequests(to: .friends, count: 0)
            // The retry waits its backoff (1 s ± 20 %) on the virtual clock, too little for a heartbeat or a
            // token's expiry to reconnect the bot and sync again. Once the clock is past it, the bot is idle only
            // when the retry is done, however long its request takes.
            let hold = harness.sandbox.admin.holdRequests(to: .friends)
            await harness.clock.advance(by: .milliseconds(1_200))
            await hold.waitUntilHeld()
            hold.release()
            try await bot.waitUntilIdle()
            #expect(probe.friendRequests.map(\.id) == [request.id], "the refresh is tried again and decides the request")
            let device = try #require(try await harness.connectedDevice())
            let opened = await harness.sandbox.admin.socketEvents(after: before).filter { $0.deviceId == device && $0.kind == .opened }
            #expect(opened.count == 1, "the same connection retried the refresh: the bot did not reconnect")
            await bot.stop()
        }
    }

    /// A request the service sends twice reaches `onFriendRequest` once: the second copy finds it decided.
    @Test func aFriendRequestThatArrivesTwiceIsDecidedOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe), policy: .everyone)
            try await bot.waitUntilLive(harness)
            try await harness.inject(.duplicateEvents(types: ["friend_request.received"], copies: 1))
            let request = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            try await harness.waitUntil("the second copy is found decided") {
                harness.logs.contains(.debug, "friend request already decided")
            }
            #expect(probe.friendRequests.map(\.id) == [request.id])
            #expect(try await harness.rest(harness.dan).friends().map(\.user.id) == [harness.botty.user.id])
            #expect(!harness.logs.contains(.info, "friend request no longer pending"))
            await bot.stop()
        }
    }

    @Test func theHandlersDecisionOverridesThePolicy() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.friendRequestDecision = .decline
            let bot = try await harness.start(script, policy: .everyone)
            let request = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            try await harness.waitUntil("declined") {
                try await harness.rest(harness.dan).friendRequests().outgoing.isEmpty
            }
            #expect(try await harness.rest(harness.dan).friends().isEmpty)
            #expect(script.probe.friendRequests.map(\.id) == [request.id])
            await bot.stop()
        }
    }

    @Test func anOnStartThatDoesNotReturnIsGivenUpAtItsTimeoutAndMessagesAreHandled() async throws {
        try await RuntimeHarness.run { harness in
            let gate = Gate()
            let started = Gate()
            var script = ScriptedBot(probe: BotProbe())
            script.onStartScript = { _ in
                started.open()
                await gate.wait()
            }
            let bot = try await harness.start(script) { $0.handlerTimeout = .seconds(20) }
            await started.wait()
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("anyone?", as: harness.ana, in: conversation)
            await harness.clock.advance(by: .seconds(20))
            try await harness.waitUntil("the message is answered once onStart was given up") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: anyone?"]
            }
            gate.open()
            await bot.stop()
        }
    }

    @Test func aHandlerStillRunningAtTheShutdownDeadlineDoesNotHoldTheShutdown() async throws {
        try await RuntimeHarness.run { harness in
            let gate = Gate()
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                await gate.wait()
                try await context.reply(to: message, "too late: \(message.text)")
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("slow", as: harness.ana, in: conversation)
            try await harness.waitUntil("the handler runs") { script.probe.texts == ["slow"] }

            let stopping = Task { await bot.stop(deadline: .seconds(5)) }
            try await bot.waitUntil(.stopping)
            await harness.clock.advance(by: .seconds(5))
            #expect(try await value(of: stopping, within: .hangGuard, "the session to stop") == .shutdown)
            gate.open()
        }
    }

    @Test func shutdownLetsARunningHandlerFinishAndAwaitsItsAck() async throws {
        try await RuntimeHarness.run { harness in
            let gate = Gate()
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                await gate.wait()
                try await context.reply(to: message, "done: \(message.text)")
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("slow", as: harness.ana, in: conversation)
            try await harness.waitUntil("the handler runs") { script.probe.texts == ["slow"] }

            let stopping = Task { await bot.stop(deadline: .seconds(30)) }
            try await bot.waitUntil(.stopping)
            #expect(try await harness.texts(in: conversation, from: harness.botty).isEmpty)
            gate.open()
            #expect(try await value(of: stopping, within: .hangGuard, "the session to stop") == .shutdown)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["done: slow"])
            let status = await bot.status
            #expect(status.messagesOut == 1)
            #expect(status.outboxDepth == 0)
            #expect(status.state == .stopped)
            #expect(try await harness.connectedDevice() == nil)
        }
    }

    @Test func onStartRunsOnceBeforeAnyEventAndItsSendsGoOut() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            var script = ScriptedBot(probe: BotProbe())
            script.onStartScript = { context in
                try await context.send("good morning", to: conversation.id)
            }
            let bot = try await harness.start(script)
            try await harness.waitUntil("the greeting is sent") {
                try await harness.texts(in: conversation, from: harness.botty) == ["good morning"]
            }
            #expect(script.probe.starts == 1)
            #expect(script.probe.readies == 1)
            await bot.stop()
        }
    }

    @Test func stateWrittenByOneMessageIsReadByTheNext() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            let count = StateKey<Int>("count")
            script.onMessageScript = { message, context in
                let scope = StateScope.conversation(message.conversationId)
                let seen = (try await context.state.value(count, in: scope) ?? 0) + 1
                try await context.state.set(seen, for: count, in: scope)
                try await context.reply(to: message, "\(seen)")
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            for text in ["a", "b", "c", "d"] { try await harness.say(text, as: harness.ana, in: conversation) }
            try await harness.waitUntil("four replies") {
                try await harness.texts(in: conversation, from: harness.botty).count == 4
            }
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["1", "2", "3", "4"])
            await bot.stop()
        }
    }
}

/// A one-shot gate a test opens to let a handler go on.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
