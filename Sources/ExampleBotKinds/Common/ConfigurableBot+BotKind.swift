import ChatterBots

extension ConfigurableBot {
    /// This bot as a kind the command line can run: `BotCommandLine(kinds: [ReminderBot.botKind, …])`.
    public static var botKind: BotKind {
        BotKind(kind) { configuration in try Self(configuration: configuration) }
    }
}
