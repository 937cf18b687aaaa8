@testable import BotRuntime
import ChatterBots
import BotRuntimeTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// What Kubernetes and other machines use: /livez and /readyz apart from /healthz, and the control token that
/// every control route asks for once one is set (and that binding off loopback requires).
@Suite("the HTTP endpoint, for machines")
struct HealthEndpointsForMachinesTests {
    let changes = ChangeSignal()

    func start(_ bots: [any SupervisedBot], token: String? = nil) async throws -> (BotSupervisor, HealthServer, Task<SupervisorOutcome, Never>) {
        let supervisor = BotSupervisor(bots: bots, log: LogSink(minimumLevel: .info, output: CapturedLines(changes: changes)))
        let run = Task { await supervisor.run() }
        let server = try await HealthServer.start(supervisor: supervisor, port: 0, access: ControlAccess(token: token))
        return (supervisor, server, run)
    }

    @Test func livezAnswers200WhileReadyzWaitsForABotThatHasNotStartedYet() async throws {
        let slow = StandInSession("slow", .liveWhenTold, changes: changes)
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes), slow])
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.live, .connecting] }, "echo live, slow connecting")

        #expect(try await fetch(server, "/livez").status == 200)
        let waiting = try await fetch(server, "/readyz")
        #expect(waiting.status == 503)
        #expect(waiting.body.contains("slow"))
        #expect(!waiting.body.contains("echo"))

        await slow.goLive()
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "/readyz to answer 200")
        try await stopServing(supervisor, server, run)
    }

    @Test func aBotStoppedForItsOwnConfigurationDoesNotKeepThePodUnready() async throws {
        let (supervisor, server, run) = try await start([
            StandInSession("echo", changes: changes),
            StandInSession("bad", .stop(.credentialsRejected("wrong password"), after: .zero), changes: changes),
        ])
        try await changes.wait(until: { await supervisor.stopReasons["bad"] != nil }, "bad to stop")
        let ready = try await fetch(server, "/readyz")
        #expect(ready.status == 200)
        #expect(ready.body.contains("stopped on their own, not waited for (see /healthz): 1 bot(s): bad"))
        #expect(try await fetch(server, "/healthz").status == 503)
        #expect(try await fetch(server, "/livez").status == 200)
        try await stopServing(supervisor, server, run)
    }

    @Test func aBotStoppedAsCrashingDoesNotKeepThePodUnready() async throws {
        let (supervisor, server, run) = try await start([
            StandInSession("echo", changes: changes),
            StandInSession("poison", .stop(.crashing("make crashed the process 3 times"), after: .zero), changes: changes),
        ])
        try await changes.wait(until: { await supervisor.stopReasons["poison"] != nil }, "poison to stop")
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "ready without poison")
        try await stopServing(supervisor, server, run)
    }

    @Test func aBotAReloadAddedThatNeverGoesLiveDoesNotKeepThePodUnready() async throws {
        let slow = StandInSession("slow", .liveWhenTold, changes: changes)
        let (supervisor, server, run) = try await start([slow])
        #expect(await supervisor.add(StandInSession("added", .liveWhenTold, changes: changes), named: "added"))
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.connecting, .connecting] }, "both connecting")
        let waiting = try await fetch(server, "/readyz")
        #expect(waiting.status == 503)
        #expect(waiting.body.hasPrefix("not ready: waiting for 1 bot(s) to start: slow\n"))

        await slow.goLive()
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "ready without the added bot")
        #expect(try await fetch(server, "/readyz").body == "ready\nnot live yet, not waited for: 1 bot(s): added\n")
        try await stopServing(supervisor, server, run)
    }

    @Test func aReadyPodStaysReadyWhileABotAReloadRestartedIsNotLiveYet() async throws {
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes)])
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "ready")
        let restarted = StandInSession("echo", .liveWhenTold, changes: changes)
        #expect(await supervisor.replace(named: "echo", with: restarted, deadline: .seconds(1)))
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.connecting] }, "the new session connecting")
        let answer = try await fetch(server, "/readyz")
        #expect(answer.status == 200)
        #expect(answer.body.contains("not live yet, not waited for: 1 bot(s): echo"))
        try await stopServing(supervisor, server, run)
    }

    @Test func aBotOfTheStartThatAReloadRestartsBeforeItWasLiveIsStillWaitedFor() async throws {
        let (supervisor, server, run) = try await start([
            StandInSession("echo", changes: changes), StandInSession("slow", .liveWhenTold, changes: changes),
        ])
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.live, .connecting] }, "slow connecting")
        let restarted = StandInSession("slow", .liveWhenTold, changes: changes)
        #expect(await supervisor.replace(named: "slow", with: restarted, deadline: .seconds(1)))
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.live, .connecting] }, "the new session connecting")
        let waiting = try await fetch(server, "/readyz")
        #expect(waiting.status == 503)
        #expect(waiting.body.hasPrefix("not ready: waiting for 1 bot(s) to start: slow\n"))

        await restarted.goLive()
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "ready once the new session is live")
        try await stopServing(supervisor, server, run)
    }

    /// The old session of a replaced bot may take seconds to stop, longer than a probe's period: until its
    /// successor takes its place, the pod must not turn ready for want of it.
    @Test func aBotOfTheStartNotLiveYetKeepsThePodUnreadyWhileAReloadReplacesIt() async throws {
        let slow = StandInSession("slow", .liveWhenTold, workOnShutdown: .seconds(600), changes: changes)
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes), slow])
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.live, .connecting] }, "slow connecting")
        let clock = ManualClock()
        let replacing = Task {
            await supervisor.replace(
                named: "slow", with: StandInSession("slow", .liveWhenTold, changes: changes), deadline: .seconds(1),
                clock: clock)
        }
        try await clock.waitForSleepers(1)  // the replace waits for the old session to stop
        let answer = try await fetch(server, "/readyz")
        #expect(answer.status == 503)
        #expect(answer.body.hasPrefix("not ready: waiting for 1 bot(s) to start: slow\n"), "\(answer.body)")
        replacing.cancel()
        await server.shutdown()
        run.cancel()
    }

    /// A bot of the start that never gets live (an account the server rate-limits) keeps the pod unready only until
    /// the readiness timeout has passed on the supervisor's clock.
    @Test func withAReadinessTimeoutABotOfTheStartThatNeverGetsLiveIsNoLongerWaitedForOnceItPasses() async throws {
        let clock = ManualClock()
        let lines = CapturedLines(changes: changes)
        let never = StandInSession("never", .liveWhenTold, changes: changes)
        let supervisor = BotSupervisor(
            bots: [StandInSession("echo", changes: changes), never], log: LogSink(minimumLevel: .info, output: lines),
            readinessTimeout: .seconds(300), clock: clock)
        let run = Task { await supervisor.run() }
        let server = try await HealthServer.start(supervisor: supervisor, port: 0)
        try await changes.wait(until: { await supervisor.statuses().map(\.state) == [.live, .connecting] }, "never connecting")
        try await clock.waitForSleepers(1)  // the bound's timer
        await clock.advance(by: .seconds(299), untilIdle: {})
        let waiting = try await fetch(server, "/readyz")
        #expect(waiting.status == 503)
        #expect(waiting.body == "not ready: waiting for 1 bot(s) to start: never\n")

        await clock.advance(by: .seconds(1), untilIdle: {})
        let ready = try await fetch(server, "/readyz")
        #expect(ready.status == 200)
        #expect(ready.body == "ready\nnot live yet, not waited for: 1 bot(s): never\n")
        try await changes.wait(
            until: { !lines.lines(containing: "level=warning", "/readyz no longer waits for 1 bot", "bots=never").isEmpty },
            "the bots no longer waited for to be logged")

        await never.goLive()
        try await changes.wait(until: { try await fetch(server, "/readyz").body == "ready\n" }, "never live, the pod still ready")
        try await stopServing(supervisor, server, run)
    }

    @Test func onceTheReadinessTimeoutHasPassedAShuttingDownProcessIsNotReady() async throws {
        let clock = ManualClock()
        let supervisor = BotSupervisor(
            bots: [StandInSession("never", .liveWhenTold, changes: changes)],
            log: LogSink(minimumLevel: .info, output: CapturedLines(changes: changes)),
            readinessTimeout: .seconds(60), clock: clock)
        let run = Task { await supervisor.run() }
        let server = try await HealthServer.start(supervisor: supervisor, port: 0)
        try await clock.waitForSleepers(1)  // the bound's timer
        await clock.advance(by: .seconds(60), untilIdle: {})
        #expect(try await fetch(server, "/readyz").status == 200)
        await supervisor.shutdown(deadline: .seconds(1))
        let answer = try await fetch(server, "/readyz")
        #expect(answer.status == 503)
        #expect(answer.body == "not ready: shutting down\n")
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        await server.shutdown()
    }

    @Test func aShuttingDownProcessIsNotReadyButStillLive() async throws {
        let echo = StandInSession("echo", workOnShutdown: .seconds(600), changes: changes)
        let (supervisor, server, run) = try await start([echo])
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "ready")
        let shutdown = Task { await supervisor.shutdown(deadline: .seconds(1)) }
        try await changes.wait(until: { await supervisor.shuttingDown }, "the shutdown to begin")
        let answer = try await fetch(server, "/readyz")
        #expect(answer.status == 503)
        #expect(answer.body == "not ready: shutting down\n")
        #expect(try await fetch(server, "/livez").status == 200)
        shutdown.cancel()
        await server.shutdown()
        run.cancel()
    }

    @Test func withATokenAControlRouteWithoutItIsRefusedWith401() async throws {
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes)], token: "s3cret")
        let refused = try await fetch(server, "/quarantine")
        #expect(refused.status == 401)
        #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(refused.body.contains("CHATTERBOTS_CONTROL_TOKEN"))
        #expect(try await fetch(server, "/quarantine", token: "wrong").status == 401)
        #expect(try await fetch(server, "/quarantine", token: "s3cret").status == 200)
        #expect(try await fetch(server, "/quarantine/echo/1/retry", method: "POST").status == 401)
        try await stopServing(supervisor, server, run)
    }

    @Test func probesAndMetricsNeedNoToken() async throws {
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes)], token: "s3cret")
        try await changes.wait(until: { try await fetch(server, "/readyz").status == 200 }, "ready")
        #expect(try await fetch(server, "/livez").status == 200)
        #expect(try await fetch(server, "/healthz").status == 200)
        #expect(try await fetch(server, "/metrics").status == 200)
        try await stopServing(supervisor, server, run)
    }

    @Test func bindingOffLoopbackWithoutATokenIsRefusedAndLoopbackIsAllowed() throws {
        #expect(throws: ControlAccessError.tokenRequired(bind: "0.0.0.0")) { try ControlAccess(token: nil).check(bind: "0.0.0.0") }
        #expect(throws: ControlAccessError.tokenRequired(bind: "::")) { try ControlAccess(token: "").check(bind: "::") }
        try ControlAccess(token: nil).check(bind: "127.0.0.1")
        try ControlAccess(token: nil).check(bind: "::1")
        try ControlAccess(token: "t").check(bind: "0.0.0.0")
    }

    @Test func aShortTokenOffLoopbackIsWarnedAboutAndALongOneOrLoopbackIsNot() {
        #expect(ControlAccess(token: "s3cret").weakTokenWarning(bind: "0.0.0.0")?.contains("6 characters") == true)
        #expect(ControlAccess(token: "s3cret").weakTokenWarning(bind: "127.0.0.1") == nil)
        #expect(ControlAccess(token: String(repeating: "a", count: 16)).weakTokenWarning(bind: "0.0.0.0") == nil)
        #expect(ControlAccess(token: nil).weakTokenWarning(bind: "127.0.0.1") == nil)
    }

    @Test func theTokenComesFromTheVariableOrFromTheFileItNames() throws {
        let directory = try TemporaryDirectory("ControlToken")
        let file = try directory.write("from-file\n", to: "token")
        #expect(try ControlAccess.token(in: ["CHATTERBOTS_CONTROL_TOKEN": "from-env"]) == "from-env")
        #expect(try ControlAccess.token(in: ["CHATTERBOTS_CONTROL_TOKEN_FILE": file.path]) == "from-file")
        #expect(try ControlAccess.token(in: [:]) == nil)
        #expect(throws: ControlAccessError.unreadableTokenFile("/nonexistent/token")) {
            try ControlAccess.token(in: ["CHATTERBOTS_CONTROL_TOKEN_FILE": "/nonexistent/token"])
        }
    }
}
