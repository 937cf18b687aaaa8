import ChatterBots
import WebSocket

/// Why a realtime connection (or a REST request) may not proceed, with the WebSocket close code the
/// protocol assigns to each reason.
public enum SandboxAuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The client key is missing or unknown: close 4002 (the client must not reconnect).
    case invalidClientKey
    /// The access token is unknown or was replaced by a later login: close 4001.
    case invalidToken
    /// The access token is past its expiry: close 4001 (refresh, then reconnect).
    case expired
    /// The device was logged out or revoked: close 4003.
    case deviceRevoked
    /// The device exceeded its request rate: close 4008 with the reason `"<seconds>"`.
    case rateLimited(seconds: Int)
    /// The sandbox could not check the credentials (its store failed): close 1011; retry later with backoff.
    case unavailable(reason: String)

    /// The close code the realtime protocol assigns to this reason.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .invalidClientKey: WebSocketCloseCode(4002)
        case .invalidToken, .expired: WebSocketCloseCode(4001)
        case .deviceRevoked: WebSocketCloseCode(4003)
        case .rateLimited: WebSocketCloseCode(4008)
        case .unavailable: .internalServerError
        }
    }

    /// The close reason to send with `closeCode`: the seconds to wait for `rateLimited`, a short phrase otherwise.
    public var closeReason: String {
        switch self {
        case .invalidClientKey: "Invalid client key"
        case .invalidToken: "Invalid token"
        case .expired: "Token expired"
        case .deviceRevoked: "Session revoked"
        case .rateLimited(let seconds): String(seconds)
        case .unavailable: "Internal error"
        }
    }

    /// The same refusal as a REST error body (a revoked device's token is simply `UNAUTHORIZED` over REST).
    public var errorBody: ChatterErrorBody {
        switch self {
        case .invalidClientKey:
            ChatterErrorBody(code: .invalidClientKey, message: "The client key is missing or unknown.")
        case .invalidToken:
            ChatterErrorBody(code: .unauthorized, message: "The access token is missing or invalid.")
        case .expired:
            ChatterErrorBody(code: .unauthorized, message: "The access token has expired. Refresh it and retry.")
        case .deviceRevoked:
            ChatterErrorBody(code: .unauthorized, message: "This device was signed out. Sign in again.")
        case .rateLimited(let seconds):
            ChatterErrorBody(
                code: .rateLimited, message: "Too many requests. Retry after \(seconds) seconds.",
                details: ["retryAfter": .number(Double(seconds))])
        case .unavailable(let reason):
            ChatterErrorBody(code: .internalError, message: "The credentials could not be checked: \(reason)")
        }
    }

    public var description: String { "\(errorBody.code): \(errorBody.message)" }
}
