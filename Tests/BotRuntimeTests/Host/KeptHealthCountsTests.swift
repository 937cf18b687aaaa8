@testable import BotRuntime
import BotRuntimeTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

/// `/healthz` and `/readyz` answer from counts the supervisor keeps as bots change state, not from every bot's status:
/// whatever happened to the fleet, they say what a recount of every status says.
@Suite("the counts the probes keep")
struct KeptHealthCountsTests {
    let changes = ChangeSignal()

    func start(_ bots: [any SupervisedBot]) async throws -> (BotSupervisor, HealthServer, Task<SupervisorOutcome, Never>) {
        try await HealthServerTests.start(bots, changes: changes)
    }

    /// The bots counted by state, recounted from every status.
    func recount(_ supervisor: BotSupervisor) async -> [String: Int] {
        HealthSummary(bots: await supervisor.statuses()).states
    }

    /// `/healthz`, decoded, with its HTTP status.
    func health(_ server: HealthServer, _ path: String = "/healthz") async throws -> (status: Int, report: HealthReport) {
        let answer = try await fetch(server, path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (answer.status, try decoder.decode(HealthReport.self, from: Data(answer.body.utf8)))
    }

    /// Expects `/healthz` to say what a recount of `/healthz?bots=all` says.
    func expectAgreement(_ server: HealthServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let kept = try await health(server)
        let full = try await health(server, "/healthz?bots=all")
        let recounted = HealthSummary(bots: full.report.bots)
        #expect(kept.status == full.status, sourceLocation: sourceLocation)
        #expect(kept.report.status == full.report.status, sourceLocation: sourceLocation)
        #expect(kept.report.total == recounted.total, sourceLocation: sourceLocation)
        #expect(kept.report.states == recounted.states, sourceLocation: sourceLocation)
        #expect(kept.report.notLiveCount == recounted.notLiveCount, sourceLocation: sourceLocation)
        #expect(kept.report.notLive.map(\.name) == recounted.notLive.map(\.name), sourceLocation: sourceLocation)
        #expect(kept.report.notLive.map(\.state) == recounted.notLive.map(\.state), sourceLocation: sourceLocation)
    }

    @Test func healthzAgreesWithARecountThroughStartsStopsReloadsAndShutdown() async throws {
        let slow = (0..<3).map { StandInSession("slow\($0)", .liveWhenTold, changes: changes) }
        let (supervisor, server, run) = try await start(
            (0..<5).map { StandInSession("live\($0)", changes: changes) } + slow + [
                StandInSession("bad", .stop(.credentialsRejected("wrong password"), after: .zero), changes: changes),
                StandInSession("poison", .stop(.crashing("make crashed the process 3 times"), after: .zero), changes: changes),
            ])
        try await changes.wait(until: {
            await recount(supervisor) == ["live": 5, "connecting": 3, "stopped": 1, "crashing": 1]
        }, "the fleet started")
        try await expectAgreement(server)
        #expect(try await health(server).report.notLive.map(\.name) == ["bad", "poison", "slow0", "slow1", "slow2"])

        await slow[1].goLive()
        try await changes.wait(until: { await recount(supervisor)["live"] == 6 }, "slow1 live")
        try await expectAgreement(server)

        let added = (0..<22).map { StandInSession("added\($0)", .liveWhenTold, changes: changes) }
        for bot in added { #expect(await supervisor.add(bot, named: bot.name)) }
        try await changes.wait(until: { await recount(supervisor)["connecting"] == 24 }, "the added bots connecting")
        try await expectAgreement(server)
        #expect(try await health(server).report.notLiveCount == 26)

        let restarted = StandInSession("live2", .liveWhenTold, changes: changes)
        #expect(await supervisor.replace(named: "live2", with: restarted, deadline: .seconds(1)))
        #expect(await supervisor.remove(named: "live3", deadline: .seconds(1)))
        try await changes.wait(until: { await recount(supervisor) == ["live": 4, "connecting": 25, "stopped": 1, "crashing": 1] },
            "live2 restarted, live3 removed")
        try await expectAgreement(server)

        await restarted.goLive()
        await added[21].goLive()
        try await changes.wait(until: { await recount(supervisor)["live"] == 6 }, "the restarted and an added bot live")
        try await expectAgreement(server)

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        try await expectAgreement(server)
        #expect(try await health(server).report.states == ["stopped": 30, "crashing": 1])
        await server.shutdown()
    }

    @Test func aBotThatDoesNotReportItsStateIsCountedFromItsStatusOnEachProbe() async throws {
        let quiet = StandInSession("quiet", .liveWhenTold, changes: changes)
        let (supervisor, server, run) = try await start([UnreportedBot(quiet)])
        try await changes.wait(until: { await recount(supervisor) == ["connecting": 1] }, "quiet connecting")
        #expect(try await health(server).report.states == ["connecting": 1])
        #expect(try await fetch(server, "/readyz").body == "not ready: waiting for 1 bot(s) to start: quiet\n")

        await quiet.goLive()
        try await changes.wait(until: { await recount(supervisor) == ["live": 1] }, "quiet live")
        let answer = try await health(server)
        #expect(answer.status == 200)
        #expect(answer.report.states == ["live": 1])
        #expect(try await fetch(server, "/readyz").status == 200)
        try await stopServing(supervisor, server, run)
    }

    @Test func aBotThatMovesWhileTheProbeReadsItIsNamedInTheStateItsCountsHold() async throws {
        let flaky = MovesWhenReadBot("flaky", .reconnecting, changes: changes)
        let (supervisor, server, run) = try await start([StandInSession("steady", changes: changes), flaky])
        try await changes.wait(until: {
            await supervisor.healthSummary().states == ["live": 1, "reconnecting": 1]
        }, "steady live, flaky reconnecting")

        // flaky goes live as the probe reads its status: after the counts, where the two reads used to be apart.
        flaky.moveWhenNextRead(to: .live)
        let answer = await supervisor.healthSummary()
        #expect(flaky.moved)
        #expect(answer.states == ["live": 1, "reconnecting": 1])
        #expect(answer.notLive.map(\.name) == ["flaky"])
        #expect(answer.notLive.map(\.state) == [.reconnecting])
        #expect(answer.notLive.map(\.connected) == [false])

        // The next answer counts it live, and names no bot.
        let next = await supervisor.healthSummary()
        #expect(next.states == ["live": 2])
        #expect(next.notLive.isEmpty)
        try await stopServing(supervisor, server, run)
    }
}

/// A bot that reports `state` and changes state as its status is read, once told to: the change falls after a probe
/// took its counts and before it read this bot's status.
final class MovesWhenReadBot: StateReportingBot {
    private struct Now {
        var state: BotStatus.State
        var next: BotStatus.State?
        var moved = false
        var reporter: BotStateReporter?
    }

    let name: String
    private let now: Mutex<Now>
    private let stopped = AsyncStream.makeStream(of: Void.self)
    private let changes: ChangeSignal

    init(_ name: String, _ state: BotStatus.State, changes: ChangeSignal) {
        self.name = name
        self.now = Mutex(Now(state: state))
        self.changes = changes
    }

    /// The next read of `status` moves the bot to `state` (and reports it) before answering.
    func moveWhenNextRead(to state: BotStatus.State) {
        now.withLock { $0.next = state }
    }

    /// Whether a read moved it.
    var moved: Bool { now.withLock { $0.moved } }

    func reportStates(to reporter: BotStateReporter) async {
        now.withLock { now in
            now.reporter = reporter
            reporter.report(now.state, connected: now.state == .live, hasBeenLive: now.state == .live)
        }
        changes.signal()
    }

    func run() async -> BotStopReason {
        for await _ in stopped.stream {}
        return .shutdown
    }

    func shutdown(deadline: Duration) async {
        stopped.continuation.finish()
    }

    var status: BotStatus {
        get async {
            let state = now.withLock { now in
                if let next = now.next {
                    now.state = next
                    now.next = nil
                    now.moved = true
                    now.reporter?.report(next, connected: next == .live, hasBeenLive: next == .live)
                }
                return now.state
            }
            return BotStatus(
                name: name, state: state, connected: state == .live, since: Date(timeIntervalSince1970: 1_800_000_000),
                userId: nil, lastError: nil, reconnects: 0, messagesIn: 0, messagesOut: 0, outboxDepth: 0,
                handlerLatency: HandlerLatencySummary(), stopReason: nil)
        }
    }
}

/// A supervised bot that does not report its state changes (not a `StateReportingBot`): a bot of another library.
final class UnreportedBot: SupervisedBot {
    let bot: StandInSession

    init(_ bot: StandInSession) {
        self.bot = bot
    }

    func run() async -> BotStopReason { await bot.run() }
    func shutdown(deadline: Duration) async { await bot.shutdown(deadline: deadline) }
    var status: BotStatus { get async { await bot.status } }
}
