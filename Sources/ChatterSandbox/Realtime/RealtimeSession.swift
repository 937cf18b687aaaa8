import ChatterBots
import Foundation
import WebSocket

/// The life of one sandbox socket as a pure state machine: events in (authentication result, received frames,
/// the idle timer, a requested close), actions out (frames to send, commands to carry out, a close). Time is an
/// input, so the session is tested without sockets or sleeps.
///
/// The session authenticates first (the driver does not read frames before), then sends `session.ready`; every
/// frame received resets the idle deadline; a socket silent for `idleTimeout` is closed with 1000.
public struct RealtimeSession: Sendable {
    /// Where the session is in its life.
    public enum Phase: Sendable, Hashable {
        /// Upgraded; the client key and token are being checked.
        case authenticating
        /// `session.ready` was sent: frames are served.
        case open(userId: User.ID, deviceId: Device.ID)
        /// The server decided to close (with this code); frames are no longer served.
        case closing(WebSocketCloseCode)
        /// The transport is gone.
        case closed
    }

    /// What the driver does for the session.
    public enum Action: Sendable, Hashable {
        /// Send this frame on the socket.
        case send(ServerFrame)
        /// Carry out this command for the session's caller and answer `replyTo` (when not nil).
        case perform(RealtimeCommand, replyTo: String?)
        /// Close the socket with this code and reason (after the frames already sent).
        case close(WebSocketCloseCode, reason: String)
    }

    /// The reason sent with the idle close.
    public static let idleCloseReason = "idle timeout"

    public private(set) var phase: Phase = .authenticating
    /// When the client last sent anything (or when the socket opened).
    public private(set) var lastTrafficAt: Date
    public let configuration: RealtimeConfiguration
    private let parser: ClientFrameParser

    /// A session for a socket upgraded at `openedAt`.
    public init(openedAt: Date, configuration: RealtimeConfiguration = .init()) {
        self.lastTrafficAt = openedAt
        self.configuration = configuration
        self.parser = ClientFrameParser(maxFrameBytes: configuration.maxFrameBytes)
    }

    /// True while frames are served.
    public var isOpen: Bool {
        if case .open = phase { return true }
        return false
    }

    /// When the idle timer must look again; nil once the session is closing or closed.
    public var idleDeadline: Date? {
        switch phase {
        case .authenticating, .open: lastTrafficAt.addingTimeInterval(configuration.idleTimeout.timeInterval)
        case .closing, .closed: nil
        }
    }

    /// The caller was authenticated: announce the session with `session.ready`.
    public mutating func authenticated(userId: User.ID, deviceId: Device.ID, at now: Date) -> [Action] {
        guard case .authenticating = phase else { return [] }
        phase = .open(userId: userId, deviceId: deviceId)
        let ready = SessionReady(
            userId: userId, deviceId: deviceId, serverTime: Timestamp(now),
            heartbeatIntervalMs: configuration.heartbeatIntervalMs)
        return [.send(ServerFrame(.sessionReady(ready)))]
    }

    /// Closes the session (authentication refused, an admin fault, the service revoking the device). Only the
    /// first close counts.
    public mutating func close(code: WebSocketCloseCode, reason: String) -> [Action] {
        switch phase {
        case .authenticating, .open:
            phase = .closing(code)
            return [.close(code, reason: reason)]
        case .closing, .closed:
            return []
        }
    }

    /// A message arrived from the client at `now`. Every frame but `ping` (heartbeats are never limited) first
    /// spends one request of the device's budget through `charge`; a refusal closes the socket with its code
    /// and reason (4008 and the seconds to wait), and the frame is not served.
    public mutating func received(
        _ message: WebSocketMessage, at now: Date, charge: () throws(SandboxAuthError) -> Void
    ) -> [Action] {
        guard isOpen else { return [] }
        lastTrafficAt = max(lastTrafficAt, now)
        let parsed = parser.parse(message)
        switch parsed {
        case .tooLarge(let byteCount):
            return close(code: .messageTooBig, reason: "frame of \(byteCount) bytes exceeds \(configuration.maxFrameBytes)")
        case .request(let frame) where frame.request == .ping:
            break
        case .request, .rejected, .ignored:
            do throws(SandboxAuthError) {
                try charge()
            } catch {
                return close(code: error.closeCode, reason: error.closeReason)
            }
        }
        switch parsed {
        case .tooLarge:
            return []
        case .rejected(let replyTo, let error):
            return [.send(ServerFrame(.error(error), replyTo: replyTo))]
        case .ignored:
            return []
        case .request(let frame):
            return serve(frame)
        }
    }

    /// The idle timer woke at `now`: close if the client has been silent for `idleTimeout`.
    public mutating func idleTimerFired(at now: Date) -> [Action] {
        guard let deadline = idleDeadline, now >= deadline else { return [] }
        return close(code: .normalClosure, reason: Self.idleCloseReason)
    }

    /// The transport closed (either side); nothing more happens.
    public mutating func transportClosed() {
        phase = .closed
    }

    private func serve(_ frame: ClientFrame) -> [Action] {
        let command: RealtimeCommand
        switch frame.request {
        case .ping: return [.send(ServerFrame(.pong, replyTo: frame.id))]
        case .sendMessage(let send): command = .sendMessage(send)
        case .receiptDelivered(let position): command = .receiptDelivered(position)
        case .receiptRead(let position): command = .receiptRead(position)
        case .typingStart(let id): command = .typingStart(id)
        case .typingStop(let id): command = .typingStop(id)
        case .syncRequest(let request): command = .sync(request)
        case .unknown:
            // The parser reports unknown types as ignored already; the seed says to ignore them.
            return []
        }
        return [.perform(command, replyTo: frame.id)]
    }
}
