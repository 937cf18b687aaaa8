/// What `BotSupervisor` needs of a running bot: `BotSession` in production, a scripted stand-in in tests.
public protocol SupervisedBot: AnyObject, Sendable {
    /// Runs the bot until it stops for good, and says why. Never throws: a bot's failure is its own.
    func run() async -> BotStopReason

    /// Stops taking new work, lets running handlers finish and pending acknowledgements arrive within `deadline`,
    /// closes the connection (1000) and the bot's database; `run()` returns `.shutdown` afterwards.
    func shutdown(deadline: Duration) async

    /// The bot's current state and counters.
    var status: BotStatus { get async }

    /// Messages in and out per minute over the last hour, oldest first (60 values); empty when not counted.
    var messagesPerMinute: [Int] { get async }
}

extension SupervisedBot {
    public var messagesPerMinute: [Int] { get async { [] } }
}
