import ChatterBots
import Foundation

/// The session's reaction to a realtime close code: the seed's close-code table and design.md point 8 in one place.
///
/// | code | reaction |
/// |---|---|
/// | 1000 | reconnect with backoff: a bot never closes on its own while running, so a normal close comes from the server (maintenance, rebalancing), and the bot must stay online |
/// | 1001, 1006, any other | reconnect with backoff |
/// | 4001 | refresh the token, then reconnect |
/// | 4002 | stop the bot: configuration error (client key) |
/// | 4003 | clear the device's session data, sign in once afresh, stop if that fails |
/// | 4008 | reconnect after the seconds in the close reason |
package enum CloseCodeReaction: Sendable, Equatable {
    /// Reconnect after the next backoff delay.
    case reconnectWithBackoff
    /// The access token is invalid or expired: refresh it, then reconnect.
    case refreshTokenThenReconnect
    /// The device was revoked: clear its session data, then sign in once with a password login.
    case clearSessionAndSignInAfresh
    /// The device is rate limited: reconnect after the delay the server gave.
    case reconnectAfter(RateLimitDelay)
    /// Do not reconnect.
    case stop(SessionStopReason)

    /// The reaction to a close with `code` and `reason`. The code is read by `RealtimeCloseReason` and a 4008's
    /// seconds by `RateLimitDelay` (ChatterBots' `RetryAfter` rules), so the session reacts to exactly what the
    /// connection reports.
    public init(code: UInt16, reason: String) {
        switch RealtimeCloseReason(code: code, reason: reason) {
        case .tokenInvalid: self = .refreshTokenThenReconnect
        case .clientKeyInvalid: self = .stop(.clientKeyInvalid)
        case .sessionRevoked: self = .clearSessionAndSignInAfresh
        case .rateLimited: self = .reconnectAfter(RateLimitDelay(serverValue: reason))
        case .normal, .serverRestarting, .networkLost, .eventBufferOverflow, .incomingMessageTooLarge, .other:
            self = .reconnectWithBackoff
        }
    }

    /// What a close code means, for the log line that explains a reconnect.
    public static func meaning(ofCode code: UInt16) -> String {
        switch RealtimeCloseReason(code: code, reason: "") {
        case .normal: "normal close by the server; the bot did not ask to leave and stays online"
        case .serverRestarting: "server restarting"
        case .networkLost: "connection lost"
        case .tokenInvalid: "access token invalid or expired"
        case .clientKeyInvalid: "client key invalid"
        case .sessionRevoked: "session revoked"
        case .rateLimited: "rate limited"
        case .eventBufferOverflow, .incomingMessageTooLarge, .other: "closed with code \(code)"
        }
    }
}
