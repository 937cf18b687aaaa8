import ChatterBots

/// A fault the console can set off on the embedded sandbox, to watch a bot react (its state in the fleet).
package enum ConsoleFault: String, CaseIterable, Sendable {
    /// Drop the bot's socket without a close frame (1006).
    case dropSocket
    /// Never deliver the bot's next `message.new` (a gap its sync must fill).
    case loseMessageNew
    /// Send each `message.new` to the bot twice (until the faults are cleared).
    case duplicateEvent
    /// Close the bot's socket with 4008 and a reason of 5 (seconds): a rate limit.
    case rateLimit
    /// Restart the sandbox server: every socket closes with 1001 "server restarting", connecting is refused for a
    /// few seconds, then it listens again on the same port with its data kept; the bot named is not needed.
    case restartServer
    /// Disarm the bot's lasting faults.
    case clearFaults
}

/// Sets off `ConsoleFault`s; `run` passes one when the server is the embedded sandbox.
package protocol ConsoleFaultInjector: Sendable {
    /// Sets off `fault` on the connections of the user `userId` (a bot, or any sandbox user); `userId` is nil only
    /// for `restartServer`, which hits everyone.
    ///
    /// - Throws: `ConsoleInputError` saying why it cannot (the user has no open connection).
    func inject(_ fault: ConsoleFault, into userId: User.ID?) async throws(ConsoleInputError)
}
