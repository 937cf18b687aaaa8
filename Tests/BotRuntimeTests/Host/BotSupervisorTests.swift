@testable import BotRuntime
import Foundation
import TestSupport
import Testing
import BotRuntimeTestSupport

@Suite("bot supervisor")
struct BotSupervisorTests {
    let changes = ChangeSignal()
    let lines: CapturedLines
    var log: LogSink { LogSink(minimumLevel: .info, output: lines) }

    init() {
        lines = CapturedLines(changes: changes)
    }

    @Test func aBotWithRejectedCredentialsStopsWithAClearMessageAndTheOthersKeepRunning() async throws {
        let message = StopMessages.invalidCredentials
        let supervisor = BotSupervisor(bots: [
            StandInSession("echo", changes: changes),
            StandInSession("bad", .stop(.credentialsRejected(message), after: .milliseconds(10)), changes: changes),
            StandInSession("greeter", changes: changes),
        ], log: log)
        let run = Task { await supervisor.run() }

        try await changes.wait(until: { await supervisor.stopReasons["bad"] != nil }, "bad to stop")
        let statuses = await supervisor.statuses()
        #expect(statuses.map(\.name) == ["echo", "bad", "greeter"])
        #expect(statuses.map(\.connected) == [true, false, true])
        #expect(statuses[1].state == .stopped)
        #expect(statuses[1].lastError == message)
        let logged = lines.lines(containing: "level=error", "bot=bad", "bot stopped: configuration error: check the bot's username and password")
        #expect(logged.count == 1)
        #expect(logged.first?.contains("reason=credentials_rejected") == true)

        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.wasShutDown)
        #expect(outcome.failures == [SupervisorOutcome.Stop(bot: "bad", reason: .credentialsRejected(message))])
    }

    @Test func theStartLineNamesTwentyBotsAndCountsTheRest() async throws {
        let bots = (1...25).map { StandInSession("bot\($0)", changes: changes) }
        let supervisor = BotSupervisor(bots: bots, log: log)
        let run = Task { await supervisor.run() }
        try await changes.wait(until: { !lines.lines(containing: "starting 25 bots").isEmpty }, "the start line")
        let line = try #require(lines.lines(containing: "starting 25 bots").first)
        #expect(line.contains((1...20).map { "bot\($0)" }.joined(separator: ",") + " and 5 more"), "\(line)")
        #expect(!line.contains("bot21"))
        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
    }

    @Test func whenEveryBotStopsByItselfRunReturnsWithoutAShutdown() async throws {
        let supervisor = BotSupervisor(bots: [
            StandInSession("a", .stop(.configurationError("check the client key"), after: .zero), changes: changes),
            StandInSession("b", .stop(.revoked("signed out"), after: .milliseconds(5)), changes: changes),
        ], log: log)
        let outcome = await supervisor.run()
        #expect(!outcome.wasShutDown)
        #expect(outcome.failures.map(\.bot) == ["a", "b"])
        #expect(lines.lines(containing: "level=error", "every bot has stopped").count == 1)
    }

    @Test func shutdownWaitsForEveryBotToFinishItsWorkWithTheDeadline() async throws {
        let slow = StandInSession("slow", workOnShutdown: .milliseconds(200), changes: changes)
        let quick = StandInSession("quick", changes: changes)
        let supervisor = BotSupervisor(bots: [slow, quick], log: log)
        let run = Task { await supervisor.run() }
        try await changes.wait(until: { await supervisor.statuses().allSatisfy(\.connected) }, "every bot to connect")

        await supervisor.shutdown(deadline: .seconds(7))
        #expect(await slow.finishedWork)
        #expect(await slow.shutdownDeadlines == [.seconds(7)])
        #expect(await quick.shutdownDeadlines == [.seconds(7)])
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.reason) == [.shutdown, .shutdown])
        #expect(await supervisor.statuses().allSatisfy { $0.state == .stopped && $0.lastError == nil })
    }

    @Test func aBotThatAlreadyStoppedIsNotAskedToShutDown() async throws {
        let failed = StandInSession("failed", .stop(.storageFailed("disk full"), after: .zero), changes: changes)
        let supervisor = BotSupervisor(bots: [failed, StandInSession("ok", changes: changes)], log: log)
        let run = Task { await supervisor.run() }
        try await changes.wait(until: { await supervisor.stopReasons["failed"] != nil }, "failed to stop")
        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(await failed.shutdownDeadlines.isEmpty)
    }

    @Test func cancellingTheRunShutsTheBotsDown() async throws {
        let bot = StandInSession("echo", changes: changes)
        let supervisor = BotSupervisor(bots: [bot], log: log)
        let run = Task { await supervisor.run() }
        try await changes.wait(until: { await supervisor.statuses().first?.connected == true }, "echo to connect")
        run.cancel()
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.wasShutDown)
        #expect(await bot.shutdownDeadlines == [.seconds(10)])
    }

    @Test func aShutdownBeforeTheRunStartsNoBot() async throws {
        let bot = StandInSession("echo", changes: changes)
        let supervisor = BotSupervisor(bots: [bot], log: log)
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = await supervisor.run()
        #expect(outcome.wasShutDown)
        #expect(await bot.status.state != .live)
    }
}
