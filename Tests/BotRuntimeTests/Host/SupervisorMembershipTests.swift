@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import Foundation
import TestSupport
import Testing

/// Bots joining, leaving and being replaced while the supervisor runs (what a reload does).
@Suite("bot supervisor membership")
struct SupervisorMembershipTests {
    let changes = ChangeSignal()
    let lines: CapturedLines
    var log: LogSink { LogSink(minimumLevel: .info, output: lines) }

    init() {
        lines = CapturedLines(changes: changes)
    }

    func live(_ supervisor: BotSupervisor, _ names: [String]) async throws {
        try await changes.wait(until: {
            let statuses = await supervisor.statuses()
            return statuses.map(\.name) == names && statuses.allSatisfy(\.connected)
        }, "\(names) to be live")
    }

    @Test func anAddedBotRunsInTheRunAndTheOthersAreNotTouched() async throws {
        let a = StandInSession("a", changes: changes)
        let supervisor = BotSupervisor(bots: [a], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a"])

        let b = StandInSession("b", changes: changes)
        #expect(await supervisor.add(b, named: "b"))
        try await live(supervisor, ["a", "b"])
        #expect(await a.shutdownDeadlines.isEmpty)

        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.bot) == ["a", "b"])
        #expect(await b.shutdownDeadlines == [.seconds(1)])
    }

    @Test func aRemovedBotIsShutDownAwaitedAndLeavesTheListWithoutEndingTheRun() async throws {
        let a = StandInSession("a", changes: changes)
        let b = StandInSession("b", workOnShutdown: .milliseconds(50), changes: changes)
        let supervisor = BotSupervisor(bots: [a, b], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a", "b"])

        // On a clock nobody advances the removal waits for b however slow the machine is (the give-up is tested below).
        let removal = Task { await supervisor.remove(named: "b", deadline: .seconds(3), clock: ManualClock()) }
        #expect(try await value(of: removal, within: .hangGuard, "b's removal"))
        #expect(await b.finishedWork)
        #expect(await b.shutdownDeadlines == [.seconds(3)])
        #expect(await supervisor.statuses().map(\.name) == ["a"])
        #expect(await supervisor.stopReasons.isEmpty)
        #expect(await a.shutdownDeadlines.isEmpty)
        #expect(lines.lines(containing: "bot stopped: ").isEmpty)

        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.bot) == ["a"])
        #expect(outcome.failures.isEmpty)
    }

    @Test func removingEveryBotLeavesTheRunWaitingForTheNextOnes() async throws {
        let supervisor = BotSupervisor(bots: [StandInSession("a", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a"])
        #expect(await supervisor.remove(named: "a", deadline: .seconds(1)))
        #expect(await supervisor.add(StandInSession("b", changes: changes), named: "b"))
        try await live(supervisor, ["b"])
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.wasShutDown)
        #expect(lines.lines(containing: "every bot has stopped").isEmpty)
    }

    @Test func aReplacedBotStopsBeforeItsSuccessorStartsInItsPlace() async throws {
        let old = StandInSession("b", changes: changes)
        let supervisor = BotSupervisor(
            bots: [StandInSession("a", changes: changes), old, StandInSession("c", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a", "b", "c"])

        let successor = StandInSession("b", .liveWhenTold, changes: changes)
        #expect(await supervisor.replace(named: "b", with: successor, deadline: .seconds(2)))
        #expect(await old.shutdownDeadlines == [.seconds(2)])
        await successor.goLive()
        try await live(supervisor, ["a", "b", "c"])

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(await successor.shutdownDeadlines == [.seconds(1)])
    }

    @Test func theProcessHandlerHistogramKeepsTheCallsOfRemovedAndReplacedBots() async throws {
        let supervisor = BotSupervisor(
            bots: [StandInSession("a", changes: changes), StandInSession("b", changes: changes),
                StandInSession("c", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a", "b", "c"])
        #expect(await supervisor.metrics().handlerLatency.count == 3)

        #expect(await supervisor.remove(named: "a", deadline: .seconds(1)))
        #expect(await supervisor.replace(named: "b", with: StandInSession("b", changes: changes), deadline: .seconds(1)))
        try await live(supervisor, ["b", "c"])
        #expect(await supervisor.metrics().handlerLatency.count == 4)

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
    }

    @Test func nothingIsAddedOnceShuttingDown() async throws {
        let supervisor = BotSupervisor(bots: [StandInSession("a", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a"])
        await supervisor.shutdown(deadline: .seconds(1))
        #expect(await !supervisor.add(StandInSession("b", changes: changes), named: "b"))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(await supervisor.statuses().map(\.name) == ["a"])
    }

    @Test func aBotRemovedBeforeTheRunNeverStarts() async throws {
        let a = StandInSession("a", changes: changes)
        let b = StandInSession("b", changes: changes)
        let supervisor = BotSupervisor(bots: [a, b], log: log)
        #expect(await supervisor.remove(named: "b", deadline: .seconds(1)))
        #expect(await b.shutdownDeadlines.isEmpty)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a"])
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.bot) == ["a"])
        #expect(await b.status.state == .starting)
    }

    @Test func anEmptyShardsRunWaitsForBotsUntilAShutdown() async throws {
        let supervisor = BotSupervisor(bots: [], log: log)
        await supervisor.waitForBotsWhenEmpty()
        let run = Task { await supervisor.run() }
        #expect(await supervisor.add(StandInSession("late", changes: changes), named: "late"))
        try await live(supervisor, ["late"])
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.bot) == ["late"])
    }

    /// A bot whose stop overruns does not hold a reload: removing it gives up after its deadline and the grace, and
    /// it leaves the list once it has stopped.
    @Test func aRemovedBotThatOverrunsItsStopIsWaitedForOnlyUntilItsDeadlineAndTheGrace() async throws {
        let clock = ManualClock()
        let stuck = StandInSession("b", shutdownWaitsToBeTold: true, changes: changes)
        let supervisor = BotSupervisor(bots: [StandInSession("a", changes: changes), stuck], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a", "b"])

        let removal = Task { await supervisor.remove(named: "b", deadline: .seconds(1), clock: clock) }
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(1) + BotSupervisor.stopGrace)
        #expect(try await value(of: removal, within: .hangGuard, "the removal to give up"))
        #expect(lines.lines(containing: "level=error", "bot=b", "did not stop within its shutdown timeout").count == 1)
        #expect(await supervisor.statuses().map(\.name) == ["a", "b"])

        await stuck.finishShutdown()
        try await changes.wait(until: { await supervisor.statuses().map(\.name) == ["a"] }, "b to leave the list")
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.bot) == ["a"])
    }

    /// The old session must have closed its store before the new one opens it: a replacement whose predecessor
    /// overruns its stop starts once it has stopped, not at the give-up.
    @Test func theSuccessorOfABotThatOverrunsItsStopStartsOnceItHasStopped() async throws {
        let clock = ManualClock()
        let stuck = StandInSession("b", shutdownWaitsToBeTold: true, changes: changes)
        let supervisor = BotSupervisor(bots: [StandInSession("a", changes: changes), stuck], log: log)
        let run = Task { await supervisor.run() }
        try await live(supervisor, ["a", "b"])

        let successor = StandInSession("b", changes: changes)
        let replacement = Task { await supervisor.replace(named: "b", with: successor, deadline: .seconds(1), clock: clock) }
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(1) + BotSupervisor.stopGrace)
        #expect(try await value(of: replacement, within: .hangGuard, "the replacement to give up waiting"))
        #expect(await successor.status.state == .starting)

        await stuck.finishShutdown()
        try await changes.wait(until: { await successor.status.state == .live }, "the successor to run")
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.bot) == ["a", "b"])
    }

    /// Bot a stopped on its own; removing b, the last one running, leaves nothing to run: the run ends as when
    /// every bot stops on its own.
    @Test func removingTheLastRunningBotWhenTheOthersStoppedOnTheirOwnEndsTheRun() async throws {
        let stopping = StandInSession("a", .stop(.credentialsRejected("refused"), after: .zero), changes: changes)
        let supervisor = BotSupervisor(bots: [stopping, StandInSession("b", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await changes.wait(until: { await supervisor.stopReasons["a"] != nil }, "a to stop")

        #expect(await supervisor.remove(named: "b", deadline: .seconds(1)))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(!outcome.wasShutDown)
        #expect(outcome.stops.map(\.bot) == ["a"])
        #expect(await !supervisor.add(StandInSession("c", changes: changes), named: "c"))
    }

    /// A reload may remove the last running bot before it adds another: the run does not end in between.
    @Test func aMembershipChangeRemovingTheLastRunningBotAndAddingAnotherKeepsTheRunGoing() async throws {
        let stopping = StandInSession("a", .stop(.credentialsRejected("refused"), after: .zero), changes: changes)
        let supervisor = BotSupervisor(bots: [stopping, StandInSession("b", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await changes.wait(until: { await supervisor.stopReasons["a"] != nil }, "a to stop")

        await supervisor.beginMembershipChange()
        #expect(await supervisor.remove(named: "b", deadline: .seconds(1)))
        let c = StandInSession("c", changes: changes)
        #expect(await supervisor.add(c, named: "c"))
        await supervisor.endMembershipChange()
        try await changes.wait(until: { await c.status.state == .live }, "c to run")

        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.wasShutDown)
        #expect(outcome.stops.map(\.bot) == ["a", "c"])
    }
}
