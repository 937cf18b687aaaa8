import ChatterBots
import Foundation

/// How a bot signs in: design.md point 1 (refresh first, then a password login that keeps the stored deviceId).
package enum SignInMethod: Sendable, Equatable, CustomStringConvertible {
    /// `POST /auth/refresh` with the stored refresh token.
    case refreshToken
    /// `POST /auth/login` with the bot's username and password, passing the stored `deviceId` when there is one,
    /// so the bot stays one device for its whole life.
    case freshLogin

    public var description: String {
        switch self {
        case .refreshToken: "token refresh"
        case .freshLogin: "password login"
        }
    }
}

/// Why a sign-in attempt failed, as far as the session's next step is concerned. The actor maps the REST
/// client's error (API code, HTTP status, transport error) to one of these.
public enum SignInFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `INVALID_CREDENTIALS`: the username or password is wrong.
    case invalidCredentials
    /// `INVALID_REFRESH_TOKEN` (unknown, already used, device revoked), or no refresh token is stored.
    case invalidRefreshToken
    /// `INVALID_CLIENT_KEY`: the configured client key is wrong.
    case invalidClientKey
    /// `RATE_LIMITED`: wait as long as `Retry-After` says.
    case rateLimited(RateLimitDelay)
    /// The server could not be reached or failed (network error, timeout, 5xx): retried with backoff.
    case unavailable(String)
    /// Any other error response (`VALIDATION_FAILED`, `FORBIDDEN`…): permanent, not retried.
    case rejected(code: String, message: String)

    public var description: String {
        switch self {
        case .invalidCredentials: "invalid credentials (INVALID_CREDENTIALS)"
        case .invalidRefreshToken: "invalid refresh token (INVALID_REFRESH_TOKEN)"
        case .invalidClientKey: "invalid client key (INVALID_CLIENT_KEY)"
        case .rateLimited(let delay): delay.description
        case .unavailable(let detail): "server unavailable: \(detail)"
        case .rejected(let code, let message): "rejected (\(code)): \(message)"
        }
    }
}

extension SignInFailure {
    /// What a failed sign-in request (login or refresh) means for the session's next step: the REST client's
    /// error read as an API code, a transport failure or a client-side error.
    package init(signInError error: any Error) {
        if let error = error as? ChatterAPIError {
            switch error.code {
            case .invalidCredentials: self = .invalidCredentials
            case .invalidRefreshToken, .unauthorized: self = .invalidRefreshToken
            case .invalidClientKey: self = .invalidClientKey
            case .rateLimited: self = .rateLimited(RateLimitDelay(delay: error.retryAfter ?? RateLimitDelay.fallback))
            default:
                self = error.isTransient ? .unavailable(error.description) : .rejected(code: error.code.rawValue, message: error.message)
            }
            return
        }
        if let error = error as? ChatterClientError {
            switch error {
            case .notSignedIn: self = .invalidRefreshToken
            case .transport, .invalidResponse, .responseTooLarge: self = .unavailable(error.description)
            case .invalidRequest, .missingClientSecret: self = .rejected(code: "CLIENT_ERROR", message: error.description)
            }
            return
        }
        self = .unavailable(String(describing: error))
    }
}
