@testable import BotRuntime
import Foundation
import TestSupport
import Testing

@Suite("bot supervisor")
struct BotSupervisorTests {
    let lines = CapturedLines()
    var log: LogSink { LogSink(minimumLevel: .info, output: lines) }

    @Test func aBotWithRejectedCredentialsStopsWithAClearMessageAndTheOthersKeepRunning() async throws {
        let message = StopMessages.invalidCredentials
        let supervisor = BotSupervisor(bots: [
            StandInSession("echo"), StandInSession("bad", .stop(.credentialsRejected(message), after: .milliseconds(10))),
            StandInSession("greeter"),
        ], log: log)
        let run = Task { await supervisor.run() }

        #expect(await eventually { await supervisor.stopReasons["bad"] != nil })
        let statuses = await supervisor.statuses()
        #expect(statuses.map(\.name) == ["echo", "bad", "greeter"])
        #expect(statuses.map(\.connected) == [true, false, true])
        #expect(statuses[1].state == .stopped)
        #expect(statuses[1].lastError == message)
        let logged = lines.lines(containing: "level=error", "bot=bad", "bot stopped: configuration error: check the bot's username and password")
        #expect(logged.count == 1)
        #expect(logged.first?.contains("reason=credentials_rejected") == true)

        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = try await value(of: run, within: .seconds(60), "the supervisor's run to end")
        #expect(outcome.wasShutDown)
        #expect(outcome.failures == [SupervisorOutcome.Stop(bot: "bad", reason: .credentialsRejected(message))])
    }

    @Test func whenEveryBotStopsByItselfRunReturnsWithoutAShutdown() async throws {
        let supervisor = BotSupervisor(bots: [
            StandInSession("a", .stop(.configurationError("check the client key"), after: .zero)),
            StandInSession("b", .stop(.revoked("signed out"), after: .milliseconds(5))),
        ], log: log)
        let outcome = await supervisor.run()
        #expect(!outcome.wasShutDown)
        #expect(outcome.failures.map(\.bot) == ["a", "b"])
        #expect(lines.lines(containing: "level=error", "every bot has stopped").count == 1)
    }

    @Test func shutdownWaitsForEveryBotToFinishItsWorkWithTheDeadline() async throws {
        let slow = StandInSession("slow", workOnShutdown: .milliseconds(200))
        let quick = StandInSession("quick")
        let supervisor = BotSupervisor(bots: [slow, quick], log: log)
        let run = Task { await supervisor.run() }
        #expect(await eventually { await supervisor.statuses().allSatisfy(\.connected) })

        await supervisor.shutdown(deadline: .seconds(7))
        #expect(await slow.finishedWork)
        #expect(await slow.shutdownDeadlines == [.seconds(7)])
        #expect(await quick.shutdownDeadlines == [.seconds(7)])
        let outcome = try await value(of: run, within: .seconds(60), "the supervisor's run to end")
        #expect(outcome.stops.map(\.reason) == [.shutdown, .shutdown])
        #expect(await supervisor.statuses().allSatisfy { $0.state == .stopped && $0.lastError == nil })
    }

    @Test func aBotThatAlreadyStoppedIsNotAskedToShutDown() async throws {
        let failed = StandInSession("failed", .stop(.storageFailed("disk full"), after: .zero))
        let supervisor = BotSupervisor(bots: [failed, StandInSession("ok")], log: log)
        let run = Task { await supervisor.run() }
        #expect(await eventually { await supervisor.stopReasons["failed"] != nil })
        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .seconds(60), "the supervisor's run to end")
        #expect(await failed.shutdownDeadlines.isEmpty)
    }

    @Test func cancellingTheRunShutsTheBotsDown() async throws {
        let bot = StandInSession("echo")
        let supervisor = BotSupervisor(bots: [bot], log: log)
        let run = Task { await supervisor.run() }
        #expect(await eventually { await supervisor.statuses().first?.connected == true })
        run.cancel()
        let outcome = try await value(of: run, within: .seconds(60), "the supervisor's run to end")
        #expect(outcome.wasShutDown)
        #expect(await bot.shutdownDeadlines == [.seconds(10)])
    }

    @Test func aShutdownBeforeTheRunStartsNoBot() async throws {
        let bot = StandInSession("echo")
        let supervisor = BotSupervisor(bots: [bot], log: log)
        await supervisor.shutdown(deadline: .seconds(1))
        let outcome = await supervisor.run()
        #expect(outcome.wasShutDown)
        #expect(await bot.status.state != .live)
    }
}

enum StopMessages {
    static let invalidCredentials = SessionStopReason.invalidCredentials.message
}
