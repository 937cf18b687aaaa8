import BotRuntime
import ChatterBots

/// Why the terminal client stopped before the person asked it to; `description` says what to do.
public enum ChatClientError: Error, Sendable, CustomStringConvertible {
    /// The username or password was refused (`INVALID_CREDENTIALS`).
    case invalidCredentials(username: String)
    /// The client key was refused (`INVALID_CLIENT_KEY` or close 4002).
    case clientKeyRejected
    /// The server could not be reached to sign in.
    case serverUnreachable(apiURL: String, description: String)
    /// Signing in failed for another reason the server gave.
    case signInFailed(description: String)
    /// The device was signed out elsewhere (close 4003) and signing in again failed. (`ChatClient` itself now stops
    /// with `.signedOut` instead of signing in again.)
    case sessionRevoked(description: String)
    /// The server revoked this device's session (close 4003: signed out from another device, or the account was
    /// deleted). The client stops and forgets the device, as the service's apps go back to their welcome screen.
    case signedOut(username: String)
    /// The input ended, and `ChatScreen.acknowledgementWait` after it, with `count` messages the server had not
    /// acknowledged: they may not have been sent.
    case messagesNotAcknowledged(count: Int)

    public var description: String {
        switch self {
        case .invalidCredentials(let username):
            "the server refused the password for \"\(username)\": check --as and --password"
        case .clientKeyRejected:
            "the server refused the client key: check --client-key (or the server of the configuration)"
        case .serverUnreachable(let apiURL, let description):
            "cannot reach \(apiURL) (\(description)): is the server running? For the sandbox, start `example-bots run` first"
        case .signInFailed(let description):
            "signing in failed: \(description)"
        case .sessionRevoked(let description):
            "this device was signed out elsewhere and signing in again failed: \(description)"
        case .signedOut(let username):
            "\(username) was signed out on this device (the server revoked its session: a sign-out elsewhere, or the "
                + "account was deleted); its device was forgotten: sign in again to go on"
        case .messagesNotAcknowledged(let count):
            "\(count) message\(count == 1 ? " was" : "s were") not acknowledged by the server and may not have been "
                + "sent: check the conversation, and send again what is missing"
        }
    }
}
