import ChatterBots
import Foundation
import Testing
import WebSocket

@testable import ChatterSandbox

@Suite("Socket session state machine: ready, frames, idle close, closes")
struct RealtimeSessionTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let user: User.ID = "01JBUSER00000000000000000A"
    let device: Device.ID = "01JBDEVICE000000000000000A"

    func openSession(_ configuration: RealtimeConfiguration = .init()) -> RealtimeSession {
        var session = RealtimeSession(openedAt: start, configuration: configuration)
        _ = session.authenticated(userId: user, deviceId: device, at: start)
        return session
    }

    @Test func authenticationSendsSessionReadyWithServerTimeAndHeartbeat() {
        var session = RealtimeSession(openedAt: start, configuration: RealtimeConfiguration(heartbeatInterval: .seconds(25)))
        let actions = session.authenticated(userId: user, deviceId: device, at: start.addingTimeInterval(0.25))
        let ready = SessionReady(
            userId: user, deviceId: device, serverTime: Timestamp(start.addingTimeInterval(0.25)), heartbeatIntervalMs: 25_000)
        #expect(actions == [.send(ServerFrame(.sessionReady(ready)))])
        #expect(session.isOpen)
    }

    @Test func pingIsAnsweredWithPongCarryingReplyTo() {
        var session = openSession()
        let actions = session.received(.text(#"{"id":"c-1","type":"ping","data":{}}"#), at: start)
        #expect(actions == [.send(ServerFrame(.pong, replyTo: "c-1"))])
    }

    @Test func commandsAreHandedOverWithTheirID() {
        var session = openSession()
        let actions = session.received(
            .text(#"{"id":"c-2","type":"typing.start","data":{"conversationId":"01JECONV"}}"#), at: start)
        #expect(actions == [.perform(.typingStart("01JECONV"), replyTo: "c-2")])
        let sync = session.received(
            .text(#"{"id":"c-3","type":"sync.request","data":{"conversations":{"01JECONV":4},"limitPerConversation":2}}"#),
            at: start)
        #expect(sync == [.perform(.sync(SyncRequest(conversations: ["01JECONV": 4], limitPerConversation: 2)), replyTo: "c-3")])
    }

    @Test func aMalformedFrameIsAnsweredAndTheSessionStaysOpen() {
        var session = openSession()
        let actions = session.received(.text("not json"), at: start)
        guard case .send(let frame) = actions.first, case .error(let error) = frame.event else {
            Issue.record("expected an error frame, got \(actions)")
            return
        }
        #expect(error.code == .validationFailed)
        #expect(session.isOpen)
        #expect(session.received(.text(#"{"type":"ping"}"#), at: start) == [.send(ServerFrame(.pong))])
    }

    @Test func anUnknownTypeIsIgnoredButCountsAsTraffic() {
        var session = openSession()
        #expect(session.received(.text(#"{"id":"c-4","type":"presence.teleport","data":{}}"#), at: start.addingTimeInterval(30)).isEmpty)
        #expect(session.isOpen)
        #expect(session.idleDeadline == start.addingTimeInterval(90))
    }

    @Test func everyFrameButPingSpendsTheDevicesBudget() {
        var session = openSession()
        var charged = 0
        let charge: () throws(SandboxAuthError) -> Void = { charged += 1 }
        _ = session.received(.text(#"{"id":"p","type":"ping","data":{}}"#), at: start, charge: charge)
        #expect(charged == 0, "heartbeats are never limited")
        _ = session.received(.text(#"{"type":"typing.start","data":{"conversationId":"01JECONV"}}"#), at: start, charge: charge)
        _ = session.received(.text("not json"), at: start, charge: charge)
        _ = session.received(.text(#"{"type":"presence.teleport","data":{}}"#), at: start, charge: charge)
        #expect(charged == 3)
    }

    @Test func aFrameOverTheBudgetClosesWith4008AndTheSecondsToWait() {
        var session = openSession()
        let actions = session.received(
            .text(#"{"id":"c-5","type":"typing.start","data":{"conversationId":"01JECONV"}}"#), at: start,
            charge: { () throws(SandboxAuthError) in throw .rateLimited(seconds: 7) })
        #expect(actions == [.close(WebSocketCloseCode(4008), reason: "7")])
        #expect(!session.isOpen)
    }

    @Test func aFrameOver64KiBClosesWith1009AndNothingIsServedAfter() {
        var session = openSession()
        let actions = session.received(.text(String(repeating: " ", count: 64 * 1024 + 1)), at: start)
        guard case .close(let code, _) = actions.first else {
            Issue.record("expected a close, got \(actions)")
            return
        }
        #expect(code == .messageTooBig)
        #expect(!session.isOpen)
        #expect(session.received(.text(#"{"type":"ping"}"#), at: start).isEmpty)
    }

    @Test func idleTimerClosesAfterSixtySecondsWithoutTraffic() {
        var session = openSession()
        #expect(session.idleDeadline == start.addingTimeInterval(60))
        #expect(session.idleTimerFired(at: start.addingTimeInterval(59.999)).isEmpty)
        #expect(session.idleTimerFired(at: start.addingTimeInterval(60)) == [.close(.normalClosure, reason: "idle timeout")])
        #expect(session.idleDeadline == nil)
    }

    @Test func everyReceivedFramePostponesTheIdleClose() {
        var session = openSession()
        _ = session.received(.text(#"{"type":"ping"}"#), at: start.addingTimeInterval(50))
        #expect(session.idleDeadline == start.addingTimeInterval(110))
        #expect(session.idleTimerFired(at: start.addingTimeInterval(60)).isEmpty)
        _ = session.received(.text("garbage counts as traffic too"), at: start.addingTimeInterval(100))
        #expect(session.idleTimerFired(at: start.addingTimeInterval(110)).isEmpty)
        #expect(session.idleTimerFired(at: start.addingTimeInterval(160)) == [.close(.normalClosure, reason: "idle timeout")])
    }

    @Test func theIdleTimeoutIsConfigurable() {
        var session = openSession(RealtimeConfiguration(idleTimeout: .milliseconds(500)))
        #expect(session.idleTimerFired(at: start.addingTimeInterval(0.5)) == [.close(.normalClosure, reason: "idle timeout")])
    }

    @Test func onlyTheFirstCloseCounts() {
        var session = RealtimeSession(openedAt: start)
        #expect(session.close(code: .chatterTokenInvalid, reason: "Token expired") == [.close(.chatterTokenInvalid, reason: "Token expired")])
        #expect(session.close(code: .normalClosure, reason: "") == [])
        #expect(session.phase == .closing(.chatterTokenInvalid))
        #expect(session.authenticated(userId: user, deviceId: device, at: start).isEmpty)
    }

    @Test func framesBeforeAuthenticationAreNotServed() {
        var session = RealtimeSession(openedAt: start)
        #expect(session.received(.text(#"{"type":"ping"}"#), at: start).isEmpty)
    }

    @Test func afterTheTransportClosedNothingHappens() {
        var session = openSession()
        session.transportClosed()
        #expect(session.phase == .closed)
        #expect(session.idleTimerFired(at: start.addingTimeInterval(3600)).isEmpty)
        #expect(session.received(.text(#"{"type":"ping"}"#), at: start).isEmpty)
        #expect(session.close(code: .normalClosure, reason: "").isEmpty)
    }
}

extension RealtimeSession {
    /// A frame received by a device with budget to spare.
    mutating func received(_ message: WebSocketMessage, at now: Date) -> [Action] {
        received(message, at: now, charge: {})
    }
}
