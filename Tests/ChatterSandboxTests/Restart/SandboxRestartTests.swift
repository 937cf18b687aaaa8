import ChatterBots
import ChatterSandbox
import Foundation
import Glibc
import TestSupport
import Testing
import WebSocket

/// `Sandbox.restart(downtime:)`: a real server restart over loopback sockets, with the store kept.
@Suite("Sandbox restart")
struct SandboxRestartTests {
    @Test func aRestartClosesAConnectedDevicesSocketWith1001ServerRestarting() async throws {
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            let ana = try await fixture.connect(fixture.ana)

            try await fixture.sandbox.restart(downtime: .zero)

            let info = try await ana.closeInfo()
            #expect(info.code == .goingAway)
            #expect(info.reason == "server restarting")
            #expect(info.initiator == .peer, "a close frame from the server, not a dropped connection")
        }
    }

    @Test func duringTheDowntimeConnectingIsRefused() async throws {
        // A port no listener bound to port 0 can take while this one is down (see below).
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            let sandbox = fixture.sandbox
            let restart = Task { try await sandbox.restart(downtime: .seconds(3)) }
            #expect(await sandbox.waitForListener(.down) == .down)

            await #expect {
                _ = try await HTTPClient(configuration: .patient).send(HTTPRequest(method: .get, target: "/v1/me"), to: Self.origin(of: sandbox))
            } throws: { error in
                guard case HTTPClientError.connectionFailed(_, let code) = error else { return false }
                return code == ECONNREFUSED
            }

            await fixture.clock.advance(by: .seconds(3))
            try await restart.value
            #expect(sandbox.listenerPhase == .listening)
        }
    }

    @Test func afterTheDowntimeTheSamePortServesRESTAndRealtimeWithTheStoreKept() async throws {
        let directory = try TemporaryDirectory("SandboxRestartTests")
        let clock = ManualClock()
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            storage: .file(path: directory.url.appendingPathComponent("sandbox.sqlite").path), port: try FreePort.take(), clock: clock,
            service: SandboxServiceConfiguration(passwordHashIterations: 1_000), seed: SandboxFixture.seed))
        let fixture = SandboxFixture(sandbox: sandbox, clock: clock, accounts: sandbox.seeded)
        let chat = try await fixture.direct(fixture.ana, fixture.ben).id
        let laptop = try await fixture.signInNewDevice(fixture.ana, name: "laptop")
        let before = try await fixture.connect(fixture.ana)
        let sent = try await fixture.send("before the restart", in: chat, over: before)
        let port = sandbox.apiURL.port

        let restart = Task { try await sandbox.restart(downtime: .seconds(3)) }
        _ = await sandbox.waitForListener(.down)
        await clock.advance(by: .seconds(3))
        try await restart.value

        #expect(sandbox.apiURL.port == port)
        let page = try await fixture.rest(fixture.ben).messages(in: chat, afterSeq: 0)
        #expect(page.messages.map(\.id) == [sent.messageId])
        let ben = try await fixture.connect(fixture.ben)
        let ana = try await fixture.connect(laptop)
        let after = try await fixture.send("after the restart", in: chat, over: ana)
        let (frame, _) = try await ben.next { $0.isMessageNew }
        #expect(frame.event.message?.id == after.messageId)
        #expect(after.seq == sent.seq + 1)
        await ben.close()
        await ana.close()
        await sandbox.shutdown()
    }

    @Test func aShutdownDuringTheDowntimeLeavesNothingListening() async throws {
        let clock = ManualClock()
        // A port below the ephemeral range, handed out once: a listener another test binds to port 0 cannot take it
        // once this sandbox lets it go, so only this sandbox's restart could answer on it.
        let sandbox = try await Sandbox.start(SandboxConfiguration(port: try FreePort.take(), clock: clock))
        let restart = Task { try await sandbox.restart(downtime: .seconds(3)) }
        _ = await sandbox.waitForListener(.down)

        await sandbox.shutdown()

        await #expect(throws: SandboxRestartError.shutDown) { try await restart.value }
        #expect(sandbox.listenerPhase == .shutDown)
        await clock.advance(by: .seconds(3))
        await #expect {
            _ = try await HTTPClient(configuration: .patient).send(HTTPRequest(method: .get, target: "/v1/me"), to: Self.origin(of: sandbox))
        } throws: { error in
            guard case HTTPClientError.connectionFailed(_, let code) = error else { return false }
            return code == ECONNREFUSED
        }
    }

    @Test func aSecondRestartDuringTheFirstIsRefusedAndTheFirstCompletes() async throws {
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            let sandbox = fixture.sandbox
            let first = Task { try await sandbox.restart(downtime: .seconds(3)) }
            _ = await sandbox.waitForListener(.down)

            await #expect(throws: SandboxRestartError.alreadyRestarting) { try await sandbox.restart(downtime: .zero) }

            await fixture.clock.advance(by: .seconds(3))
            try await first.value
            let ana = try await fixture.connect(fixture.ana)
            await ana.close()
        }
    }

    @Test func aPortTakenDuringTheDowntimeFailsTheRestartSayingWhatToDoAndALaterRestartListens() async throws {
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            let sandbox = fixture.sandbox
            let port = try #require(sandbox.apiURL.port)
            let restart = Task { try await sandbox.restart(downtime: .seconds(3)) }
            _ = await sandbox.waitForListener(.down)
            let squatter = try await HTTPServer.start(host: "127.0.0.1", port: port) { _ in .response(HTTPResponse(status: .ok)) }

            await fixture.clock.advance(by: .seconds(3))

            await #expect {
                try await restart.value
            } throws: { error in
                guard case SandboxRestartError.cannotListen(port, .cannotListen(_, EADDRINUSE)) = error else { return false }
                return "\(error)".contains("free the port and restart it again")
            }
            #expect(sandbox.listenerPhase == .notListening)
            await squatter.shutdown()
            try await sandbox.restart(downtime: .zero)
            #expect(try await fixture.rest(fixture.ana).me().user.id == fixture.ana.user.id)
        }
    }

    @Test func aRestartForgetsTheArmedFaults() async throws {
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            try await fixture.sandbox.admin.inject(.loseMessageNew(count: 1), into: fixture.ben.session.deviceId)

            try await fixture.sandbox.restart(downtime: .zero)

            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            let ack = try await fixture.send("not lost", in: chat, over: ana)
            let (frame, _) = try await ben.next { $0.isMessageNew }
            #expect(frame.event.message?.id == ack.messageId)
            await ben.close()
            await ana.close()
        }
    }

    @Test func afterARestartTheHubsTimersStillTakeDisconnectedUsersOffline() async throws {
        try await SandboxFixture.run(port: try FreePort.take()) { fixture in
            _ = try await fixture.connect(fixture.ana)

            try await fixture.sandbox.restart(downtime: .zero)
            try await fixture.waitUntilDisconnected(fixture.ana.session.deviceId)
            #expect(await fixture.sandbox.hub.isOnline(fixture.ana.user.id), "online during the grace period")

            await fixture.clock.advance(by: .seconds(11))
            try await fixture.waitUntilOffline(fixture.ana.user.id)
        }
    }

    private static func origin(of sandbox: Sandbox) -> HTTPOrigin {
        HTTPOrigin(isSecure: false, host: "127.0.0.1", port: sandbox.apiURL.port ?? 0)
    }
}
