import Foundation

/// Why a bot's session stopped for good. Every case but `.requested` needs a person: `message` says what to fix.
public enum SessionStopReason: Sendable, Equatable, CustomStringConvertible {
    /// The runtime asked the session to stop (shutdown, bot removed).
    case requested
    /// Close 4002 or `INVALID_CLIENT_KEY`: the client key in the configuration is wrong.
    case clientKeyInvalid
    /// `INVALID_CREDENTIALS` on a password login: the bot's username or password is wrong.
    case invalidCredentials
    /// Close 4003 (device logged out, account deleted), then the one fresh sign-in failed with `failure`,
    /// or (nil) the new session was revoked again before it became ready.
    case sessionRevoked(failure: SignInFailure?)
    /// The server refused sign-in with an error that retrying cannot fix.
    case signInRejected(code: String, message: String)

    /// Whether the fix is in the configuration (client key, credentials) rather than on the server's side.
    public var isConfigurationError: Bool {
        switch self {
        case .clientKeyInvalid, .invalidCredentials, .signInRejected: true
        case .requested, .sessionRevoked: false
        }
    }

    /// A sentence for the log and the operator: what happened and what to do.
    public var message: String {
        switch self {
        case .requested:
            "stopped on request"
        case .clientKeyInvalid:
            "configuration error: check the client key (the server rejected it: close 4002 / INVALID_CLIENT_KEY)"
        case .invalidCredentials:
            "configuration error: check the bot's username and password (INVALID_CREDENTIALS)"
        case .sessionRevoked(let failure?):
            "the session was revoked (close 4003: logged out or account deleted) and signing in afresh failed: "
                + "\(failure); check that the account still exists and its credentials"
        case .sessionRevoked(nil):
            "the session was revoked (close 4003) again right after signing in afresh; "
                + "check that the account still exists and is allowed to sign in"
        case .signInRejected(let code, let message):
            "sign-in refused by the server (\(code)): \(message); check the bot's credentials and configuration"
        }
    }

    public var description: String { message }
}
