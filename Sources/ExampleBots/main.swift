import BotRuntime
import ExampleBotKinds

// The bot kinds bots.json may use; BotRuntime's command line does the rest (run, check, sandbox, help).
await BotCommandLine(kinds: [EchoBot.kind]).main()
