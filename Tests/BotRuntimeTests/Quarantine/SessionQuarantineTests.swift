@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import BotRuntimeTestSupport
import Testing

/// A bot session started with crash suspects in its store (as `CrashRecovery` leaves them after a crash): what it
/// runs, what it sets aside, and when it refuses to start.
@Suite struct SessionQuarantineTests {
    /// Records `keys` in botty's store as work running when the process died, once per listed key.
    func recordCrashes(_ keys: [String], handler: String = "onMessage", in harness: RuntimeHarness) async throws {
        let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
        for key in keys {
            try await store.recordCrashedWork([InFlightTable.Record(
                bot: "botty", handler: handler, trace: "trace-\(key)", key: key, summary: "boom", startedAt: harness.clock.now)])
        }
        await store.close()
    }

    /// Has ana say `text` to botty, recorded as running `crashes` times when the process died.
    func sayCaughtByCrashes(_ text: String, crashes: Int = 1, in harness: RuntimeHarness) async throws -> (Conversation, Message) {
        let conversation = try await harness.direct(harness.ana)
        let message = try await harness.say(text, as: harness.ana, in: conversation)
        try await recordCrashes(Array(repeating: "message:\(message.id.rawValue)", count: crashes), in: harness)
        return (conversation, message)
    }

    /// Starts `script` while another bot's handler runs, with a 1 s handler timeout (moving past it stays short of
    /// the connection's own timeouts); once its suspect waits for that handler to end, moves the clock past that
    /// timeout and ends it.
    func startBehindAnotherHandler(
        _ script: ScriptedBot, in harness: RuntimeHarness, waitUntilLive: Bool = true
    ) async throws -> RunningBot {
        let gate = SuspectGate()
        #expect(gate.enterAsOtherAtOnce())
        let bot = try await harness.start(script, waitUntilLive: waitUntilLive) {
            $0.suspectGate = gate
            $0.handlerTimeout = .seconds(1)
        }
        await gate.waitUntilWaiting(1)
        await harness.clock.advance(by: .seconds(2))
        gate.leaveAsOther()
        return bot
    }

    @Test func aSuspectAtTheLimitIsSetAsideAndTheConversationGoesOnWithTheNextMessage() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let boom = try await harness.say("boom", as: harness.ana, in: conversation)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await recordCrashes(["message:\(boom.id.rawValue)", "message:\(boom.id.rawValue)", "message:\(hello.id.rawValue)"], in: harness)

            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"])
            let entries = try await bot.session.quarantineEntries()
            #expect(entries.map(\.key) == ["message:\(boom.id.rawValue)"])
            #expect(entries.first?.work == .message(boom))
            #expect(await bot.status.quarantined == 1)
            #expect(harness.logs.contains(.error, "quarantined"))
            await bot.stop()

            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashSuspects().isEmpty)
            await store.close()
        }
    }

    @Test func aRetriedEntryIsAnsweredOnceAndLeavesTheQuarantine() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, boom) = try await sayCaughtByCrashes("boom", crashes: 2, in: harness)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntilHandled(upTo: boom.seq, in: conversation, by: bot)
            let entry = try #require(try await bot.session.quarantineEntries().first)
            #expect(try await harness.texts(in: conversation, from: harness.botty).isEmpty)

            #expect(try await bot.session.retryQuarantined(entry.id)?.runsNow == true)
            try await harness.waitUntil("the retried message to be answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: boom"]
            }
            try await bot.waitUntilIdle()
            #expect(try await bot.session.quarantineEntries().isEmpty)
            #expect(try await bot.session.retryQuarantined(entry.id) == nil)
            await bot.stop()
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: boom"])
        }
    }

    /// A retry's handler may commit part of its work (`acknowledged()`) and still crash the process afterwards:
    /// the entry must stay quarantined until the handler's last unit, or a crash then would lose it silently.
    @Test func aRetriedEntryLeavesTheQuarantineWithItsHandlersLastUnitOnly() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, boom) = try await sayCaughtByCrashes("boom", crashes: 2, in: harness)
            let (acknowledged, finish) = (Gate(), Gate())
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                _ = try await context.reply(to: message, "first part").acknowledged()
                acknowledged.open()
                await finish.wait()
            }
            let bot = try await harness.start(script)
            try await harness.waitUntilHandled(upTo: boom.seq, in: conversation, by: bot)
            let entry = try #require(try await bot.session.quarantineEntries().first)

            #expect(try await bot.session.retryQuarantined(entry.id)?.runsNow == true)
            await acknowledged.wait()
            #expect(try await bot.session.quarantineEntries().map(\.id) == [entry.id], "a crash now must find it quarantined")
            finish.open()
            try await bot.waitUntilIdle()
            #expect(try await bot.session.quarantineEntries().isEmpty)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["first part"])
            await bot.stop()
        }
    }

    @Test func askingTwiceForARetryRunsTheHandlerOnce() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, boom) = try await sayCaughtByCrashes("boom", crashes: 2, in: harness)
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            try await harness.waitUntilHandled(upTo: boom.seq, in: conversation, by: bot)
            let entry = try #require(try await bot.session.quarantineEntries().first)

            async let first = bot.session.retryQuarantined(entry.id)
            async let second = bot.session.retryQuarantined(entry.id)
            _ = try await (first, second)
            try await harness.waitUntil("the retried message to be answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: boom"]
            }
            try await bot.waitUntilIdle()
            #expect(probe.texts.filter { $0 == "boom" }.count == 1)
            #expect(try await bot.session.quarantineEntries().isEmpty)
            await bot.stop()
        }
    }

    @Test func droppingAnEntryOfAStoppedBotLowersItsQuarantinedCount() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, boom) = try await sayCaughtByCrashes("boom", crashes: 2, in: harness)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntilHandled(upTo: boom.seq, in: conversation, by: bot)
            await bot.stop()
            #expect(await bot.status.quarantined == 1)
            let entry = try #require(try await bot.session.quarantineEntries().first)
            #expect(try await bot.session.dropQuarantined(entry.id))
            #expect(await bot.status.quarantined == 0)
        }
    }

    @Test func aRetriedEntryThatRanIsNoLongerCountedInTheBotsStatus() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, boom) = try await sayCaughtByCrashes("boom", crashes: 2, in: harness)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntilHandled(upTo: boom.seq, in: conversation, by: bot)
            let entry = try #require(try await bot.session.quarantineEntries().first)
            #expect(await bot.status.quarantined == 1)

            #expect(try await bot.session.retryQuarantined(entry.id)?.runsNow == true)
            try await bot.waitUntilIdle()
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: boom"])
            #expect(await bot.status.quarantined == 0)
            await bot.stop()
        }
    }

    /// A pending friend request comes again with every sync: once quarantined, it is passed over, not run again
    /// (which would crash the process at every reconnect).
    @Test func aQuarantinedFriendRequestIsPassedOverWhenTheSyncBringsItAgain() async throws {
        try await RuntimeHarness.run { harness in
            let request = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            let key = "friend-request:\(request.id.rawValue)"
            try await recordCrashes([key, key], handler: "onFriendRequest", in: harness)
            var script = ScriptedBot(probe: BotProbe())
            script.friendRequestDecision = .ignore
            let first = try await harness.start(script)
            try await first.waitUntilIdle()
            #expect(try await first.session.quarantineEntries().map(\.key) == [key])
            await first.stop()

            let probe = BotProbe()
            var again = ScriptedBot(probe: probe)
            again.friendRequestDecision = .ignore
            let second = try await harness.start(again)
            try await second.waitUntilIdle()
            #expect(probe.friendRequests.isEmpty)
            #expect(try await second.session.quarantineEntries().map(\.key) == [key])
            #expect(harness.logs.contains(.notice, "onFriendRequest passed over"))
            await second.stop()
        }
    }

    /// The presence snapshot comes at every connect under one key: once quarantined, later snapshots are passed over.
    @Test func aQuarantinedPresenceSnapshotIsPassedOverAtLaterConnects() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["presence-snapshot", "presence-snapshot"], handler: "onPresenceSnapshot", in: harness)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await first.waitUntilIdle()
            #expect(try await first.session.quarantineEntries().map(\.key) == ["presence-snapshot"])
            await first.stop()

            let probe = BotProbe()
            let second = try await harness.start(ScriptedBot(probe: probe))
            try await second.waitUntilIdle()
            #expect(probe.presenceSnapshots == 0)
            #expect(try await second.session.quarantineEntries().count == 1)
            await second.stop()
        }
    }

    /// Dropping an entry forgets it: the same work, come again, runs as usual.
    @Test func aDroppedFriendRequestRunsWhenTheSyncBringsItAgain() async throws {
        try await RuntimeHarness.run { harness in
            let request = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            let key = "friend-request:\(request.id.rawValue)"
            try await recordCrashes([key, key], handler: "onFriendRequest", in: harness)
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            script.friendRequestDecision = .ignore
            let first = try await harness.start(script)
            try await first.waitUntilIdle()
            let entry = try #require(try await first.session.quarantineEntries().first)
            #expect(try await first.session.dropQuarantined(entry.id))
            await first.stop()
            #expect(probe.friendRequests.isEmpty)

            let second = try await harness.start(script)
            try await second.waitUntilIdle()
            #expect(probe.friendRequests.map(\.id) == [request.id])
            await second.stop()
        }
    }

    /// A suspect still waiting for another bot's handler when its session stops does not run: it stays suspect for
    /// the next start, and the gate goes to the next in line (here, nobody).
    @Test func aSuspectWaitingItsTurnWhenItsBotStopsDoesNotRunAfterTheStop() async throws {
        try await RuntimeHarness.run { harness in
            let (_, hello) = try await sayCaughtByCrashes("hello", in: harness)
            let gate = SuspectGate()
            #expect(gate.enterAsOtherAtOnce())
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe)) { $0.suspectGate = gate }
            await gate.waitUntilWaiting(1)
            let stopped = Task { await bot.stop(deadline: .seconds(1)) }
            try await bot.waitUntil(.stopping)
            await harness.clock.advance(by: .seconds(2))
            _ = await stopped.value

            gate.leaveAsOther()
            try await harness.waitUntil("the gate to be free") { gate.isFree }
            #expect(probe.texts.isEmpty)
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashSuspects().map(\.key) == ["message:\(hello.id.rawValue)"])
            await store.close()
        }
    }

    @Test func aRetryAskedForWhileTheBotWasStoppedRunsAtItsNextStart() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, boom) = try await sayCaughtByCrashes("boom", crashes: 2, in: harness)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntilHandled(upTo: boom.seq, in: conversation, by: first)
            await first.stop()
            let entry = try #require(try await first.session.quarantineEntries().first)
            #expect(try await first.session.retryQuarantined(entry.id)?.runsNow == false)

            let second = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntil("the retried message to be answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: boom"]
            }
            try await second.waitUntilIdle()
            #expect(try await second.session.quarantineEntries().isEmpty)
            await second.stop()
        }
    }

    /// A suspect runs with nothing else running in the process; its handler timeout counts from its turn, so one
    /// that waited long behind another bot's handler is answered, not passed over as timed out.
    @Test func aSuspectWaitingItsTurnLongerThanTheHandlerTimeoutIsStillAnswered() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, hello) = try await sayCaughtByCrashes("hello", in: harness)
            let bot = try await startBehindAnotherHandler(ScriptedBot(probe: BotProbe()), in: harness)
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"])
            #expect(!harness.logs.contains(.error, "did not return within"))
            await bot.stop()
        }
    }

    /// While another bot's suspect has its turn nothing else runs; waiting for it is not running, so a message that
    /// waited longer than the handler timeout is answered, not passed over as timed out.
    @Test func aHandlerWaitingForAnotherBotsSuspectLongerThanItsTimeoutIsStillAnswered() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let gate = SuspectGate()
            let bot = try await harness.start(ScriptedBot(probe: BotProbe())) {
                $0.suspectGate = gate
                $0.handlerTimeout = .seconds(1)
            }
            try await bot.waitUntilIdle()
            #expect(await gate.enter())
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            await gate.waitUntilOthersWaiting(1)
            await harness.clock.advance(by: .seconds(2))
            gate.leave()
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"])
            #expect(!harness.logs.contains(.error, "did not return within"))
            await bot.stop()
        }
    }

    /// An `onStart` waiting for another bot's suspect when its bot stops never runs: the stop ends its wait.
    @Test func anOnStartWaitingForAnotherBotsSuspectWhenItsBotStopsDoesNotRunAfterTheStop() async throws {
        try await RuntimeHarness.run { harness in
            let gate = SuspectGate()
            #expect(await gate.enter())
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe), waitUntilLive: false) { $0.suspectGate = gate }
            await gate.waitUntilOthersWaiting(1)
            let stopped = Task { await bot.stop(deadline: .seconds(1)) }
            try await bot.waitUntil(.stopping)
            await harness.clock.advance(by: .seconds(2))
            _ = await stopped.value

            gate.leave()
            #expect(gate.othersRunning == 0, "nothing waited for the gate any more")
            #expect(probe.starts == 0)
        }
    }

    @Test func anOnStartSuspectWaitingItsTurnLongerThanItsTimeoutStillRuns() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["onStart"], handler: "onStart", in: harness)
            let started = Gate()
            var script = ScriptedBot(probe: BotProbe())
            script.onStartScript = { _ in started.open() }
            let bot = try await startBehindAnotherHandler(script, in: harness, waitUntilLive: false)
            await started.wait()
            try await bot.waitUntilLive(harness)
            #expect(!harness.logs.contains(.error, "onStart did not return within"))
            await bot.stop()
        }
    }

    @Test func anOnStartSuspectThatRunsUntilItsTimeoutIsNoLongerSuspected() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["onStart"], handler: "onStart", in: harness)
            let started = Gate()
            var script = ScriptedBot(probe: BotProbe())
            let (never, keptOpen) = AsyncStream.makeStream(of: Void.self)
            script.onStartScript = { _ in
                started.open()
                // Runs until cancelled: its timeout cancels it.
                for await _ in never {}
                withExtendedLifetime(keptOpen) {}
            }
            let bot = try await harness.start(script, waitUntilLive: false) { $0.handlerTimeout = .seconds(1) }
            await started.wait()
            await harness.clock.advance(by: .seconds(2))
            // The timeout cancels it; it returns, and is cleared then.
            try await harness.waitUntil("the suspect to be cleared") {
                harness.logs.contains(.info, "no longer suspected")
            }
            #expect(harness.logs.contains(.error, "onStart did not return within"))
            await bot.stop()
        }
    }

    /// Starts botty with an `onStart` caught by one crash that ignores its cancellation until `release` opens, a 1 s
    /// handler timeout, and `gate` and `table` as the process's; returns once its code runs and its timeout gave up
    /// on it (the clock moved 1 s).
    func startOnStartSuspectPastItsTimeout(
        release: Gate, gate: SuspectGate, table: InFlightTable? = nil, in harness: RuntimeHarness
    ) async throws -> RunningBot {
        try await recordCrashes(["onStart"], handler: "onStart", in: harness)
        let started = Gate()
        var script = ScriptedBot(probe: BotProbe())
        script.onStartScript = { _ in
            started.open()
            await release.wait()
        }
        let bot = try await harness.start(script, waitUntilLive: false) {
            $0.handlerTimeout = .seconds(1)
            $0.suspectGate = gate
            $0.inFlightTable = table
        }
        await started.wait()
        await harness.clock.advance(by: .seconds(1))
        try await harness.waitUntil("onStart's timeout") { harness.logs.contains(.error, "onStart did not return within") }
        return bot
    }

    /// Stops `bot` with a deadline longer than the grace, without moving the clock: the stop ends the grace at once.
    func stopDuringTheGrace(_ bot: RunningBot, in harness: RuntimeHarness) async throws {
        let stopped = Task { await bot.stop(deadline: .seconds(30)) }
        #expect(try await value(of: stopped, within: .hangGuard, "the session to stop") == .shutdown)
    }

    /// A death just after a suspect's timeout is still most likely its own: it keeps the process to itself for the
    /// grace after its timeout, so that nothing innocent is blamed with it.
    @Test func aSuspectPastItsTimeoutKeepsItsTurnAloneDuringTheGrace() async throws {
        try await RuntimeHarness.run { harness in
            let (release, gate) = (Gate(), SuspectGate())
            let bot = try await startOnStartSuspectPastItsTimeout(release: release, gate: gate, in: harness)
            #expect(gate.isHeld)
            #expect(!gate.enterAsOtherAtOnce(), "no other handler of the process starts")
            #expect(!harness.logs.contains(.info, "no longer suspected"))
            try await stopDuringTheGrace(bot, in: harness)
            release.open()
        }
    }

    /// A suspect whose code never returns is cleared once the grace after its timeout is over: it ran that long
    /// without the process dying, and later deaths it did not cause are not counted against it.
    @Test func aSuspectThatNeverReturnsIsNoLongerSuspectedOnceTheGraceAfterItsTimeoutIsOver() async throws {
        try await RuntimeHarness.run { harness in
            let table = try InFlightTable(directory: URL(fileURLWithPath: harness.directory.path, isDirectory: true), capacity: 16)
            let (release, gate) = (Gate(), SuspectGate())
            let bot = try await startOnStartSuspectPastItsTimeout(release: release, gate: gate, table: table, in: harness)
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("the suspect to be cleared") { harness.logs.contains(.info, "no longer suspected") }
            #expect(!gate.isHeld)
            #expect(table.running.map(\.key) == ["onStart"], "its code still runs")
            try await bot.waitUntilLive(harness)
            await bot.stop()

            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.isEmpty)
            await store.close()
            release.open()
        }
    }

    /// A shutdown during a suspect's grace ends the grace at once: nothing is left to protect once the session
    /// stops, so its drain (a message waiting for the suspect's turn to end) waits neither for the grace's end nor
    /// for the shutdown's deadline, and the fleet runs again.
    @Test func aShutdownDuringASuspectsGraceCompletesWithoutWaitingForTheGrace() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("hello", as: harness.ana, in: conversation)
            let (release, gate) = (Gate(), SuspectGate())
            let bot = try await startOnStartSuspectPastItsTimeout(release: release, gate: gate, in: harness)
            await gate.waitUntilOthersWaiting(1)
            #expect(gate.isHeld)
            let graceBegan = harness.clock.now
            try await stopDuringTheGrace(bot, in: harness)
            #expect(harness.clock.now == graceBegan, "the clock did not move")
            #expect(gate.isFree)
            #expect(gate.enterAsOtherAtOnce(), "the other handlers of the process run again")
            gate.leaveAsOther()
            release.open()
        }
    }

    /// A stop during a suspect's grace ends its turn; it stays suspected for the next start, and its code returning
    /// afterwards changes nothing.
    @Test func aSuspectWhoseSessionStopsDuringItsGraceStaysSuspectedThoughItsCodeReturnsLater() async throws {
        try await RuntimeHarness.run { harness in
            let (release, gate) = (Gate(), SuspectGate())
            let bot = try await startOnStartSuspectPastItsTimeout(release: release, gate: gate, in: harness)
            try await stopDuringTheGrace(bot, in: harness)
            #expect(gate.isFree)
            release.open()
            try await harness.waitUntil("its code to return") { harness.logs.contains(.info, "returned after its session stopped") }
            #expect(!harness.logs.contains(.warning, "could not clear the crash suspect"))
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.map(\.key) == ["onStart"])
            await store.close()
        }
    }

    /// A pass that comes once the session has closed its quarantine (its store about to close, or closed) records
    /// nothing and logs no failed write: the suspect stays for the next start.
    @Test func aPassAfterTheSessionClosedRecordsNothingAndLogsNoFailure() async throws {
        let (clock, directory, logs) = (ManualClock(), try StoreDirectory(), LogCollector())
        let path = directory.file("botty.sqlite")
        let created = try await BotStore.open(path: path, clock: clock)
        try await created.recordCrashedWork([InFlightTable.Record(
            bot: "botty", handler: "onStart", trace: "trace-onStart", key: "onStart", summary: "", startedAt: clock.now)])
        await created.close()
        let store = try await BotStore.open(path: path, clock: clock)
        let timers = DeadlineScheduler<SessionDeadline>(clock: clock)
        defer { timers.stop() }
        let quarantine = SessionQuarantine(
            bot: "botty", settings: .default, table: nil, gate: SuspectGate(), store: store,
            dispatcher: HandlerDispatcher(maxConcurrent: 1, timeout: .seconds(1), clock: clock, timers: timers),
            clock: clock, timers: timers, handlerTimeout: .seconds(1),
            log: SessionLog(sink: logs.sink, bot: "botty", clock: clock), metrics: SessionMetrics(clock: clock)
        ) { _ in }
        _ = try await quarantine.load()
        quarantine.close()
        await store.close()

        await quarantine.passed("onStart")
        #expect(!logs.contains(.warning, "could not clear the crash suspect"))
        let reopened = try await BotStore.open(path: path, clock: clock)
        #expect(try await reopened.crashRecord().suspects.map(\.key) == ["onStart"])
        await reopened.close()
    }

    /// An `onReady` given up at its timeout leaves its bot idle while its code still runs: the probation's end keeps
    /// it suspected during its grace, since a death then is still its own.
    @Test func aSuspectInTheGraceAfterItsTimeoutStaysSuspectedThroughTheProbationsEnd() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["onReady"], handler: "onReady", in: harness)
            let table = try InFlightTable(directory: URL(fileURLWithPath: harness.directory.path, isDirectory: true), capacity: 16)
            let (started, release) = (Gate(), Gate())
            var script = ScriptedBot(probe: BotProbe())
            // Ignores its cancellation until the test releases it.
            script.onReadyScript = { _ in
                started.open()
                await release.wait()
            }
            let bot = try await harness.start(script, waitUntilLive: false) {
                $0.handlerTimeout = .seconds(1)
                $0.inFlightTable = table
            }
            await started.wait()
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("the probation's end") { harness.logs.contains(.info, "probation over") }
            #expect(!harness.logs.contains(.info, "no longer suspected"))
            #expect(!harness.logs.contains(.info, "did not come back"))
            #expect(table.running.map(\.key) == ["onReady"])
            await bot.stop()

            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.map(\.key) == ["onReady"])
            await store.close()
            release.open()
        }
    }

    /// Which suspects still run is the session's own knowledge, read under its lock: it needs no in-flight table.
    @Test func aSuspectInItsGraceStaysSuspectedThroughTheProbationsEndWithoutAnInFlightTable() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["onReady"], handler: "onReady", in: harness)
            let (started, release) = (Gate(), Gate())
            var script = ScriptedBot(probe: BotProbe())
            script.onReadyScript = { _ in
                started.open()
                await release.wait()
            }
            let bot = try await harness.start(script, waitUntilLive: false) { $0.handlerTimeout = .seconds(1) }
            await started.wait()
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("the probation's end") { harness.logs.contains(.info, "probation over") }
            #expect(!harness.logs.contains(.info, "did not come back"))
            await bot.stop()

            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.map(\.key) == ["onReady"])
            await store.close()
            release.open()
        }
    }

    @Test func aSuspectThatRunsToItsEndIsClearedAndAnsweredOnce() async throws {
        try await RuntimeHarness.run { harness in
            let (conversation, hello) = try await sayCaughtByCrashes("hello", in: harness)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: bot)
            #expect(try await harness.texts(in: conversation, from: harness.botty) == ["echo: hello"])
            #expect(try await bot.session.quarantineEntries().isEmpty)
            try await harness.waitUntil("the probation to end") {
                harness.logs.contains(.info, "probation over")
            }
            await bot.stop()
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashSuspects().isEmpty)
            await store.close()
        }
    }

    @Test func aStopWhileASuspectRunsEndsNoProbationAndKeepsTheSuspect() async throws {
        try await RuntimeHarness.run { harness in
            let (_, slow) = try await sayCaughtByCrashes("slow", in: harness)
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            // The suspect runs until the stop cancels it: never handled, it stays a suspect for the next start.
            script.onMessageScript = { _, _ in
                let (never, _) = AsyncStream<Void>.makeStream()
                for await _ in never {}
                try Task.checkCancellation()
            }
            let bot = try await harness.start(script)
            try await harness.waitUntil("the suspect to run") { probe.texts.contains("slow") }
            let stopped = Task { await bot.stop(deadline: .seconds(1)) }
            try await bot.waitUntil(.stopping)  // the shutdown waits for the handler until its deadline
            await harness.clock.advance(by: .seconds(2))
            #expect(try await value(of: stopped, within: .hangGuard, "the session to stop") == .shutdown)
            #expect(!harness.logs.contains(.info, "probation over"))
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashSuspects().map(\.key) == ["message:\(slow.id.rawValue)"])
            await store.close()
        }
    }

    @Test func anOnStartThatCrashedTheProcessAtTheLimitStopsTheBotAsCrashing() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["onStart", "onStart"], handler: "onStart", in: harness)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false)
            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop")
            guard case .crashing(let text) = reason else {
                Issue.record("stopped with \(reason)")
                return
            }
            #expect(text.contains("onStart crashed the process 2 times"))
            #expect(await bot.status.state == .crashing)
            #expect(try await bot.session.quarantineEntries().map(\.key) == ["onStart"])
        }
    }

    /// How many times a kind made its bot.
    final class MakeCount: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }

        /// A kind whose `make` counts its calls here and makes a scripted bot.
        var kind: BotKind {
            BotKind("counted") { [self] _ in
                count.withLock { $0 += 1 }
                return ScriptedBot(probe: BotProbe())
            }
        }
    }

    @Test func aBotsMakeIsMarkedInFlightAsItsWorkMakeWhileItRuns() async throws {
        try await RuntimeHarness.run { harness in
            let table = try InFlightTable(directory: URL(fileURLWithPath: harness.directory.path, isDirectory: true), capacity: 16)
            let seen = Mutex<[InFlightTable.Record]>([])
            let kind = BotKind("watched") { _ in
                seen.withLock { $0 = table.running }
                return ScriptedBot(probe: BotProbe())
            }
            let bot = try await harness.start(madeBy: kind) { $0.inFlightTable = table }
            let records = seen.withLock { $0 }
            #expect(records.map(\.bot) == ["botty"])
            #expect(records.map(\.key) == ["make"])
            #expect(records.map(\.handler) == ["make"])
            #expect(!table.running.contains { $0.key == "make" }, "unmarked once made")
            await bot.stop()
        }
    }

    @Test func aShutdownWhileTheBotWaitsItsTurnToBeMadeEndsTheSessionWithoutMakingIt() async throws {
        try await RuntimeHarness.run { harness in
            let gate = SuspectGate()
            #expect(await gate.enter(), "another bot's suspect has its turn")
            let made = MakeCount()
            let bot = try await harness.start(madeBy: made.kind, waitUntilLive: false) { $0.suspectGate = gate }
            await gate.waitUntilOthersWaiting(1)
            #expect(await bot.stop(deadline: .seconds(1)) == .shutdown)
            gate.leave()
            #expect(gate.othersRunning == 0, "nothing waits at the gate any more")
            #expect(made.value == 0)
        }
    }

    @Test func aKindThatRefusesItsOptionsStopsTheBotWithAConfigurationErrorBeforeItSignsIn() async throws {
        try await RuntimeHarness.run { harness in
            let bot = try await harness.start(
                madeBy: GreetingBot.kind, options: try BotOptions(encoding: ["greeting": 3]), waitUntilLive: false)
            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop")
            guard case .configurationError(let text) = reason else {
                Issue.record("stopped with \(reason)")
                return
            }
            #expect(text.contains(#"bot "botty", options.greeting: must be a string (kind "greeting")"#), "\(text)")
            #expect(try await harness.sandbox.service.devices(ofUsers: [harness.botty.user.id]).count == 1, "only the seeded device")
        }
    }

    @Test func aMakeThatCrashedTheProcessBeforeRunsAloneThenIsNoLongerSuspected() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["make"], handler: "make", in: harness)
            let made = MakeCount()
            let gate = SuspectGate()
            #expect(gate.enterAsOtherAtOnce())
            let bot = try await harness.start(madeBy: made.kind, waitUntilLive: false) { $0.suspectGate = gate }
            await gate.waitUntilWaiting(1)
            #expect(made.value == 0, "it waits for the other handler to end")
            gate.leaveAsOther()
            try await bot.waitUntilLive(harness)
            #expect(made.value == 1)
            #expect(harness.logs.contains(.notice, "making the bot alone"))
            #expect(harness.logs.contains(.info, "no longer suspected"))
            await bot.stop()
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.isEmpty)
            await store.close()
        }
    }

    @Test func aMakeThatCrashedTheProcessAtTheLimitStopsTheBotAsCrashingWithoutMakingIt() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["make", "make"], handler: "make", in: harness)
            let made = MakeCount()
            let bot = try await harness.start(madeBy: made.kind, waitUntilLive: false)
            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop")
            guard case .crashing(let text) = reason else {
                Issue.record("stopped with \(reason)")
                return
            }
            #expect(text.contains("make crashed the process 2 times"), "\(text)")
            #expect(made.value == 0)
            #expect(try await bot.session.quarantineEntries().map(\.key) == ["make"])
        }
    }

    @Test func aQuarantinedMakeRetriedAfterTheFixMakesTheBotAtItsNextStartAndLeavesTheQuarantine() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["make", "make"], handler: "make", in: harness)
            let made = MakeCount()
            let stopped = try await harness.start(madeBy: made.kind, waitUntilLive: false)
            _ = try await value(of: stopped.task, within: .hangGuard, "the bot to stop")
            let entry = try #require(try await stopped.session.quarantineEntries().first)
            #expect(try await stopped.session.retryQuarantined(entry.id)?.runsNow == false)

            let bot = try await harness.start(madeBy: made.kind)
            #expect(made.value == 1)
            try await harness.waitUntil("the entry to leave the quarantine") {
                harness.logs.contains(.notice, "ran at this start: it leaves the quarantine")
            }
            #expect(try await bot.session.quarantineEntries().isEmpty)
            await bot.stop()
        }
    }

    /// A kind whose `make` blocks its thread (it calls no `await`) until `finish()`, after opening `started`.
    final class BlockingMake: Sendable {
        let started = Gate()
        private let release = DispatchSemaphore(value: 0)

        var kind: BotKind {
            BotKind("stuck") { [self] _ in
                started.open()
                release.wait()
                return ScriptedBot(probe: BotProbe())
            }
        }

        func finish() {
            release.signal()
        }
    }

    /// A `make` that blocks runs on a thread of its own (the session's timers, on its event loop, still run): the
    /// handler timeout gives up on it, the bot stops saying so, and its share of the gate is given back; it stays
    /// marked in flight while it runs, so that a make that kills the process late is still blamed.
    @Test func aMakeThatDoesNotReturnWithinTheHandlerTimeoutStopsTheBotSayingSo() async throws {
        try await RuntimeHarness.run { harness in
            let table = try InFlightTable(directory: URL(fileURLWithPath: harness.directory.path, isDirectory: true), capacity: 16)
            let (gate, make) = (SuspectGate(), BlockingMake())
            defer { make.finish() }
            let bot = try await harness.start(madeBy: make.kind, waitUntilLive: false) {
                $0.handlerTimeout = .seconds(1)
                $0.suspectGate = gate
                $0.inFlightTable = table
            }
            await make.started.wait()
            await harness.clock.advance(by: .seconds(1))
            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop")
            guard case .configurationError(let text) = reason else {
                Issue.record("stopped with \(reason)")
                return
            }
            #expect(text.contains(#"kind "stuck" did not make the bot within 1.0 seconds"#), "\(text)")
            #expect(await bot.status.state == .stopped)
            #expect(gate.othersRunning == 0, "its share of the gate is given back")
            #expect(table.running.map(\.key) == ["make"], "it still runs")
        }
    }

    /// A `make` suspect that returns during the grace after its timeout is no longer suspected, but its bot does not
    /// start, as for any make past its timeout: the grace is there to blame a death, not to give more time. The bot
    /// says its make returned late, so that a reload makes it again.
    @Test func aMakeSuspectThatReturnsDuringItsGraceIsClearedButItsBotDoesNotStart() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["make"], handler: "make", in: harness)
            let (gate, make) = (SuspectGate(), BlockingMake())
            let bot = try await harness.start(madeBy: make.kind, waitUntilLive: false) {
                $0.handlerTimeout = .seconds(1)
                $0.suspectGate = gate
            }
            await make.started.wait()
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("make's timeout") { harness.logs.contains(.error, "make did not return within") }
            make.finish()

            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop")
            #expect(reason == .configurationError(
                BotMaking.TimedOut(kind: "stuck", timeout: .seconds(1), returnedLate: true).description))
            #expect(gate.isFree)
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.isEmpty)
            await store.close()
        }
    }

    /// A `make` suspect past its timeout keeps the process to itself for the grace after it, then is no longer
    /// suspected though it never returned, and the bot stops as a `make` that did not return does.
    @Test func aMakeSuspectPastItsTimeoutKeepsItsTurnAloneForTheGraceThenIsNoLongerSuspected() async throws {
        try await RuntimeHarness.run { harness in
            try await recordCrashes(["make"], handler: "make", in: harness)
            let (gate, make) = (SuspectGate(), BlockingMake())
            defer { make.finish() }
            let bot = try await harness.start(madeBy: make.kind, waitUntilLive: false) {
                $0.handlerTimeout = .seconds(1)
                $0.suspectGate = gate
            }
            await make.started.wait()
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("make's timeout") { harness.logs.contains(.error, "make did not return within") }
            #expect(gate.isHeld)
            #expect(await bot.status.state == .starting)

            await harness.clock.advance(by: .seconds(1))
            let reason = try await value(of: bot.task, within: .hangGuard, "the bot to stop")
            #expect(reason.description.contains("did not make the bot within 1.0 seconds"), "\(reason)")
            #expect(gate.isFree)
            #expect(harness.logs.contains(.info, "no longer suspected"))
            let store = try await BotStore.open(path: harness.directory.file("botty.sqlite"), clock: harness.clock)
            #expect(try await store.crashRecord().suspects.isEmpty)
            await store.close()
        }
    }
}
