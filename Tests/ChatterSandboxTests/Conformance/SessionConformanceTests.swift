import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The connect sequence, heartbeat, idle close and frame rules of realtime-websocket.txt, over loopback sockets.
@Suite("Realtime conformance: session, heartbeat, frames")
struct SessionConformanceTests {
    @Test func sessionReadyComesFirstThenPresenceSnapshotOfVisibleFriends() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken))
            let first = try await client.next()
            let expectedReady = SessionReady(
                userId: fixture.ana.user.id, deviceId: fixture.ana.session.deviceId,
                serverTime: Timestamp(fixture.clock.now), heartbeatIntervalMs: 25_000)
            #expect(first == ServerFrame(.sessionReady(expectedReady)))
            let second = try await client.next()
            guard case .presenceSnapshot(let users) = second.event else {
                Issue.record("expected presence.snapshot, got \(second)")
                return
            }
            #expect(Set(users.map(\.userId)) == [fixture.ben.user.id, fixture.cleo.user.id])
            #expect(users.allSatisfy { !$0.isOnline && $0.lastSeenAt == nil })
            await client.close()
        }
    }

    @Test func heartbeatIntervalInSessionReadyIsTheConfiguredOne() async throws {
        try await SandboxFixture.run(realtime: RealtimeConfiguration(heartbeatInterval: .milliseconds(1500))) { fixture in
            let (client, ready, _) = try await RealtimeTestClient.signIn(fixture.ana, to: fixture.sandbox)
            #expect(ready.heartbeatIntervalMs == 1500)
            await client.close()
        }
    }

    @Test func pingIsAnsweredWithPongCarryingTheFrameID() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await client.send(.ping, id: "c-42")
            #expect(try await client.next() == ServerFrame(.pong, replyTo: "c-42"))
            await client.close()
        }
    }

    @Test func aSocketSilentForSixtySecondsIsClosedAndTrafficPostponesIt() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            await fixture.clock.advance(by: .seconds(59))
            try await client.send(.ping, id: "at-59s")
            #expect(try await client.next() == ServerFrame(.pong, replyTo: "at-59s"))
            await fixture.clock.advance(by: .seconds(59))
            try await client.send(.ping, id: "at-118s")
            #expect(try await client.next() == ServerFrame(.pong, replyTo: "at-118s"), "a ping 59 s after the last one keeps the socket")
            await fixture.clock.advance(by: .seconds(60))
            let info = try await client.closeInfo()
            #expect(info.code == .normalClosure)
            #expect(info.reason == RealtimeSession.idleCloseReason)
        }
    }

    @Test func theIdleTimeoutIsConfigurable() async throws {
        try await SandboxFixture.run(realtime: RealtimeConfiguration(idleTimeout: .seconds(5))) { fixture in
            let client = try await fixture.connect(fixture.ana)
            await fixture.clock.advance(by: .seconds(5))
            #expect(try await client.closeInfo().code == .normalClosure)
        }
    }

    @Test func textThatIsNotJSONGetsValidationFailedAndTheSocketStaysOpen() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await client.send(text: "this is not json")
            let reply = try await client.next()
            guard case .error(let error) = reply.event else {
                Issue.record("expected an error frame, got \(reply)")
                return
            }
            #expect(error.code == .validationFailed)
            #expect(reply.replyTo == nil)
            try await client.send(.ping, id: "still-open")
            #expect(try await client.next() == ServerFrame(.pong, replyTo: "still-open"))
            await client.close()
        }
    }

    @Test func aFrameWithoutTypeGetsValidationFailedWithReplyTo() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await client.send(text: #"{"id":"c-7","data":{}}"#)
            let reply = try await client.next()
            guard case .error(let error) = reply.event else {
                Issue.record("expected an error frame, got \(reply)")
                return
            }
            #expect(error.code == .validationFailed)
            #expect(error.details?["field"] == "type")
            #expect(reply.replyTo == "c-7")
            try await client.send(.ping, id: "still-open")
            #expect(try await client.next() == ServerFrame(.pong, replyTo: "still-open"))
            await client.close()
        }
    }

    @Test func anUnknownClientTypeIsIgnoredAndTheSocketStaysOpen() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await client.send(.unknown(type: "message.teleport", data: ["to": "mars"]), id: "c-8")
            let before = try await client.framesBeforePong()
            #expect(before.isEmpty, "\"Ignore unknown types\": no reply at all, got \(before)")
            await client.close()
        }
    }

    @Test func aMalformedDataFieldGetsValidationFailedNamingTheField() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await client.send(text: #"{"id":"c-9","type":"message.send","data":{"conversationId":"01JE"}}"#)
            let reply = try await client.next()
            guard case .error(let error) = reply.event else {
                Issue.record("expected an error frame, got \(reply)")
                return
            }
            #expect(error.code == .validationFailed)
            #expect(error.details?["field"] == "data.clientMessageId")
            #expect(reply.replyTo == "c-9")
            await client.close()
        }
    }

    @Test func aTextFrameOver64KiBClosesWith1009() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            try await client.send(text: String(repeating: "x", count: 64 * 1024 + 1))
            #expect(try await client.closeInfo().code == .messageTooBig)
        }
    }

    @Test func aTextFrameOfExactly64KiBIsServed() async throws {
        try await SandboxFixture.run { fixture in
            let client = try await fixture.connect(fixture.ana)
            let prefix = #"{"id":"big","type":"ping","data":{},"padding":""#
            let suffix = #""}"#
            let padding = String(repeating: "x", count: 64 * 1024 - prefix.utf8.count - suffix.utf8.count)
            try await client.send(text: prefix + padding + suffix)
            #expect(try await client.next() == ServerFrame(.pong, replyTo: "big"))
            await client.close()
        }
    }

    @Test func aPlainHTTPRequestToTheRealtimePathIsValidationFailedWithItsDocumentedStatus() async throws {
        try await SandboxFixture.run { fixture in
            let (body, response) = try await URLSession.patient.data(
                for: URLRequest(url: fixture.sandbox.webSocketURL(accessToken: "x").replacingScheme("http")).patient)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            let error = try JSONDecoder().decode(ChatterErrorBody.self, from: body)
            #expect(error.code == .validationFailed)
            #expect(error.details?["field"] == "Upgrade")
        }
    }
}

extension URL {
    func replacingScheme(_ scheme: String) -> URL {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        components?.scheme = scheme
        return components?.url ?? self
    }
}
