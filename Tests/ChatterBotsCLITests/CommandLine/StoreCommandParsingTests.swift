@testable import ChatterBotsCLI
import Testing

/// `export BOT --to FILE` and `import FILE [--as BOT]`, with the data directory from `--config` or `--data`.
@Suite("command line parsing: export and import")
struct StoreCommandParsingTests {
    @Test func exportTakesTheBotAndTheFileInAnyOrder() throws {
        #expect(try BotCommand.parse(["export", "echo", "--to", "echo.store"])
            == .export(bot: "echo", file: "echo.store", configuration: nil, dataDirectory: nil))
        #expect(try BotCommand.parse(["export", "--to=echo.store", "--config", "prod.json", "echo"])
            == .export(bot: "echo", file: "echo.store", configuration: "prod.json", dataDirectory: nil))
    }

    @Test func importTakesTheFileAndOptionallyTheBotAndTheDataDirectory() throws {
        #expect(try BotCommand.parse(["import", "echo.store"])
            == .importStore(file: "echo.store", bot: nil, configuration: nil, dataDirectory: nil))
        #expect(try BotCommand.parse(["import", "echo.store", "--as", "echo-2", "--data", "shard-3"])
            == .importStore(file: "echo.store", bot: "echo-2", configuration: nil, dataDirectory: "shard-3"))
        #expect(try BotCommand.parse(["import", "--help"]) == .help(command: "import"))
    }

    @Test(arguments: [
        (["export", "echo"], "export needs --to FILE: where the copy goes"),
        (["export", "--to", "x.store"], "export needs the name of one bot, found 0"),
        (["export", "echo", "other", "--to", "x.store"], "export needs the name of one bot, found 2"),
        (["import"], "import needs the path of one exported file, found 0"),
        (["import", "x.store", "--to", "y"], "unknown option --to for import"),
        (["export", "echo", "--to", "x", "--as", "y"], "unknown option --as for export"),
        (["import", "x.store", "--config", "a.json", "--data", "d"], "import takes --config FILE or --data DIR, not both"),
    ])
    func badStoreCommandLinesSayWhatIsWrong(arguments: [String], message: String) {
        do {
            _ = try BotCommand.parse(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(error.message == message)
        }
    }
}
