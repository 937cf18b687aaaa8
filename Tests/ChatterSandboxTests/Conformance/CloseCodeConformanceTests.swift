import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import TestSupport
import WebSocket

/// The close codes of realtime-websocket.txt: the upgrade succeeds, then the socket closes with the code.
@Suite("Realtime conformance: close codes 1001, 4001, 4002, 4003, 4008")
struct CloseCodeConformanceTests {
    @Test func shuttingTheSandboxDownClosesSocketsWith1001ServerRestarting() async throws {
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            clock: ManualClock(), service: SandboxServiceConfiguration(passwordHashIterations: 1_000), seed: SandboxFixture.seed))
        let seeded = try #require(sandbox.seeded["ana"])
        let (client, _, _) = try await RealtimeTestClient.signIn(seeded, to: sandbox)

        await sandbox.shutdown()

        let info = try await client.closeInfo()
        #expect(info.code == .goingAway)
        #expect(info.reason == "server restarting")
        #expect(info.initiator == .peer, "a close frame from the server, not a dropped connection")
    }

    @Test func anUnknownClientKeyClosesWith4002() async throws {
        try await SandboxFixture.run { fixture in
            let url = fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken, clientKey: "ck_wrong")
            let client = try await RealtimeTestClient.connect(to: url)
            let info = try await client.closeInfo()
            #expect(info.code == .chatterClientKeyInvalid)
            #expect(await client.frame(within: .zero) == nil, "no session.ready before the close")
        }
    }

    @Test func anUnknownTokenClosesWith4001() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: "not-a-token"))
            #expect(try await client.closeInfo().code == .chatterTokenInvalid)
        }
    }

    @Test func anExpiredTokenClosesWith4001AndARefreshedOneConnects() async throws {
        try await SandboxFixture.run { fixture in
            await fixture.clock.advance(by: .seconds(3601))
            let stale = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken))
            #expect(try await stale.closeInfo().code == .chatterTokenInvalid)

            let rest = fixture.rest(fixture.ana)
            let fresh = try await rest.refreshTokens()
            let (client, ready, _) = try await RealtimeTestClient.signIn(accessToken: fresh.accessToken, to: fixture.sandbox)
            #expect(ready.deviceId == fixture.ana.session.deviceId)
            await client.close()
        }
    }

    @Test func anOpenSocketOverItsDevicesBudgetIsClosedWith4008ButPingsAreFree() async throws {
        let service = SandboxServiceConfiguration(
            passwordHashIterations: 1_000, deviceRateLimit: SandboxRateLimit(requests: 3, window: .seconds(60)))
        try await SandboxFixture.run(service: service) { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id  // 1: a REST request
            let ana = try await fixture.connect(fixture.ana)  // 2: the connect
            for index in 0..<5 {
                try await ana.send(.ping, id: "p-\(index)")
                #expect(try await ana.next() == ServerFrame(.pong, replyTo: "p-\(index)"))
            }
            try await fixture.send("within the budget", in: chat, over: ana)  // 3
            try await ana.send(SandboxFixture.text("over the budget", in: chat), id: "c-2")

            let info = try await ana.closeInfo()
            #expect(info.code == .chatterRateLimited)
            let seconds = try #require(Int(info.reason), "the close reason is the number of seconds: \(info.reason)")
            #expect((1...60).contains(seconds))
            #expect(try await fixture.sandbox.service.conversation(fixture.ana.caller, chat).lastSeq == 1)
        }
    }

    @Test func signingTheDeviceInAgainClosesTheSocketsOfItsOldTokensWith4001() async throws {
        try await SandboxFixture.run { fixture in
            let old = try await fixture.connect(fixture.ana)
            let session = try await ChatterRESTClient(
                configuration: fixture.sandbox.serverConfiguration,
                requestTimeouts: .hangGuard).login(
                username: "ana", password: SandboxFixture.password, deviceId: fixture.ana.session.deviceId,
                device: DeviceDescription(name: "phone", platform: "test"))
            #expect(session.deviceId == fixture.ana.session.deviceId)
            let info = try await old.closeInfo()
            #expect(info.code == .chatterTokenInvalid)
            let (fresh, ready, _) = try await RealtimeTestClient.signIn(accessToken: session.accessToken, to: fixture.sandbox)
            #expect(ready.deviceId == fixture.ana.session.deviceId)
            await fresh.close()
        }
    }

    @Test func aSocketClosesWith4001WhenItsTokenExpires() async throws {
        try await SandboxFixture.run(realtime: RealtimeConfiguration(idleTimeout: .seconds(7200))) { fixture in
            let ana = try await fixture.connect(fixture.ana)
            await fixture.clock.advance(by: .seconds(3599))
            try await ana.send(.ping, id: "before-expiry")
            #expect(try await ana.next() == ServerFrame(.pong, replyTo: "before-expiry"))
            await fixture.clock.advance(by: .seconds(1))
            let info = try await ana.closeInfo()
            #expect(info.code == .chatterTokenInvalid)
            #expect(info.reason == SandboxAuthError.expired.closeReason)
        }
    }

    @Test func aDeviceRevokedWhileItsSocketIsBeingOpenedIsClosedWith4003() async throws {
        let service = SandboxServiceConfiguration(
            passwordHashIterations: 1_000, signInRateLimit: SandboxRateLimit(requests: 100, window: .seconds(60)))
        try await SandboxFixture.run(service: service) { fixture in
            // The revocation lands anywhere between the upgrade and the session's start; the socket must close
            // with 4003 wherever it lands, never stay open.
            for attempt in 0..<20 {
                let session = try await fixture.signInNewDevice(fixture.ana, name: "race-\(attempt)")
                let client = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: session.accessToken))
                try await fixture.sandbox.admin.inject(.revokeDevice, into: session.deviceId)
                let info = try await client.closeInfo()
                #expect(info.code == .chatterSessionRevoked, "attempt \(attempt)")
            }
        }
    }

    @Test func logoutClosesTheDevicesOpenSocketWith4003AndItsTokenThenCloses4003() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await fixture.rest(fixture.ana).logout()
            #expect(try await client.closeInfo().code == .chatterSessionRevoked)

            let again = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken))
            #expect(try await again.closeInfo().code == .chatterSessionRevoked)
        }
    }

    @Test func aRateLimitedDeviceIsClosedWith4008AndTheSecondsToWait() async throws {
        let service = SandboxServiceConfiguration(
            passwordHashIterations: 1_000, deviceRateLimit: SandboxRateLimit(requests: 2, window: .seconds(60)))
        try await SandboxFixture.run(service: service) { fixture in
            for _ in 0..<2 {
                let client = try await fixture.connect(fixture.ana)
                await client.close()
            }
            let limited = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken))
            let info = try await limited.closeInfo()
            #expect(info.code == .chatterRateLimited)
            let seconds = try #require(Int(info.reason), "the close reason is the number of seconds: \(info.reason)")
            #expect((1...60).contains(seconds))
        }
    }
}
