@testable import BotRuntime
import BotRuntimeTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// `POST /reload`: a control route like the quarantine's (same token), answering the reload's report, and the
/// generation in force in `/healthz`.
@Suite("the reload route")
struct ReloadRouteTests {
    let changes = ChangeSignal()

    /// Answers a scripted report and counts its calls.
    actor ScriptedReloader: ConfigurationReloading {
        let report: ReloadReport
        private(set) var calls: [String] = []
        var generation: ConfigurationGeneration

        init(report: ReloadReport) {
            self.report = report
            self.generation = ConfigurationGeneration(generation: report.generation, loadedAt: Date(timeIntervalSince1970: 1_800_000_000))
        }

        func setLastReload(_ outcome: ConfigurationGeneration.LastReload) {
            generation.lastReload = outcome
        }

        func reload(trigger: String) async -> ReloadReport {
            calls.append(trigger)
            return report
        }
    }

    func start(reloader: (any ConfigurationReloading)?, token: String? = nil) async throws -> (BotSupervisor, HealthServer, Task<SupervisorOutcome, Never>) {
        let supervisor = BotSupervisor(
            bots: [StandInSession("echo", changes: changes)], log: LogSink(minimumLevel: .info, output: CapturedLines(changes: changes)))
        let run = Task { await supervisor.run() }
        let server = try await HealthServer.start(
            supervisor: supervisor, reloader: reloader, host: "127.0.0.1", port: 0, access: ControlAccess(token: token))
        return (supervisor, server, run)
    }

    @Test func withATokenTheReloadRouteWithoutItIsRefusedWith401AndDoesNotReload() async throws {
        let reloader = ScriptedReloader(report: ReloadReport(applied: true, generation: 2, started: ["new"]))
        let (supervisor, server, run) = try await start(reloader: reloader, token: "s3cret")
        #expect(try await fetch(server, "/reload", method: "POST").status == 401)
        #expect(try await fetch(server, "/reload", method: "POST", token: "wrong").status == 401)
        #expect(await reloader.calls.isEmpty)
        let answer = try await fetch(server, "/reload", method: "POST", token: "s3cret")
        #expect(answer.status == 200)
        #expect(try JSONDecoder().decode(ReloadReport.self, from: Data(answer.body.utf8)) == ReloadReport(applied: true, generation: 2, started: ["new"]))
        #expect(await reloader.calls == ["the control route"])
        try await stopServing(supervisor, server, run)
    }

    /// Without a token, a page in the operator's browser must not reload the fleet (a cross-site request) nor read
    /// the quarantine through a name resolving to 127.0.0.1 (DNS rebinding).
    @Test func withoutATokenRequestsFromOtherPagesAndForeignHostsAreRefusedWith403() async throws {
        let reloader = ScriptedReloader(report: ReloadReport(applied: true, generation: 2))
        let (supervisor, server, run) = try await start(reloader: reloader)
        let foreign: [[String: String]] = [
            ["Origin": "http://evil.example"],
            ["Sec-Fetch-Site": "cross-site"],
            ["Origin": "null"],
            ["Host": "rebound.evil.example:\(server.port)"],
        ]
        for headers in foreign {
            #expect(try await fetch(server, "/reload", method: "POST", headers: headers).status == 403, "\(headers)")
            #expect(try await fetch(server, "/quarantine", headers: headers).status == 403, "\(headers)")
        }
        #expect(await reloader.calls.isEmpty)
        #expect(try await fetch(server, "/reload", method: "POST", headers: ["Host": "localhost:\(server.port)"]).status == 200)
        #expect(try await fetch(server, "/quarantine").status == 200, "the command line sends neither Origin nor Sec-Fetch-Site")
        #expect(await reloader.calls == ["the control route"])
        try await stopServing(supervisor, server, run)
    }

    @Test func withATokenARequestCarryingItIsAnsweredFromAnyPage() async throws {
        let reloader = ScriptedReloader(report: ReloadReport(applied: true, generation: 2))
        let (supervisor, server, run) = try await start(reloader: reloader, token: "s3cret")
        let answer = try await fetch(server, "/reload", method: "POST", token: "s3cret", headers: ["Origin": "http://ops.example"])
        #expect(answer.status == 200)
        try await stopServing(supervisor, server, run)
    }

    @Test func aRefusedReloadAnswers422WithEveryError() async throws {
        let refused = ReloadReport(applied: false, generation: 1, errors: ["bot \"a\", kind: is empty", "httpPort: changed"])
        let (supervisor, server, run) = try await start(reloader: ScriptedReloader(report: refused))
        let answer = try await fetch(server, "/reload", method: "POST")
        #expect(answer.status == 422)
        #expect(try JSONDecoder().decode(ReloadReport.self, from: Data(answer.body.utf8)).errors == refused.errors)
        #expect(try await fetch(server, "/reload").status == 405)
        try await stopServing(supervisor, server, run)
    }

    @Test func healthzReportsTheGenerationInForce() async throws {
        let (supervisor, server, run) = try await start(reloader: ScriptedReloader(report: ReloadReport(applied: true, generation: 3)))
        let answer = try await fetch(server, "/healthz")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        let configuration = try #require(json["configuration"] as? [String: Any])
        #expect(configuration["generation"] as? Int == 3)
        #expect(configuration["loadedAt"] as? String == "2027-01-15T08:00:00Z")
        try await stopServing(supervisor, server, run)
    }

    @Test func aRefusedLastReloadShowsInHealthzAndMetrics() async throws {
        let reloader = ScriptedReloader(report: ReloadReport(applied: false, generation: 2, errors: ["httpPort: changed"]))
        await reloader.setLastReload(.init(
            applied: false, at: Date(timeIntervalSince1970: 1_800_000_060), errors: ["httpPort: changed"]))
        let (supervisor, server, run) = try await start(reloader: reloader)

        let health = try await fetch(server, "/healthz")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any])
        let configuration = try #require(json["configuration"] as? [String: Any])
        let last = try #require(configuration["lastReload"] as? [String: Any])
        #expect(last["applied"] as? Bool == false)
        #expect(last["at"] as? String == "2027-01-15T08:01:00Z")
        #expect(last["errors"] as? [String] == ["httpPort: changed"])

        let metrics = try await fetch(server, "/metrics").body.split(separator: "\n").map(String.init)
        #expect(metrics.contains("chatterbots_configuration_generation 2"))
        #expect(metrics.contains("chatterbots_configuration_last_reload_successful 0"))
        try await stopServing(supervisor, server, run)
    }

    @Test func withoutAReloaderTheRouteSaysTheProcessDoesNotReload() async throws {
        let (supervisor, server, run) = try await start(reloader: nil)
        #expect(try await fetch(server, "/reload", method: "POST").status == 404)
        try await stopServing(supervisor, server, run)
    }
}
