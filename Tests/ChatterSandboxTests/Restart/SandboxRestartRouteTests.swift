import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `POST /sandbox/restart`: the standalone sandbox restarted over HTTP.
@Suite("Sandbox restart route")
struct SandboxRestartRouteTests {
    private func postRestart(
        _ fixture: SandboxFixture, body: String, secret: String? = nil
    ) async throws -> (status: Int, body: Data) {
        let url = try #require(URL(string: fixture.sandbox.adminURL.absoluteString + "/restart"))
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue(fixture.sandbox.clientKey, forHTTPHeaderField: "X-Client-Key")
        request.setValue(secret ?? fixture.sandbox.clientSecret, forHTTPHeaderField: "X-Client-Secret")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.patient.data(for: request.patient)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func aRestartIsAnswered202ThenTheSandboxRestartsForTheDowntime() async throws {
        // A port no other test's listener can take while this one is down.
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            let ana = try await fixture.connect(fixture.ana)

            let (status, body) = try await postRestart(fixture, body: #"{"downtimeSeconds": 3}"#)

            #expect(status == 202)
            #expect(String(decoding: body, as: UTF8.self) == #"{"downtimeSeconds":3}"#)
            #expect(await fixture.sandbox.waitForListener(.down) == .down)
            #expect(try await ana.closeInfo().reason == "server restarting")
            await fixture.clock.advance(by: .seconds(3))
            #expect(await fixture.sandbox.waitForListener(.listening) == .listening)
            #expect(try await fixture.rest(fixture.ana).me().user.id == fixture.ana.user.id)
        }
    }

    @Test(arguments: [#"{"downtimeSeconds": -1}"#, #"{"downtimeSeconds": 3601}"#, #"{}"#])
    func aDowntimeOutsideZeroToAnHourIsRefusedNamingTheField(_ body: String) async throws {
        try await SandboxFixture.run { fixture in
            let (status, answer) = try await postRestart(fixture, body: body)
            #expect(status == 400)
            let error = try JSONDecoder().decode(ChatterErrorBody.self, from: answer)
            #expect(error.code == .validationFailed)
            #expect(error.details?["field"] == "downtimeSeconds")
            #expect(fixture.sandbox.listenerPhase == .listening)
        }
    }

    @Test func aRestartNeedsTheClientSecret() async throws {
        try await SandboxFixture.run { fixture in
            let (status, _) = try await postRestart(fixture, body: #"{"downtimeSeconds": 0}"#, secret: "cs_wrong")
            #expect(status == 401)
            #expect(fixture.sandbox.listenerPhase == .listening)
        }
    }

    @Test func aRestartOfASandboxShutDownIsA503SayingWhy() async throws {
        try await SandboxFixture.run { fixture in
            let sandbox = fixture.sandbox
            // A restarter attached to no listener: the sandbox it served is gone.
            let router = SandboxAdminRouter(
                admin: sandbox.admin, restarter: SandboxRestarter(hub: sandbox.hub, clock: fixture.clock))
            let request = HTTPRequest(
                method: .post, target: "/sandbox/restart",
                headers: ["X-Client-Key": sandbox.clientKey, "X-Client-Secret": sandbox.clientSecret],
                body: Array(#"{"downtimeSeconds": 0}"#.utf8))

            guard case .response(let response) = await router.serve(request) else {
                Issue.record("expected a plain 503 response")
                return
            }
            #expect(response.status.code == 503)
            let error = try JSONDecoder().decode(ChatterErrorBody.self, from: Data(response.body))
            #expect(error.code == "SANDBOX_SHUT_DOWN")
            #expect(error.message == "the sandbox was shut down: start a new one")
        }
    }

    @Test func aRestartAskedForDuringAnotherIsA409ToWaitOut() throws {
        let response = SandboxAdminRouter.response(refusing: .alreadyRestarting)
        #expect(response.status.code == 409)
        let error = try JSONDecoder().decode(ChatterErrorBody.self, from: Data(response.body))
        #expect(error.code == "SANDBOX_RESTARTING")
        #expect(error.message == "the sandbox is restarting already: wait until it listens again")
    }
}
