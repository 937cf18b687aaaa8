import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// A bot's messages end to end: handled once, in order, replied to exactly once, with receipts.
@Suite struct BotSessionMessagingTests {
    @Test func aMessageIsHandledOnceAndAnsweredOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)

            try await harness.waitUntil("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"]
            }
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(try await harness.messages(in: conversation).map(\.body) == ["hello", "echo: hello"])
            #expect(probe.messages.map(\.id) == [hello.id])
            let status = await bot.status
            #expect(status.messagesIn == 1)
            #expect(status.messagesOut == 1)
            #expect(status.outboxDepth == 0)
            #expect(probe.readies == 1)
            #expect(probe.starts == 1)
            #expect(probe.conversationsCreated == [conversation.id])
            #expect(await bot.stop() == .shutdown)
        }
    }

    /// On a fresh store a reply's clientMessageId is time-ordered: a UUIDv8 led by the time of the message it answers,
    /// so the outbox's unique index grows at its end. The service stores the message under that key.
    @Test func aReplyOnAFreshStoreCarriesATimeOrderedKeyLedByTheMessagesTime() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"]
            }
            let reply = try #require(try await harness.messages(in: conversation).first { $0.senderId == harness.botty.user.id })
            let key = try #require(reply.clientMessageId)
            #expect(key == .derived(bot: harness.botty.user.id, handling: hello.id, index: 0))
            #expect(key.rawValue.dropFirst(14).first == "8")
            let crockford = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
            let messageTime = hello.id.rawValue.prefix(10).reduce(UInt64(0)) { time, digit in
                time << 5 | UInt64(crockford.firstIndex(of: digit) ?? 0)
            }
            #expect(UInt64(key.rawValue.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16) == messageTime)
            await bot.stop()
        }
    }

    /// A job scheduled while handling a message keeps the name-based id earlier versions gave it (ids are stored,
    /// and a re-run after an upgrade must not schedule a second job), while the reply's key is time-ordered.
    @Test func aJobScheduledWhileHandlingAMessageKeepsItsNameBasedId() async throws {
        try await RuntimeHarness.run { harness in
            let jobs = Mutex<[ScheduledJob.ID]>([])
            var scripted = ScriptedBot(probe: BotProbe())
            scripted.onMessageScript = { message, context in
                let job = try await context.jobs.schedule(named: "later", at: context.now.addingTimeInterval(3600), repeating: nil, payload: .null)
                jobs.withLock { $0.append(job.id) }
                try await context.reply(to: message, "scheduled")
            }
            let bot = try await harness.start(scripted)
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["scheduled"]
            }
            let expected = ClientMessageID.nameBased(bot: harness.botty.user.id, trigger: "message:\(hello.id.rawValue)#job", index: 0)
            #expect(jobs.withLock { $0 } == [ScheduledJob.ID(expected.rawValue)])
            await bot.stop()
        }
    }

    @Test func handlersSeeMessagesInSeqOrderDespiteDuplicatesAndReordering() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            try await harness.inject(.duplicateMessageNew(copies: 2))
            try await harness.inject(.reorderMessageNew)
            let texts = (1...6).map { "m\($0)" }
            var last: Message?
            for text in texts { last = try await harness.say(text, as: harness.ana, in: conversation) }

            try await harness.waitUntil("six replies") {
                try await harness.texts(in: conversation, from: harness.botty).count == 6
            }
            try await harness.waitUntilHandled(upTo: try #require(last).seq, in: conversation, by: bot)
            #expect(probe.texts == texts)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == texts.map { "echo: \($0)" })
            await bot.stop()
        }
    }

    @Test func sendsArePacedOnTheClock() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(
                ScriptedBot(probe: BotProbe()), sendPacing: SendPacer.Configuration(sendsPerSecond: 2, burst: 2))
            let conversation = try await harness.direct(harness.ana)
            let start = harness.clock.now
            for text in ["a", "b", "c", "d"] { try await harness.say(text, as: harness.ana, in: conversation) }
            try await harness.waitUntil("the burst goes out") {
                try await harness.texts(in: conversation, from: harness.botty).count == 2
            }
            await harness.clock.advance(by: .milliseconds(500))
            try await harness.waitUntil("one more after half a second") {
                try await harness.texts(in: conversation, from: harness.botty).count == 3
            }
            await harness.clock.advance(by: .milliseconds(500))
            try await harness.waitUntil("and the last") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: a", "echo: b", "echo: c", "echo: d"]
            }
            // The service stamps each reply with the shared clock: a send that had not waited for its token would
            // carry the start time.
            let sentAt = try await harness.messages(in: conversation).filter { $0.senderId == harness.botty.user.id }
                .map { $0.createdAt.date.timeIntervalSince(start) }
            #expect(sentAt == [0, 0, 0.5, 1])
            await bot.stop()
        }
    }

    @Test func theBotsOwnMessagesAreNotHandled() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            // The bot account's other device (the seed's) writes; the bot's own device receives it as message.new.
            try await harness.say("from my other device", as: harness.botty, in: conversation)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply") {
                try await harness.texts(in: conversation, from: harness.botty).contains("echo: hello")
            }
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(probe.messages.map(\.id) == [hello.id])
            await bot.stop()
        }
    }

    @Test func readReceiptsFollowTheHandler() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntil("the bot's read watermark reaches the message") {
                let members = try await harness.sandbox.service.conversation(harness.ana.caller, conversation.id).members
                let watermark = members.first { $0.userId == harness.botty.user.id }
                return (watermark?.lastReadSeq ?? 0) >= hello.seq && (watermark?.lastDeliveredSeq ?? 0) >= hello.seq
            }
            await bot.stop()
        }
    }

    @Test func aThrowingHandlerIsLoggedItsWorkDiscardedAndTheBotGoesOn() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                if message.text == "boom" {
                    try await context.reply(to: message, "this reply is discarded")
                    try await context.state.set(true, for: StateKey<Bool>("exploded"))
                    throw ScriptError.boom
                }
                let exploded = try await context.state.value(StateKey<Bool>("exploded")) ?? false
                try await context.reply(to: message, "echo: \(message.text), exploded: \(exploded)")
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            let boom = try await harness.say("boom", as: harness.ana, in: conversation)
            try await harness.say("after", as: harness.ana, in: conversation)
            try await harness.waitUntil("the next message is answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: after, exploded: false"]
            }
            #expect(probe.texts == ["boom", "after"])
            #expect(harness.logs.records(trace: boom.id.rawValue).contains { $0.level == .error && $0.message.contains("onMessage threw") })
            #expect(await bot.status.lastError?.contains("onMessage threw") == true)
            await bot.stop()
        }
    }

    @Test func aHungHandlerIsAbandonedAfterItsTimeoutWithoutDelayingOthers() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                if message.text == "hang" {
                    // Ignores cancellation: only abandoning it frees the conversation.
                    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                }
                try await context.reply(to: message, "echo: \(message.text)")
            }
            let bot = try await harness.start(script) { $0.handlerTimeout = .seconds(5) }
            let anas = try await harness.direct(harness.ana)
            let bens = try await harness.direct(harness.ben)
            try await harness.say("hang", as: harness.ana, in: anas)
            try await harness.say("next", as: harness.ana, in: anas)
            try await harness.waitUntil("the hanging handler runs") { probe.texts.contains("hang") }
            try await harness.say("hi", as: harness.ben, in: bens)
            try await harness.waitUntil("another conversation is answered meanwhile") {
                try await harness.texts(in: bens, from: harness.botty) == ["echo: hi"]
            }
            #expect(try await harness.texts(in: anas, from: harness.botty).isEmpty)

            await harness.clock.advance(by: .seconds(5))
            try await harness.waitUntil("the conversation goes on after the timeout") {
                try await harness.texts(in: anas, from: harness.botty) == ["echo: next"]
            }
            #expect(harness.logs.contains(.error, "did not return within"))
            #expect(await bot.status.state == .live)
            await bot.stop()
        }
    }

    @Test func aPermanentErrorFailsTheSendAndReachesTheCaller() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bens = try await harness.direct(harness.ben)
            var script = ScriptedBot(probe: probe)
            script.onMessageScript = { message, context in
                let sent = try await context.send("hello ben", to: bens.id)
                do {
                    _ = try await sent.acknowledged()
                    try await context.reply(to: message, "sent")
                } catch let error as ChatterAPIError {
                    try await context.reply(to: message, "failed: \(error.code)")
                }
            }
            let bot = try await harness.start(script)
            try await harness.rest(harness.ben).removeFriend(harness.botty.user.id)
            let anas = try await harness.direct(harness.ana)
            try await harness.say("tell ben", as: harness.ana, in: anas)
            try await harness.waitUntil("the failure reaches the handler") {
                try await harness.texts(in: anas, from: harness.botty) == ["failed: NOT_FRIENDS"]
            }
            #expect(try await harness.texts(in: bens, from: harness.botty).isEmpty)
            try await bot.waitUntilIdle()
            #expect(await bot.status.outboxDepth == 0)
            await bot.stop()
        }
    }

    @Test func everyLogLineOfAMessageCarriesItsTraceID() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            let conversation = try await harness.direct(harness.ana)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(await bot.status.messagesOut == 1)
            let lines = harness.logs.records(trace: hello.id.rawValue).map(\.message)
            #expect(lines.contains { $0.hasPrefix("message.new") })
            #expect(lines.contains { $0.hasPrefix("admitted") })
            #expect(lines.contains { $0.hasPrefix("onMessage") })
            #expect(lines.contains { $0.hasPrefix("sent message.send") })
            #expect(harness.logs.all.allSatisfy { $0.bot == "botty" })
            await bot.stop()
        }
    }
}

enum ScriptError: Error {
    case boom
}

/// Conversations, edits, typing and backlogs.
@Suite struct BotSessionConversationTests {
    @Test func aConversationOverItsBacklogLeavesMessagesOnTheServerAndFetchesThemLater() async throws {
        try await RuntimeHarness.run { harness in
            let gate = Gate()
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                if message.text == "m1" { await gate.wait() }
                try await context.reply(to: message, "echo: \(message.text)")
            }
            let bot = try await harness.start(script) { environment in
                environment.conversationBacklogLimit = 3
                environment.messagePageSize = 2
            }
            let conversation = try await harness.direct(harness.ana)
            let texts = (1...8).map { "m\($0)" }
            var last: Message?
            for text in texts { last = try await harness.say(text, as: harness.ana, in: conversation) }
            try await harness.waitUntil("the backlog is shed") { harness.logs.contains(.warning, "backlog over 3") }
            gate.open()
            try await harness.waitUntil("every message is answered") {
                try await harness.texts(in: conversation, from: harness.botty).count == 8
            }
            try await harness.waitUntilHandled(upTo: try #require(last).seq, in: conversation, by: bot)
            #expect(script.probe.texts == texts)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == texts.map { "echo: \($0)" })
            await bot.stop()
        }
    }

    @Test func messagesParkedBehindAGapTheServiceNeverFillsAreCappedAndTheGapIsFetched() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe)) { environment in
                environment.conversationBacklogLimit = 3
                environment.messagePageSize = 3
            }
            let conversation = try await harness.direct(harness.ana)
            try await harness.inject(.loseMessageNew(count: 1))
            let texts = (1...12).map { "m\($0)" }
            for text in texts.prefix(9) { try await harness.say(text, as: harness.ana, in: conversation) }
            try await harness.waitUntil("the parked messages reach the cap") { harness.logs.contains(.warning, "parked behind a gap") }
            // More live messages while the bot fetches from the gap: shed or admitted, none may be lost.
            var last: Message?
            for text in texts.suffix(3) { last = try await harness.say(text, as: harness.ana, in: conversation) }
            try await harness.waitUntil("every message is answered, m1 fetched over REST") {
                try await harness.texts(in: conversation, from: harness.botty).count == 12
            }
            try await harness.waitUntilHandled(upTo: try #require(last).seq, in: conversation, by: bot)
            #expect(probe.texts == texts)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == texts.map { "echo: \($0)" })
            await bot.stop()
        }
    }

    /// A scripted bot that fetches a gap after 4 s of virtual time, in a direct conversation with ana whose next
    /// `message.new` the sandbox loses.
    static func botMissingTheNextMessage(
        in harness: RuntimeHarness
    ) async throws -> (bot: RunningBot, probe: BotProbe, conversation: Conversation) {
        let probe = BotProbe()
        let bot = try await harness.start(ScriptedBot(probe: probe)) { environment in
            environment.gapFillDelay = .seconds(4)
        }
        let conversation = try await harness.direct(harness.ana)
        try await harness.inject(.loseMessageNew(count: 1))
        return (bot, probe, conversation)
    }

    /// Returns once `message` waits behind a gap.
    static func waitUntilParked(_ message: Message, in harness: RuntimeHarness) async throws {
        try await harness.waitUntil("\(message.body ?? "the message") is parked behind the gap") {
            harness.logs.records(trace: message.id.rawValue).contains { $0.message == "admitted: parked" }
        }
    }

    @Test func aGapThatStaysOpenIsFetchedAfterTheGapFillDelay() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, conversation) = try await Self.botMissingTheNextMessage(in: harness)
            let texts = ["m1", "m2", "m3"]
            var last: Message?
            for text in texts { last = try await harness.say(text, as: harness.ana, in: conversation) }
            let m3 = try #require(last)
            try await Self.waitUntilParked(m3, in: harness)
            try await bot.waitUntilIdle()
            #expect(probe.texts.isEmpty, "m2 and m3 wait behind the missing m1")
            await harness.clock.advance(by: .seconds(4))
            try await harness.waitUntil("m1 fetched, then all three answered in order") {
                try await harness.texts(in: conversation, from: harness.botty).count == 3
            }
            #expect(probe.texts == texts)
            #expect(harness.logs.contains(.warning, "still missing"))
            await bot.stop()
        }
    }

    @Test func editsOfMessagesStillOnTheirWayReachTheBotAsTheMessagesCurrentText() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, conversation) = try await Self.botMissingTheNextMessage(in: harness)
            let ana = harness.rest(harness.ana)
            let m1 = try await harness.say("m1", as: harness.ana, in: conversation)
            let m2 = try await harness.say("m2", as: harness.ana, in: conversation)
            try await Self.waitUntilParked(m2, in: harness)
            _ = try await ana.editMessage(m1.id, in: conversation.id, body: "m1, edited")
            _ = try await ana.editMessage(m2.id, in: conversation.id, body: "m2, edited")
            try await harness.waitUntil("both edits are placed") {
                harness.logs.contains(.debug, "message.updated for a message not received yet")
                    && harness.logs.contains(.debug, "message.updated for a parked message")
            }
            try await bot.waitUntilIdle()
            #expect(probe.texts.isEmpty && probe.updates.isEmpty, "nothing before m1")
            await harness.clock.advance(by: .seconds(4))
            try await harness.waitUntilHandled(upTo: m2.seq, in: conversation, by: bot)
            #expect(probe.texts == ["m1, edited", "m2, edited"])
            #expect(probe.updates.isEmpty, "the bot never heard of an edit before its message")
            await bot.stop()
        }
    }

    @Test func anEditOfTheNewestMessageWhoseArrivalWasLostBringsItAfterTheGapFillDelay() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, conversation) = try await Self.botMissingTheNextMessage(in: harness)
            let only = try await harness.say("typo", as: harness.ana, in: conversation)
            _ = try await harness.rest(harness.ana).editMessage(only.id, in: conversation.id, body: "fixed")
            try await harness.waitUntil("the edit is placed") {
                harness.logs.contains(.debug, "message.updated for a message not received yet")
            }
            try await bot.waitUntilIdle()
            await harness.clock.advance(by: .seconds(4))
            try await harness.waitUntilHandled(upTo: only.seq, in: conversation, by: bot)
            #expect(probe.texts == ["fixed"])
            #expect(probe.updates.isEmpty)
            await bot.stop()
        }
    }

    @Test func aMessageDeletedWhileTheBotWasAwayComesWithTheSyncAndReachesNoHandler() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let conversation = try await harness.direct(harness.ana)
            try await harness.inject(.dropSocket)
            try await bot.waitUntil(.reconnecting)
            let taken = try await harness.say("taken back", as: harness.ana, in: conversation)
            _ = try await harness.rest(harness.ana).deleteMessage(taken.id, in: conversation.id)
            let kept = try await harness.say("kept", as: harness.ana, in: conversation)
            await harness.clock.advance(by: .milliseconds(1300))
            try await harness.waitUntilHandled(upTo: kept.seq, in: conversation, by: bot)
            #expect(probe.texts == ["kept"])
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: kept"])
            await bot.stop()
        }
    }

    @Test func aMessageDeletedWhileParkedReachesNoHandlerAndTheRestGoOn() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, conversation) = try await Self.botMissingTheNextMessage(in: harness)
            _ = try await harness.say("m1", as: harness.ana, in: conversation)
            let m2 = try await harness.say("oops", as: harness.ana, in: conversation)
            try await Self.waitUntilParked(m2, in: harness)
            _ = try await harness.rest(harness.ana).deleteMessage(m2.id, in: conversation.id)
            try await harness.waitUntil("the deletion is placed in the parked copy") {
                harness.logs.contains(.debug, "message.updated for a parked message")
            }
            let m3 = try await harness.say("m3", as: harness.ana, in: conversation)
            await harness.clock.advance(by: .seconds(4))
            try await harness.waitUntilHandled(upTo: m3.seq, in: conversation, by: bot)
            #expect(probe.texts == ["m1", "m3"])
            #expect(probe.updates.isEmpty)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: m1", "echo: m3"])
            await bot.stop()
        }
    }

    @Test func removalFromAGroupAndEditsReachTheirHandlers() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            let ana = harness.rest(harness.ana)
            let group = try await ana.createGroup(title: "tea", memberIds: [harness.botty.user.id])
            let question = try await harness.say("milk?", as: harness.ana, in: group)
            try await harness.waitUntil("answered") { try await harness.texts(in: group, from: harness.botty) == ["echo: milk?"] }
            _ = try await ana.editMessage(question.id, in: group.id, body: "milk or lemon?")
            try await harness.waitUntil("the edit reaches onMessageUpdated") { probe.updates.map(\.body) == ["milk or lemon?"] }
            try await ana.removeMember(harness.botty.user.id, from: group.id)
            try await harness.waitUntil("the removal reaches its handler") { probe.conversationsRemoved == [group.id] }
            #expect(probe.conversationsCreated.contains(group.id))
            #expect(probe.texts == ["milk?"])
            await bot.stop()
        }
    }

    /// A reply goes out when its handler returns (its work commits then): typing stays until then, as the seed stops
    /// it when the message is sent.
    @Test func typingStaysShownAfterAReplyWhileTheHandlerStillWorks() async throws {
        try await RuntimeHarness.run { harness in
            let (replied, gate) = (Gate(), Gate())
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                try await context.messaging.setTyping(true, in: message.conversationId)
                try await context.reply(to: message, "first part")
                replied.open()
                await gate.wait()
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("two parts please", as: harness.ana, in: conversation)
            await replied.wait()
            await harness.clock.advance(by: .seconds(3))
            let renewed = harness.clock.now.addingTimeInterval(5)
            try await harness.waitUntil("the bot repeats typing.start after its reply call") {
                await harness.sandbox.hub.typingExpiry(of: harness.botty.user.id, in: conversation.id) == renewed
            }
            #expect(try await harness.texts(in: conversation, from: harness.botty).isEmpty)
            gate.open()
            try await harness.waitUntil("the reply is stored and typing has stopped") {
                let stopped = await harness.sandbox.hub.typingExpiry(of: harness.botty.user.id, in: conversation.id) == nil
                return try await harness.texts(in: conversation, from: harness.botty) == ["first part"] && stopped
            }
            await bot.stop()
        }
    }

    @Test func waitingForAReplysAckSendsItAndStopsTypingThere() async throws {
        try await RuntimeHarness.run { harness in
            let (acknowledged, gate) = (Gate(), Gate())
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                try await context.messaging.setTyping(true, in: message.conversationId)
                _ = try await context.reply(to: message, "looking…").acknowledged()
                acknowledged.open()
                await gate.wait()
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            let (typing, stopWatching) = try await Self.watchTheBotsTyping(in: harness)
            try await harness.say("find it", as: harness.ana, in: conversation)
            await acknowledged.wait()
            try await harness.waitUntil("typing has started and stopped while the handler still works") {
                typing.values == [true, false]
            }
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["looking…"])
            gate.open()
            try await bot.waitUntilIdle()
            await stopWatching()
            await bot.stop()
        }
    }

    /// Ana's own realtime connection, recording each typing indicator of the bot it receives; `stop` closes it.
    static func watchTheBotsTyping(
        in harness: RuntimeHarness
    ) async throws -> (typing: TypingLog, stop: @Sendable () async -> Void) {
        let watcher = try await ChatterRealtimeConnection.connect(
            configuration: harness.sandbox.serverConfiguration, accessToken: harness.ana.session.accessToken,
            options: RealtimeConnectionOptions(clock: harness.clock))
        let typing = TypingLog(changes: harness.changes)
        let bot = harness.botty.user.id
        let reader = Task {
            for await event in watcher.events {
                if case .frame(let frame) = event, case .typing(let indicator) = frame.event, indicator.userId == bot {
                    typing.append(indicator.isTyping)
                }
            }
        }
        return (typing, {
            await watcher.close()
            reader.cancel()
        })
    }

    @Test func typingIsShownWhileTheHandlerWorksAndHiddenWhenItReplies() async throws {
        try await RuntimeHarness.run { harness in
            let gate = Gate()
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                try await context.messaging.setTyping(true, in: message.conversationId)
                await gate.wait()
                try await context.reply(to: message, "there you go")
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            let (typing, stopWatching) = try await Self.watchTheBotsTyping(in: harness)
            try await harness.say("a long answer please", as: harness.ana, in: conversation)
            try await harness.waitUntil("typing is shown") { typing.values == [true] }
            // The service ends typing 5 s after the last typing.start: the bot repeats it every 3 s.
            for _ in 0..<3 {
                await harness.clock.advance(by: .seconds(3))
                let renewed = harness.clock.now.addingTimeInterval(5)
                try await harness.waitUntil("the service has the repeated typing.start") {
                    await harness.sandbox.hub.typingExpiry(of: harness.botty.user.id, in: conversation.id) == renewed
                }
            }
            #expect(typing.values == [true])
            gate.open()
            try await harness.waitUntil("typing is hidden") { typing.values.last == false }
            // Typing stops as the reply goes out, which can be before the service has stored it.
            try await harness.waitUntil("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["there you go"]
            }
            await stopWatching()
            await bot.stop()
        }
    }
}

/// The typing changes a test client saw.
final class TypingLog: Sendable {
    private let recorded = Mutex<[Bool]>([])
    private let changes: ChangeSignal

    init(changes: ChangeSignal) {
        self.changes = changes
    }

    var values: [Bool] { recorded.withLock { $0 } }

    func append(_ value: Bool) {
        recorded.withLock { $0.append(value) }
        changes.signal()
    }
}
