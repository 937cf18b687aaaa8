@testable import BotRuntime
import Foundation
import TestSupport
import Testing
import BotRuntimeTestSupport

@Suite("health and metrics over HTTP")
struct HealthServerTests {
    /// Signalled by the stand-ins' state changes and the supervisor's log lines.
    let changes = ChangeSignal()

    /// Runs a supervisor of `bots`, logging into `changes`, and a health server for it on a free port.
    static func start(
        _ bots: [any SupervisedBot], changes: ChangeSignal
    ) async throws -> (BotSupervisor, HealthServer, Task<SupervisorOutcome, Never>) {
        let supervisor = BotSupervisor(bots: bots, log: LogSink(minimumLevel: .info, output: CapturedLines(changes: changes)))
        let run = Task { await supervisor.run() }
        let server = try await HealthServer.start(supervisor: supervisor, port: 0)
        return (supervisor, server, run)
    }

    func start(_ bots: [any SupervisedBot]) async throws -> (BotSupervisor, HealthServer, Task<SupervisorOutcome, Never>) {
        try await HealthServerTests.start(bots, changes: changes)
    }

    func url(_ server: HealthServer, _ path: String) throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
    }

    @Test func healthzAnswers200WithTheBotsCountedByStateWhenAllAreConnected() async throws {
        let (supervisor, server, run) = try await start([
            StandInSession("echo", changes: changes), StandInSession("greeter", changes: changes),
        ])
        try await changes.wait(until: { await supervisor.health().isHealthy }, "every bot to be healthy")

        let response = try await HTTPFetch.get(url(server, "/healthz"))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        #expect(json["status"] as? String == "ok")
        #expect(json["total"] as? Int == 2)
        #expect(json["states"] as? [String: Int] == ["live": 2])
        #expect((json["notLive"] as? [Any])?.isEmpty == true)
        #expect(json["notLiveCount"] as? Int == 0)
        #expect(json["bots"] == nil)

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        await server.shutdown()
    }

    @Test func healthzListsEveryBotsStatusWhenAskedForAll() async throws {
        let (supervisor, server, run) = try await start([
            StandInSession("echo", changes: changes), StandInSession("greeter", changes: changes),
        ])
        try await changes.wait(until: { await supervisor.health().isHealthy }, "every bot to be healthy")

        let response = try await HTTPFetch.get(url(server, "/healthz?bots=all"))
        #expect(response.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        let bots = try #require(json["bots"] as? [[String: Any]])
        #expect(bots.map { $0["name"] as? String } == ["echo", "greeter"])
        #expect(bots.map { $0["state"] as? String } == ["live", "live"])
        #expect(bots.map { $0["connected"] as? Bool } == [true, true])
        #expect(json["total"] as? Int == 2)

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        await server.shutdown()
    }

    @Test func healthzAnswers503AndNamesTheBotNotConnectedWithWhy() async throws {
        let (supervisor, server, run) = try await start([
            StandInSession("echo", changes: changes),
            StandInSession("bad", .stop(.credentialsRejected(StopMessages.invalidCredentials), after: .zero), changes: changes),
        ])
        try await changes.wait(until: { await supervisor.stopReasons["bad"] != nil }, "bad to stop")

        let response = try await HTTPFetch.get(url(server, "/healthz"))
        #expect(response.status == 503)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        #expect(json["status"] as? String == "unavailable")
        #expect(json["states"] as? [String: Int] == ["live": 1, "stopped": 1])
        let notLive = try #require(json["notLive"] as? [[String: Any]])
        #expect(notLive.map { $0["name"] as? String } == ["bad"])
        #expect(notLive.first?["state"] as? String == "stopped")
        #expect(notLive.first?["lastError"] as? String == StopMessages.invalidCredentials)

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        let during = try await HTTPFetch.get(url(server, "/healthz"))
        #expect(during.status == 503)
        await server.shutdown()
    }

    @Test func healthzRefusesAnotherListingThanAllWith400() async throws {
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes)])
        let response = try await HTTPFetch.get(url(server, "/healthz?bots=some"))
        #expect(response.status == 400)
        #expect(response.body.contains("/healthz?bots=all"))
        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        await server.shutdown()
    }

    @Test func metricsServesPrometheusTextWithHelpAndTypeBeforeEachFamily() async throws {
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes)])
        try await changes.wait(until: { await supervisor.health().isHealthy }, "every bot to be healthy")

        let response = try await HTTPFetch.get(url(server, "/metrics"))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let lines = response.body.split(separator: "\n").map(String.init)
        #expect(lines.contains("chatterbots_bots_connected 1"))
        #expect(lines.contains(#"chatterbots_bot_connected{bot="echo"} 1"#))
        #expect(lines.contains(#"chatterbots_messages_received_total{bot="echo"} 3"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="+Inf"} 1"#))
        for family in ["chatterbots_reconnects_total", "chatterbots_outbox_depth", "chatterbots_handler_duration_seconds"] {
            let help = try #require(lines.firstIndex { $0.hasPrefix("# HELP \(family) ") })
            let type = try #require(lines.firstIndex { $0.hasPrefix("# TYPE \(family) ") })
            let sample = try #require(lines.firstIndex { $0.hasPrefix(family) })
            #expect(help < type && type < sample)
        }

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        await server.shutdown()
    }

    @Test func otherPathsAre404AndOtherMethods405() async throws {
        let (supervisor, server, run) = try await start([StandInSession("echo", changes: changes)])
        #expect(try await HTTPFetch.get(url(server, "/")).status == 404)
        #expect(try await HTTPFetch.get(url(server, "/metrics"), method: "POST").status == 405)
        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        await server.shutdown()
    }
}
