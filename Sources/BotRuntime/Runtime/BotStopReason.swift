/// Why a bot's `BotSession.run()` returned: stopped on request, or a problem a person must fix. The supervisor
/// logs `description` and leaves the other bots running.
public enum BotStopReason: Sendable, Equatable, CustomStringConvertible {
    /// `shutdown(deadline:)` was called (SIGTERM, the bot removed).
    case shutdown
    /// The configuration is wrong: the client key (close 4002, `INVALID_CLIENT_KEY`), or the server refused the
    /// sign-in for good. The text says what to check.
    case configurationError(String)
    /// The bot's username or password was refused (`INVALID_CREDENTIALS`).
    case credentialsRejected(String)
    /// The device was revoked (close 4003: logged out, account deleted) and signing in afresh failed.
    case revoked(String)
    /// The bot's SQLite file could not be opened or written (permissions, disk full, a damaged file).
    case storageFailed(String)
    /// The bot's handlers kept crashing the process (`docs/quarantine.md`): its kind's `make`, its `onStart` or its `onReady` did, or too
    /// many pieces of its work were quarantined within an hour. The text says what to do.
    case crashing(String)

    /// The session's own stop reason, as the supervisor reports it.
    init(_ reason: SessionStopReason) {
        switch reason {
        case .requested: self = .shutdown
        case .clientKeyInvalid, .signInRejected: self = .configurationError(reason.message)
        case .invalidCredentials: self = .credentialsRejected(reason.message)
        case .sessionRevoked: self = .revoked(reason.message)
        }
    }

    /// Whether the fix is in `bots.json` or the environment (client key, credentials) rather than on the server.
    public var isConfigurationError: Bool {
        switch self {
        case .configurationError, .credentialsRejected: true
        case .shutdown, .revoked, .storageFailed, .crashing: false
        }
    }

    /// Whether starting the process again at once cannot bring the bot back: its configuration is wrong, or its
    /// handlers keep crashing the process (until its quarantined work is dropped or retried, or, for the hourly
    /// limit alone, the hour has passed).
    package var waitsForAnOperator: Bool {
        switch self {
        case .configurationError, .credentialsRejected, .crashing: true
        case .shutdown, .revoked, .storageFailed: false
        }
    }

    public var description: String {
        switch self {
        case .shutdown: "stopped on request"
        case .configurationError(let text): text
        case .credentialsRejected(let text): text
        case .revoked(let text): text
        case .storageFailed(let text): "storage failed: \(text)"
        case .crashing(let text): "crashing: \(text)"
        }
    }
}
