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
public enum CloseCodeReaction: Sendable, Equatable {
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

    /// The reaction to a close with `code` and `reason`.
    public init(code: UInt16, reason: String) {
        switch code {
        case 4001: self = .refreshTokenThenReconnect
        case 4002: self = .stop(.clientKeyInvalid)
        case 4003: self = .clearSessionAndSignInAfresh
        case 4008: self = .reconnectAfter(RateLimitDelay(serverValue: reason))
        default: self = .reconnectWithBackoff
        }
    }

    /// What a close code means, for the log line that explains a reconnect.
    public static func meaning(ofCode code: UInt16) -> String {
        switch code {
        case 1000: "normal close by the server; the bot did not ask to leave and stays online"
        case 1001: "server restarting"
        case 1006: "connection lost"
        case 4001: "access token invalid or expired"
        case 4002: "client key invalid"
        case 4003: "session revoked"
        case 4008: "rate limited"
        default: "closed with code \(code)"
        }
    }
}
