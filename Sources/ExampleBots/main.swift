import ChatterBotsCLI
import ExampleBotKinds

// The bot kinds bots.json may use; ChatterBotsCLI's command line does the rest (run, check, sandbox, say, help).
await BotCommandLine(kinds: [
    EchoBot.botKind, AutoResponderBot.botKind, ReminderBot.botKind, FriendGreeterBot.botKind,
]).main()
