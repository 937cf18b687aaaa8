import BotRuntime
import ChatterBots
import ChatterBotsCLI
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// `CrashTestBots run` as a process with its embedded sandbox and its data on disk, so that the sandbox dies with
/// it: killed by its bots' own bugs (a trap in a handler or a job, memory without bound) and by SIGKILL, then
/// started again. What keeps crashing it is quarantined after `quarantine.attempts` deaths, innocent work is
/// answered exactly once, and the other bot answers throughout. The stores are read after the process exited.
@Suite("Crashes and the quarantine, as a process", .serialized)
struct CrashQuarantineProcessTests {
    typealias BotLine = CrashTestBotsFixture.BotLine

    static let attempts = QuarantineSettings.default.attempts
    static let poisonOnBoom = [BotLine(name: "poison", options: #"{"trapOn": "boom"}"#), BotLine(name: "healthy", options: "{}")]
    static let innocents = ["poison": ["p1", "p2", "p3", "p4"], "healthy": ["h1", "h2", "h3", "h4", "h5", "h6"]]

    /// The crash report's line for `bot` running `handler`, which the signal handler writes to standard error before
    /// and after the Swift runtime's backtrace.
    static func crashReport(_ signal: Int32, bot: String, handler: String) -> String {
        "chatterbots: the process died on signal \(signal) while bot \(bot) ran \(handler) (trace "
    }

    /// "boom" and the innocent messages go to the bots at once; the process dies on "boom", dies at most N−1 more
    /// times, then stays up with "boom" quarantined and both bots answering. Returns the run that stayed up.
    static func crashOnBoom(_ fixture: CrashTestBotsFixture, _ correspondence: Correspondence) async throws -> CrashTestRun {
        try fixture.configure(poisonOnBoom)
        let first = try fixture.launch("boom")
        let alice = try await Alice.signIn(to: first, bots: ["poison", "healthy"], correspondence: correspondence)
        try #require(await first.waitUntilLive(["poison", "healthy"]), "\(first.process.errors)")
        // Posts cut off by the death are posted again after the restart.
        await withTaskGroup(of: Void.self) { group in
            for (bot, texts) in innocents {
                for text in texts { group.addTask { try? await alice.say(text, to: bot) } }
            }
            group.addTask { try? await alice.say("boom", to: "poison") }
        }
        let death = await first.death()
        #expect(death.exit == .signal(SIGILL), "\(death.errors)")
        #expect(death.saysItDied(onSignal: SIGILL), "\(death.errors.suffix(2000))")
        #expect(death.errors.contains(crashReport(SIGILL, bot: "poison", handler: "onMessage")), "\(death.errors.suffix(2000))")

        let (deaths, steady) = try await fixture.restartUntilSteady("boom-restarted", maxDeaths: attempts - 1) { run, _ in
            !run.quarantinedSummaries("poison").isEmpty
        }
        #expect(deaths.count <= attempts - 1)
        #expect(deaths.allSatisfy { $0.exit == .signal(SIGILL) }, "\(deaths.map(\.errors))")
        #expect(steady.quarantinedSummaries("poison") == ["boom"], "\(steady.process.errors)")

        let again = try await Alice.signIn(to: steady, bots: ["poison", "healthy"], correspondence: correspondence)
        try await again.postUnposted()
        try await again.say("after", to: "poison")
        try await again.say("after", to: "healthy")
        let expected = innocents.mapValues { ($0 + ["after"]).map { "echo: \($0)" } }
        #expect(await again.waitForReplies(expected), "\(steady.process.errors)")
        for (bot, replies) in expected {
            #expect(correspondence.replies(from: bot).sorted() == replies.sorted(), "\(bot)")
        }
        return steady
    }

    @Test func aMessageThatTrapsIsQuarantinedAfterNCrashesAndEveryInnocentMessageIsAnsweredOnce() async throws {
        let fixture = try CrashTestBotsFixture()
        let steady = try await Self.crashOnBoom(fixture, Correspondence())
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")

        let poison = try await fixture.withStore(of: "poison") { try await $0.quarantined() }
        #expect(poison.map(\.summary) == ["boom"])
        #expect(poison.map(\.handler) == ["onMessage"])
        #expect(poison.map(\.attempts) == [Self.attempts])
        #expect(try await fixture.withStore(of: "healthy") { try await $0.quarantined() }.isEmpty)
    }

    @Test func aQuarantinedMessageRetriedAfterTheFixIsAnsweredOnceAndLeavesTheQuarantine() async throws {
        let fixture = try CrashTestBotsFixture()
        let correspondence = Correspondence()
        let steady = try await Self.crashOnBoom(fixture, correspondence)
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")

        try fixture.configure([BotLine(name: "poison", options: "{}"), BotLine(name: "healthy", options: "{}")])
        let asked = try await fixture.withStore(of: "poison") { store in
            let entry = try #require(try await store.quarantined().first)
            return try await store.requestRetry(of: entry.id)
        }
        #expect(asked?.summary == "boom")

        let fixed = try fixture.launch("fixed")
        let alice = try await Alice.signIn(to: fixed, bots: ["poison", "healthy"], correspondence: correspondence)
        #expect(await alice.waitForReplies(["poison": ["echo: boom"]]), "\(fixed.process.errors)")
        try await alice.say("after the fix", to: "poison")
        #expect(await alice.waitForReplies(["poison": ["echo: after the fix"]]), "\(fixed.process.errors)")
        #expect(correspondence.count("echo: boom", from: "poison") == 1)
        #expect(await fixed.stop() == .code(0), "\(fixed.process.errors)")
        #expect(try await fixture.withStore(of: "poison") { try await $0.quarantined() }.isEmpty)
    }

    /// A retry asked for before the bug is fixed crashes the process once more; the next start leaves the entry
    /// quarantined without its request, instead of retrying it (and dying) at every start.
    @Test func aRetryThatCrashesTheProcessAgainLeavesTheEntryQuarantinedAndTheNextStartStaysUp() async throws {
        let fixture = try CrashTestBotsFixture()
        let steady = try await Self.crashOnBoom(fixture, Correspondence())
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")
        let asked = try await fixture.withStore(of: "poison") { store in
            let entry = try #require(try await store.quarantined().first)
            return try await store.requestRetry(of: entry.id)
        }
        #expect(asked?.summary == "boom")

        let retried = try fixture.launch("retried-unfixed")
        let death = await retried.death()
        #expect(death.exit == .signal(SIGILL), "\(death.errors)")
        #expect(death.errors.contains(Self.crashReport(SIGILL, bot: "poison", handler: "onMessage")), "\(death.errors.suffix(2000))")

        let next = try fixture.launch("after-the-crashed-retry")
        #expect(await next.waitUntilLive(["poison", "healthy"]), "\(next.process.errors)")
        #expect(next.process.errors.contains("the retry of a quarantined onMessage crashed the process again"))
        #expect(await next.stop() == .code(0), "\(next.process.errors)")
        let entries = try await fixture.withStore(of: "poison") { try await $0.quarantined() }
        #expect(entries.map(\.summary) == ["boom"])
        #expect(entries.map(\.retryRequested) == [false])
    }

    /// The in-flight table is for crashes: a handler still running when the process ends on its own (here one that
    /// ignores its cancellation past the shutdown timeout) did not crash it, and is no suspect at the next start.
    @Test func aHandlerStillRunningWhenTheProcessEndsOnItsOwnIsNoCrashSuspectAtTheNextStart() async throws {
        let fixture = try CrashTestBotsFixture()
        try fixture.configure([BotLine(name: "stuck", options: #"{"hangOn": "wait"}"#)])
        let first = try fixture.launch("stuck", arguments: ["--shutdown-timeout", "1"])
        let alice = try await Alice.signIn(to: first, bots: ["stuck"], correspondence: Correspondence())
        try #require(await first.waitUntilLive(["stuck"]), "\(first.process.errors)")
        try await alice.say("wait", to: "stuck")
        #expect(await eventually { first.process.errors.contains("about to hang on wait") }, "\(first.process.errors)")
        #expect(await first.stop() == .code(0), "\(first.process.errors)")

        let second = try fixture.launch("after-the-orderly-exit", arguments: ["--shutdown-timeout", "1"])
        #expect(await second.waitUntilLive(["stuck"]), "\(second.process.errors)")
        _ = await second.stop()
        #expect(!second.process.errors.contains("died while"), "\(second.process.errors)")
        #expect(try await fixture.withStore(of: "stuck") { try await $0.quarantined() }.isEmpty)
    }

    @Test func aJobOccurrenceThatTrapsIsQuarantinedAndTheRepeatingJobPausedWhileTheOtherBotAnswers() async throws {
        let fixture = try CrashTestBotsFixture()
        try fixture.configure([
            BotLine(name: "poison", options: #"{"trapInJob": true, "tickSeconds": 0.5}"#), BotLine(name: "healthy", options: "{}"),
        ])
        // Each occurrence crashes the process N times before it is quarantined; the second quarantined one pauses
        // the job.
        let (deaths, steady) = try await fixture.restartUntilSteady("tick", maxDeaths: 2 * Self.attempts) { run, before in
            let earlier = before.map { CrashTestRun.quarantinedSummaries("poison", in: $0.errors).count }.reduce(0, +)
            return earlier + run.quarantinedSummaries("poison").count >= 2
        }
        #expect(deaths.count == 2 * Self.attempts)
        #expect(deaths.allSatisfy { $0.exit == .signal(SIGILL) }, "\(deaths.map(\.errors))")
        #expect(deaths.allSatisfy { $0.errors.contains(Self.crashReport(SIGILL, bot: "poison", handler: "onScheduledJob")) })

        let correspondence = Correspondence()
        let alice = try await Alice.signIn(to: steady, bots: ["healthy"], correspondence: correspondence)
        try await alice.say("still there?", to: "healthy")
        #expect(await alice.waitForReplies(["healthy": ["echo: still there?"]]), "\(steady.process.errors)")
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")

        let (entries, jobs) = try await fixture.withStore(of: "poison") { store in
            (try await store.quarantined(), try await store.jobs())
        }
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.handler == "onScheduledJob" && $0.key.hasPrefix("job:") })
        #expect(jobs.map(\.status) == [.paused])
    }

    /// The overflow faults at the loop thread's guard page, where no handler could run on the exhausted stack: the
    /// loop's own signal stack lets the crash report name the work all the same.
    @Test func aHandlerThatOverflowsItsStackIsNamedInTheCrashReport() async throws {
        let fixture = try CrashTestBotsFixture()
        try fixture.configure([BotLine(name: "poison", options: #"{"overflowOn": "deep"}"#)])
        let first = try fixture.launch("deep")
        let alice = try await Alice.signIn(to: first, bots: ["poison"], correspondence: Correspondence())
        try #require(await first.waitUntilLive(["poison"]), "\(first.process.errors)")
        try? await alice.say("deep", to: "poison")
        let death = await first.death()
        #expect(death.exit == .signal(SIGSEGV), "\(death.errors.suffix(2000))")
        #expect(death.saysItDied(onSignal: SIGSEGV), "\(death.errors.suffix(2000))")
        #expect(death.errors.contains(Self.crashReport(SIGSEGV, bot: "poison", handler: "onMessage")), "\(death.errors.suffix(2000))")
    }

    @Test(.enabled(
        if: MemoryCgroup.unavailableReason == nil,
        Comment(rawValue: "needs a memory cgroup this process may make: \(MemoryCgroup.unavailableReason ?? "")")))
    func aMessageThatAllocatesUntilTheOOMKillerEndsTheProcessIsQuarantinedLikeATrap() async throws {
        // 512 MiB: the process with its sandbox needs far less, a handler that allocates without bound gets there
        // in a moment.
        let cgroup = try MemoryCgroup(limitBytes: 512 << 20)
        defer { cgroup.remove() }
        let fixture = try CrashTestBotsFixture()
        try fixture.configure([BotLine(name: "poison", options: #"{"hogOn": "hog"}"#), BotLine(name: "healthy", options: "{}")])
        let correspondence = Correspondence()
        let first = try fixture.launch("hog", in: cgroup)
        let alice = try await Alice.signIn(to: first, bots: ["poison", "healthy"], correspondence: correspondence)
        try #require(await first.waitUntilLive(["poison", "healthy"]), "\(first.process.errors)")
        try? await alice.say("h1", to: "healthy")
        try? await alice.say("hog", to: "poison")
        let death = await first.death()
        #expect(death.exit == .signal(SIGKILL), "\(death.errors)")

        let (deaths, steady) = try await fixture.restartUntilSteady("hog-restarted", maxDeaths: Self.attempts - 1, in: cgroup) { run, _ in
            !run.quarantinedSummaries("poison").isEmpty
        }
        #expect(deaths.count <= Self.attempts - 1)
        #expect(deaths.allSatisfy { $0.exit == .signal(SIGKILL) }, "\(deaths.map(\.errors))")
        let again = try await Alice.signIn(to: steady, bots: ["poison", "healthy"], correspondence: correspondence)
        try await again.postUnposted()
        try await again.say("after", to: "poison")
        let expected = ["poison": ["echo: after"], "healthy": ["echo: h1"]]
        #expect(await again.waitForReplies(expected), "\(steady.process.errors)")
        #expect(correspondence.replies(from: "poison") == ["echo: after"])
        #expect(correspondence.replies(from: "healthy") == ["echo: h1"])
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")

        let entries = try await fixture.withStore(of: "poison") { try await $0.quarantined() }
        #expect(entries.map(\.summary) == ["hog"])
        #expect(entries.map(\.attempts) == [Self.attempts])
    }

    /// Work in flight at a SIGKILL counts one attempt, and with N = 2 the next start runs those suspects alone
    /// first: each kill after the first comes only once the restarted process is live and has answered a message
    /// sent after its start (the suspects, earlier in the same conversation, passed and were cleared by then), so
    /// no work is caught by two kills.
    @Test func threeKillsAtRandomMomentsOfAFloodQuarantineNothingAndLoseNothing() async throws {
        let fixture = try CrashTestBotsFixture()
        // Unpaced, so that the echo answers the flood as fast as it can (the default paces it to 2 a second); each
        // answer takes a moment, so that a kill finds a handler running.
        try fixture.configure([BotLine(name: "echo", options: #"{"answerMilliseconds": 5}"#)], sendPacing: #""off""#)
        let correspondence = Correspondence()
        let total = 300
        let kills = [Int.random(in: 20...90), Int.random(in: 110...180), Int.random(in: 200...270)]
        var run = try fixture.launch("flood-1")
        var alice = try await Alice.signIn(to: run, bots: ["echo"], correspondence: correspondence)
        try #require(await run.waitUntilLive(["echo"]), "\(run.process.errors)")
        var next = 1
        for (index, kill) in kills.enumerated() {
            if index > 0 {
                try await alice.say("m\(next)", to: "echo")
                #expect(await alice.waitForReplies(["echo": ["echo: m\(next)"]]), "kills at \(kills): \(run.process.errors)")
                next += 1
            }
            while next <= kill {
                try await alice.say("m\(next)", to: "echo")
                next += 1
            }
            run.process.send(SIGKILL)
            #expect(await run.process.waitForExit() == .signal(SIGKILL))
            run = try fixture.launch("flood-\(index + 2)")
            alice = try await Alice.signIn(to: run, bots: ["echo"], correspondence: correspondence)
            try #require(await run.waitUntilLive(["echo"]), "\(run.process.errors)")
        }
        while next <= total {
            try await alice.say("m\(next)", to: "echo")
            next += 1
        }
        let expected = (1...total).map { "echo: m\($0)" }
        #expect(await alice.waitForReplies(["echo": expected]), "kills at \(kills): \(run.process.errors)")
        #expect(correspondence.replies(from: "echo").sorted() == expected.sorted(), "kills at \(kills)")
        #expect(await run.stop() == .code(0), "\(run.process.errors)")
        #expect(try await fixture.withStore(of: "echo") { try await $0.quarantined() }.isEmpty)
    }

    @Test func aKindThatTrapsMakingItsBotStopsThatBotAsCrashingWhileTheOtherBotAnswers() async throws {
        let fixture = try CrashTestBotsFixture()
        try fixture.configure([BotLine(name: "poison", options: #"{"trapInMake": true}"#), BotLine(name: "healthy", options: "{}")])
        let stopped = "bot stopped: crashing:"
        let (deaths, steady) = try await fixture.restartUntilSteady("make", maxDeaths: Self.attempts) { run, _ in
            !run.logLines(stopped, bot: "poison").isEmpty
        }
        #expect(deaths.count == Self.attempts)
        #expect(deaths.allSatisfy { $0.exit == .signal(SIGILL) }, "\(deaths.map(\.errors))")
        #expect(deaths.allSatisfy { $0.errors.contains(Self.crashReport(SIGILL, bot: "poison", handler: "make")) })

        #expect(await steady.waitUntilLive(["healthy"]), "\(steady.process.errors)")
        let correspondence = Correspondence()
        let alice = try await Alice.signIn(to: steady, bots: ["healthy"], correspondence: correspondence)
        try await alice.say("still there?", to: "healthy")
        #expect(await alice.waitForReplies(["healthy": ["echo: still there?"]]), "\(steady.process.errors)")
        let health = try await steady.health()
        let poison = try #require(health.bots.first { $0.name == "poison" })
        #expect(poison.state == .crashing)
        #expect(poison.stopReason?.contains("make crashed the process \(Self.attempts) times") == true, "\(poison.stopReason ?? "")")
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")
        #expect(try await fixture.withStore(of: "poison") { try await $0.quarantined() }.map(\.key) == ["make"])
    }

    @Test func aBotThatTrapsOnEveryMessageIsStoppedAsCrashingWhileTheOtherBotAnswersThroughout() async throws {
        let fixture = try CrashTestBotsFixture()
        try fixture.configure(
            [BotLine(name: "poison", options: #"{"trapAlways": true}"#), BotLine(name: "healthy", options: "{}")],
            quarantine: #"{"attempts": 2, "maxPerHour": 2}"#)
        let correspondence = Correspondence()
        let first = try fixture.launch("always")
        let alice = try await Alice.signIn(to: first, bots: ["poison", "healthy"], correspondence: correspondence)
        try #require(await first.waitUntilLive(["poison", "healthy"]), "\(first.process.errors)")
        try? await alice.say("h1", to: "healthy")
        #expect(await alice.waitForReplies(["healthy": ["echo: h1"]]), "\(first.process.errors)")
        for text in ["x1", "x2", "x3"] { try? await alice.say(text, to: "poison") }
        let death = await first.death()
        #expect(death.exit == .signal(SIGILL), "\(death.errors)")

        // Each restart: the healthy bot gets a message of its own, answered unless the poison kills the process
        // first (then it is answered after the next start).
        let stopped = "bot stopped: crashing:"
        let runs = RunCounter()
        let (deaths, steady) = try await fixture.restartUntilSteady(
            "always-restarted", maxDeaths: 6,
            onLaunch: { run in
                let text = "h\(runs.next())"
                guard let again = try? await Alice.signIn(to: run, bots: ["poison", "healthy"], correspondence: correspondence)
                else { return }
                try? await again.postUnposted()
                try? await again.say(text, to: "healthy")
                await again.waitForReplies(["healthy": ["echo: \(text)"]]) {
                    run.process.hasExited || !run.logLines(stopped, bot: "poison").isEmpty
                }
            },
            isSteady: { run, _ in !run.logLines(stopped, bot: "poison").isEmpty })
        // Three messages, each quarantined after two crashes; the third quarantine is one more than maxPerHour.
        #expect(deaths.count == 5)
        #expect(deaths.allSatisfy { $0.exit == .signal(SIGILL) }, "\(deaths.map(\.errors))")

        let alice2 = try await Alice.signIn(to: steady, bots: ["poison", "healthy"], correspondence: correspondence)
        try await alice2.postUnposted()
        try await alice2.say("still there?", to: "healthy")
        let sent = correspondence.said(to: "healthy").map { "echo: \($0)" }
        #expect(await alice2.waitForReplies(["healthy": sent]), "\(steady.process.errors)")
        #expect(correspondence.replies(from: "healthy").sorted() == sent.sorted())
        #expect(correspondence.replies(from: "poison").isEmpty)

        let health = try await steady.health()
        let poison = try #require(health.bots.first { $0.name == "poison" })
        #expect(poison.state == .crashing)
        #expect(poison.stopReason?.contains("quarantined within an hour") == true, "\(poison.stopReason ?? "")")
        #expect(health.bots.first { $0.name == "healthy" }?.connected == true)
        #expect(await steady.stop() == .code(0), "\(steady.process.errors)")
        #expect(try await fixture.withStore(of: "poison") { try await $0.quarantined() }.map(\.summary) == ["x1", "x2", "x3"])
    }
}

/// Numbers the restarts of a test, from 2 (the first run is 1).
final class RunCounter: Sendable {
    private let value = Mutex(1)

    /// The number of the run starting now.
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

