@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WebSocket

/// A bot refused because an earlier make of its kind was given up at its timeout starts by itself once that make
/// returns, without a reload; a reload or a shutdown meanwhile wins; and the make threads show in `/healthz` and
/// `/metrics`.
@Suite struct HungMakeRestartTests {
    /// A kind whose first `make` blocks its thread until `release(throwing:)`, then returns its bot or throws; the
    /// makes after it return their bot at once.
    final class FirstMakeHangs: Sendable {
        struct Refused: Error {}

        let started = Gate()
        private let release = DispatchSemaphore(value: 0)
        private let throwsOnRelease = Atomic<Bool>(false)
        private let isReleased = Atomic<Bool>(false)
        private let count = Atomic<Int>(0)

        var calls: Int { count.load(ordering: .relaxed) }

        var kind: BotKind {
            BotKind("stuck") { [self] _ in
                guard count.add(1, ordering: .relaxed).newValue == 1 else { return ScriptedBot(probe: BotProbe()) }
                started.open()
                release.wait()
                if throwsOnRelease.load(ordering: .relaxed) { throw Refused() }
                return ScriptedBot(probe: BotProbe())
            }
        }

        /// Lets the first make return (throwing when told); later calls do nothing.
        func release(throwing: Bool = false) {
            guard !isReleased.exchange(true, ordering: .relaxed) else { return }
            throwsOnRelease.store(throwing, ordering: .relaxed)
            release.signal()
        }
    }

    /// The process the bots share: one make thread pool, a handler timeout of a second.
    struct Process {
        let harness: RuntimeHarness
        let threads = MakeThreads(width: 2, spares: 1)
        let hanging = FirstMakeHangs()

        func configure(_ environment: inout BotRuntimeEnvironment) {
            environment.handlerTimeout = .seconds(1)
            environment.makeThreads = threads
        }

        /// A session of `account` whose bot the hanging kind makes.
        func session(_ account: SeededAccount) -> BotSession {
            var configuration = harness.configuration(account)
            configuration.kind = hanging.kind.name
            return BotSession(
                member: BotLineup.Member(configuration: configuration, kind: hanging.kind),
                environment: harness.environment(configure))
        }

        /// Starts botty, outside any supervisor, whose make hangs until it is given up at its timeout.
        func hangFirstMake() async throws {
            let first = try await harness.start(madeBy: hanging.kind, waitUntilLive: false, configure)
            await hanging.started.wait()
            await harness.clock.advance(by: .seconds(1))
            let reason = try await value(of: first.task, within: .hangGuard, "botty's make to be given up")
            #expect(reason.description.contains(#"kind "stuck" did not make the bot within 1.0 seconds"#), "\(reason)")
        }

        /// Runs a supervisor of otto, whose make the kind's hung make holds back, and waits until otto waits for it.
        func superviseRefusedOtto() async throws -> (BotSupervisor, Task<SupervisorOutcome, Never>) {
            let supervisor = BotSupervisor(bots: [session(harness.otto)], log: harness.logs.sink)
            let run = Task { await supervisor.run() }
            try await harness.waitUntil("otto to wait for the kind's make") {
                await supervisor.botsAwaitingRestart == ["otto"]
            }
            return (supervisor, run)
        }

        /// Runs otto held back by the kind's hung make, begins a membership change (as a reload does), then lets
        /// the make return and waits until otto waits for the change to end.
        func readmitOttoDuringAMembershipChange() async throws -> (BotSupervisor, Task<SupervisorOutcome, Never>) {
            try await hangFirstMake()
            let (supervisor, run) = try await superviseRefusedOtto()
            await supervisor.beginMembershipChange()
            hanging.release()
            try await harness.waitUntil("otto to be readmitted") {
                await supervisor.botsReadmittedDuringMembershipChange == ["otto"]
            }
            return (supervisor, run)
        }

        func state(of bot: String, in supervisor: BotSupervisor) async -> BotStatus.State? {
            await supervisor.statuses().first { $0.name == bot }?.state
        }
    }

    static let refusal = BotStopReason.configurationError(
        MakeThreadRules.Refusal.kindStillRunning(kind: "stuck", bot: "botty").description)

    @Test func aBotRefusedWhileItsKindsMakeHungStartsByItselfOnceThatMakeReturns() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            try await process.hangFirstMake()
            let (supervisor, run) = try await process.superviseRefusedOtto()
            #expect(await supervisor.stopReasons["otto"] == Self.refusal)

            process.hanging.release()
            try await harness.waitUntil("otto to be live") { await process.state(of: "otto", in: supervisor) == .live }
            #expect(await supervisor.botsAwaitingRestart.isEmpty)
            #expect(process.hanging.calls == 2)

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func aBotRefusedWhileItsKindsMakeHungStartsByItselfOnceThatMakeThrows() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            try await process.hangFirstMake()
            let (supervisor, run) = try await process.superviseRefusedOtto()

            process.hanging.release(throwing: true)
            try await harness.waitUntil("otto to be live") { await process.state(of: "otto", in: supervisor) == .live }
            #expect(process.hanging.calls == 2)

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func theBotWhoseOwnMakeWasGivenUpStaysStoppedWhenItReturnsLate() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            // Cleo's echo bot keeps the run open once botty stopped.
            let echo = BotSession(
                member: BotLineup.Member(
                    configuration: harness.configuration(harness.cleo),
                    kind: BotKind("echo") { _ in ScriptedBot(probe: BotProbe()) }),
                environment: harness.environment(process.configure))
            let supervisor = BotSupervisor(bots: [echo, process.session(harness.botty)], log: harness.logs.sink)
            let run = Task { await supervisor.run() }
            try await harness.waitUntil("cleo to be live") { await process.state(of: "cleo", in: supervisor) == .live }
            await process.hanging.started.wait()
            await harness.clock.advance(by: .seconds(1))
            try await harness.waitUntil("botty to stop") { await supervisor.stopReasons["botty"] != nil }
            #expect(await supervisor.add(process.session(harness.otto), named: "otto"))
            try await harness.waitUntil("otto to wait for the kind's make") {
                await supervisor.botsAwaitingRestart == ["otto"]
            }

            process.hanging.release()
            try await harness.waitUntil("otto to be live") { await process.state(of: "otto", in: supervisor) == .live }
            #expect(await process.state(of: "botty", in: supervisor) == .stopped)
            let reason = await supervisor.stopReasons["botty"]
            #expect(reason?.description.contains(#"kind "stuck" did not make the bot within 1.0 seconds"#) == true, "\(String(describing: reason))")

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func aBotRemovedWhileItWaitsForItsKindsMakeNoLongerWaitsToStart() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            try await process.hangFirstMake()
            let (supervisor, run) = try await process.superviseRefusedOtto()

            #expect(await supervisor.remove(named: "otto", deadline: .seconds(1), clock: harness.clock))
            #expect(await supervisor.botsAwaitingRestart.isEmpty)
            #expect(await supervisor.statuses().isEmpty)

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func aBotReadmittedDuringAReloadStartsOnceTheReloadHasChangedTheMembers() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            let (supervisor, run) = try await process.readmitOttoDuringAMembershipChange()
            #expect(await process.state(of: "otto", in: supervisor) == .stopped)

            await supervisor.endMembershipChange()
            try await harness.waitUntil("otto to be live") { await process.state(of: "otto", in: supervisor) == .live }
            #expect(await supervisor.botsReadmittedDuringMembershipChange.isEmpty)
            #expect(await supervisor.botsAwaitingRestart.isEmpty)

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func aReloadThatRemovesABotReadmittedMeanwhileWinsOverItsStart() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            let (supervisor, run) = try await process.readmitOttoDuringAMembershipChange()
            #expect(await supervisor.remove(named: "otto", deadline: .seconds(1), clock: harness.clock))
            await supervisor.endMembershipChange()

            #expect(await supervisor.statuses().isEmpty)
            #expect(await supervisor.botsReadmittedDuringMembershipChange.isEmpty)
            #expect(await supervisor.botsAwaitingRestart.isEmpty)
            #expect(process.hanging.calls == 1, "otto's successor was never made")

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func aShutdownEndsTheWaitOfABotRefusedWhileItsKindsMakeHung() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            try await process.hangFirstMake()
            let (supervisor, run) = try await process.superviseRefusedOtto()

            await supervisor.shutdown(deadline: .seconds(1))
            let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
            #expect(outcome.stops == [SupervisorOutcome.Stop(bot: "otto", reason: Self.refusal)])
            #expect(await supervisor.botsAwaitingRestart.isEmpty)
        }
    }

    @Test func theProbesCountTheBotStartedAgainInThePlaceOfTheOneRefused() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            try await process.hangFirstMake()
            let (supervisor, run) = try await process.superviseRefusedOtto()
            func probe(_ target: String) async -> (status: Int, json: [String: Any]?) {
                let response = await HealthServer.respond(
                    to: HTTPRequest(method: .get, target: target), supervisor: supervisor)
                let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                return (response.status.code, json)
            }
            let refused = await probe("/healthz")
            #expect(refused.status == 503)
            #expect(refused.json?["states"] as? [String: Int] == ["stopped": 1])

            process.hanging.release()
            try await harness.waitUntil("otto to be live") { await process.state(of: "otto", in: supervisor) == .live }
            let kept = await probe("/healthz")
            let recounted = await probe("/healthz?bots=all")
            #expect(kept.status == 200)
            #expect(kept.json?["total"] as? Int == 1)
            #expect(kept.json?["states"] as? [String: Int] == ["live": 1])
            #expect(kept.json?["notLiveCount"] as? Int == 0)
            #expect(recounted.json?["states"] as? [String: Int] == ["live": 1])
            #expect(await probe("/readyz").status == 200)

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }

    @Test func healthzAndMetricsCountAMakeGivenUpUntilItReturns() async throws {
        try await RuntimeHarness.run { harness in
            let process = Process(harness: harness)
            defer { process.hanging.release() }
            try await process.hangFirstMake()
            let (supervisor, run) = try await process.superviseRefusedOtto()
            let (threads, clock) = (process.threads, harness.clock)
            let census: @Sendable () -> MakeThreads.Census = { threads.census(at: clock.now) }

            let health = await HealthServer.respond(
                to: HTTPRequest(method: .get, target: "/healthz"), supervisor: supervisor, makeThreads: census)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
            #expect(json["makeThreads"] as? [String: Int] == ["running": 0, "givenUp": 1])
            let metrics = await HealthServer.respond(
                to: HTTPRequest(method: .get, target: "/metrics"), supervisor: supervisor, makeThreads: census)
            let lines = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
            #expect(lines.contains(#"chatterbots_make_threads{state="running"} 0"#))
            #expect(lines.contains(#"chatterbots_make_threads{state="given_up"} 1"#))

            process.hanging.release()
            try await harness.waitUntil("otto to be live") { await process.state(of: "otto", in: supervisor) == .live }
            #expect(census() == MakeThreads.Census(running: 0, givenUp: 0))

            await supervisor.shutdown(deadline: .seconds(1))
            _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        }
    }
}
