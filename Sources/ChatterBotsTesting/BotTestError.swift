import ChatterBots

/// Why a step of a bot test could not be carried out. Each case says what was awaited or refused, so a failing
/// test reads as a sentence instead of a hang or a bare "timed out".
public enum BotTestError: Error, Sendable, CustomStringConvertible {
    /// Something awaited in real time did not happen in time: `what` says what, `timeout` how long was given.
    case timedOut(what: String, timeout: Duration)
    /// The bot's session stopped while the test needed it (bad credentials, storage, a 4002): `reason` from
    /// `BotStopReason`.
    case botStopped(reason: String)
    /// The bot could not be made from its kind and options (the kind's error, e.g. a misspelled option).
    case invalidBot(String)
    /// The sandbox refused a set-up step (a taken or invalid username, a group of strangers…).
    case sandboxRefused(step: String, error: ChatterErrorBody)
    /// The step needs the bot running, connected or stopped, and it is not (`restartBot()` on a stopped bot…).
    case wrongBotState(String)
    /// The step needs the test user online (`goOnline()` first).
    case userOffline(username: String)
    /// A wall-clock time given to the harness is not in the expected form or does not exist in its zone.
    case invalidTime(String)

    public var description: String {
        switch self {
        case .timedOut(let what, let timeout): "timed out after \(timeout) waiting for \(what)"
        case .botStopped(let reason): "the bot stopped: \(reason)"
        case .invalidBot(let message): "the bot could not be made: \(message)"
        case .sandboxRefused(let step, let error): "the sandbox refused to \(step): \(error.code): \(error.message)"
        case .wrongBotState(let message): message
        case .userOffline(let username): "\(username) is offline; call goOnline() first"
        case .invalidTime(let message): message
        }
    }
}
