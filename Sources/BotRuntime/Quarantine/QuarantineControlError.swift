/// Why an operator's request on the quarantine (a control route, a `quarantine` command) was refused, and what to do.
package enum QuarantineControlError: Error, Hashable, CustomStringConvertible {
    /// No bot of the process (or of the configuration) has this name.
    case unknownBot(String, known: [String])
    /// The bot has no quarantined entry with this number.
    case unknownEntry(QuarantineReference)
    /// The bot's store failed.
    case storage(bot: String, reason: String)
    /// A running process uses the data directory, and the request could not go through it.
    case dataDirectoryInUse(String)
    /// Another process has the bot's store open.
    case storeLocked(bot: String, path: String)
    /// The bot's session claimed its store to open it (the bot starts, or a reload replaces its session) and had
    /// neither opened it nor given it up after `waited`, how long a handler may run.
    case storeOpening(bot: String, waited: Duration)

    /// What to do when a live process has the stores and cannot be reached.
    static let reachTheProcess =
        "set httpPort in bots.json and restart `run` (the quarantine commands then go through its HTTP port), "
        + "or stop it and run the command again"

    /// The refusal of a request on the quarantine of `bot` whose store failed with `error`.
    init(_ error: BotStoreError, bot: String) {
        if case .stillOpening(_, let waited) = error {
            self = .storeOpening(bot: bot, waited: waited)
        } else {
            self = .storage(bot: bot, reason: error.description)
        }
    }

    package var description: String {
        switch self {
        case .unknownBot(let name, let known):
            "no bot named \"\(name)\"; the bots are \(known.isEmpty ? "none" : known.joined(separator: ", "))"
        case .unknownEntry(let reference):
            "\(reference) is not in the quarantine; `quarantine list` shows what is"
        case .storage(let bot, let reason):
            "the store of bot \"\(bot)\" failed: \(reason)"
        case .dataDirectoryInUse(let directory):
            "a running process uses the data directory \(directory) and cannot be reached over HTTP, so its stores "
                + "are left alone: \(Self.reachTheProcess)"
        case .storeLocked(let bot, let path):
            "the store of bot \"\(bot)\" (\(path)) is locked by a running process that cannot be reached over HTTP: "
                + Self.reachTheProcess
        case .storeOpening(let bot, let waited):
            "bot \"\(bot)\" has been opening its store for \(waited) (it is starting, or a reload replaces its "
                + "session): send the request again once the bot is live or stopped"
        }
    }
}
