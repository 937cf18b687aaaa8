import WebSocket

/// Why a realtime connection ended, read from the WebSocket close code as the seed's close-code table defines it.
/// The connection never reconnects by itself: the caller decides, per reason, whether and when to connect again.
public enum RealtimeCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// 1000: a normal close, by the server or by `close()`.
    case normal
    /// 1001: the server is restarting; reconnect with backoff.
    case serverRestarting
    /// 1006: the connection dropped without a close handshake (network lost, server vanished); reconnect with
    /// backoff when the network is back.
    case networkLost
    /// 4001: the access token is invalid or expired; refresh it, then reconnect.
    case tokenInvalid
    /// 4002: the client key is invalid; do not reconnect, the configuration is wrong.
    case clientKeyInvalid
    /// 4003: the session was revoked (logout, account deleted); clear local data and sign in afresh.
    case sessionRevoked
    /// 4008: rate limited; reconnect after `seconds` (the close reason read by `RetryAfter`, a fraction rounded up),
    /// nil when the reason is not a number.
    case rateLimited(seconds: Int?)
    /// 1008, closed by this client: `limit` events waited unread in `events`, so its consumer was taken as stuck.
    /// Reconnect and sync to recover what was dropped; read `events` continuously.
    case eventBufferOverflow(limit: Int)
    /// 1009, closed by this client: the server sent a frame or message over `limit` bytes
    /// (`WebSocketLimits`). Reconnect, and ask for less at a time (a smaller sync), or the next answer closes the
    /// connection the same way.
    case incomingMessageTooLarge(limit: Int)
    /// Any other code, with its close reason (e.g. 1002 after a protocol violation, 1009 for a frame too big).
    case other(code: UInt16, reason: String)

    /// The reason for a close frame with `code` and `reason` (1006 stands for a transport drop). The one reading of
    /// close codes: the runtime's reaction to a close is derived from it.
    public init(code: UInt16, reason: String) {
        switch WebSocketCloseCode(code) {
        case .normalClosure: self = .normal
        case .goingAway: self = .serverRestarting
        case .abnormalClosure: self = .networkLost
        case .chatterTokenInvalid: self = .tokenInvalid
        case .chatterClientKeyInvalid: self = .clientKeyInvalid
        case .chatterSessionRevoked: self = .sessionRevoked
        case .chatterRateLimited: self = .rateLimited(seconds: Self.seconds(in: reason))
        default: self = .other(code: code, reason: reason)
        }
    }

    /// The reason for how a WebSocket connection ended.
    public init(_ info: WebSocketCloseInfo) {
        if info.initiator == .local {
            switch info.error {
            case .frameTooLarge(let limit), .messageTooLarge(let limit):
                self = .incomingMessageTooLarge(limit: limit)
                return
            default: break
            }
        }
        var reason = info.reason
        if reason.isEmpty, let error = info.error { reason = error.description }
        self.init(code: info.code.rawValue, reason: reason)
    }

    /// The close code this reason stands for.
    public var code: UInt16 {
        let code: WebSocketCloseCode
        switch self {
        case .normal: code = .normalClosure
        case .serverRestarting: code = .goingAway
        case .networkLost: code = .abnormalClosure
        case .tokenInvalid: code = .chatterTokenInvalid
        case .clientKeyInvalid: code = .chatterClientKeyInvalid
        case .sessionRevoked: code = .chatterSessionRevoked
        case .rateLimited: code = .chatterRateLimited
        case .eventBufferOverflow: code = .policyViolation
        case .incomingMessageTooLarge: code = .messageTooBig
        case .other(let other, _): return other
        }
        return code.rawValue
    }

    public var description: String {
        switch self {
        case .normal: "normal close (1000)"
        case .serverRestarting: "server restarting (1001)"
        case .networkLost: "network lost (1006)"
        case .tokenInvalid: "access token invalid or expired (4001)"
        case .clientKeyInvalid: "client key invalid (4002)"
        case .sessionRevoked: "session revoked (4003)"
        case .rateLimited(let seconds?): "rate limited for \(seconds) s (4008)"
        case .rateLimited(nil): "rate limited without a readable delay (4008)"
        case .eventBufferOverflow(let limit): "closed by this client: \(limit) events waited unread (1008)"
        case .incomingMessageTooLarge(let limit): "closed by this client: the server sent a message over \(limit) bytes (1009)"
        case .other(let code, let reason): reason.isEmpty ? "closed with code \(code)" : "closed with code \(code): \(reason)"
        }
    }

    /// The whole seconds of a 4008 close reason, read by `RetryAfter` (`"30"`; a fraction rounds up).
    private static func seconds(in reason: String) -> Int? {
        guard let wait = RetryAfter.seconds(in: reason) else { return nil }
        return Int((wait / .seconds(1)).rounded(.up))
    }
}
