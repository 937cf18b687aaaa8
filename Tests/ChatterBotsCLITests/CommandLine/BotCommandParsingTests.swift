@testable import ChatterBotsCLI
@testable import BotRuntime
import Testing

@Suite("command line parsing")
struct BotCommandParsingTests {
    @Test func runTakesItsOptionsSeparatedOrWithEquals() throws {
        #expect(try BotCommand.parse(["run"]) == .run(.init()))
        #expect(try BotCommand.parse(["run", "--config", "prod.json", "--sandbox-port=0", "--shutdown-timeout", "2.5"])
            == .run(.init(configuration: "prod.json", sandboxPort: 0, shutdownTimeout: .milliseconds(2500))))
        #expect(try BotCommand.parse(["run", "-c", "x.json"]) == .run(.init(configuration: "x.json")))
    }

    @Test func checkAndSandboxTakeTheirOptions() throws {
        #expect(try BotCommand.parse(["check"]) == .check(configuration: nil))
        #expect(try BotCommand.parse(["check", "--config=a.json"]) == .check(configuration: "a.json"))
        #expect(try BotCommand.parse(["sandbox", "--port", "0", "--data", "tmp/data"])
            == .sandbox(.init(port: 0, dataDirectory: "tmp/data")))
        #expect(try BotCommand.parse(["sandbox"]) == .sandbox(.init()))
        #expect(try BotCommand.parse(["sandbox", "--console-port", "0", "--console-bind", "0.0.0.0"])
            == .sandbox(.init(consolePort: 0, consoleBind: "0.0.0.0")))
    }

    @Test func sayTakesItsOptionsAndTheWordsAfterThemAsTheMessage() throws {
        #expect(try BotCommand.parse(["say", "--as", "alice", "--to", "echo_bot", "remind", "me", "--", "-1"])
            == .say(.init(sender: "alice", recipient: "echo_bot", text: "remind me -1")))
        #expect(try BotCommand.parse(["say", "hi", "--to=echo_bot", "--as", "bob", "--wait", "0", "--password", "pw"])
            == .say(.init(sender: "bob", password: "pw", recipient: "echo_bot", text: "hi", wait: .zero)))
    }

    @Test func quarantineTakesAnActionAndIDsWrittenBotSlashNumber() throws {
        #expect(try BotCommand.parse(["quarantine", "list"]) == .quarantine(.init(action: .list(bot: nil))))
        #expect(try BotCommand.parse(["quarantine", "list", "--bot", "poison", "--config=a.json", "--json"])
            == .quarantine(.init(action: .list(bot: "poison"), configuration: "a.json", json: true)))
        #expect(try BotCommand.parse(["quarantine", "retry", "poison/3"])
            == .quarantine(.init(action: .retry(bot: "poison", id: 3))))
        #expect(try BotCommand.parse(["quarantine", "drop", "-c", "x.json", "my.bot/12"])
            == .quarantine(.init(action: .drop(bot: "my.bot", id: 12), configuration: "x.json")))
        #expect(try BotCommand.parse(["quarantine", "--help"]) == .help(command: "quarantine"))
    }

    @Test func helpIsAskedForInEveryUsualWay() throws {
        #expect(try BotCommand.parse(["--help"]) == .help(command: nil))
        #expect(try BotCommand.parse(["-h"]) == .help(command: nil))
        #expect(try BotCommand.parse(["help"]) == .help(command: nil))
        #expect(try BotCommand.parse(["help", "sandbox"]) == .help(command: "sandbox"))
        #expect(try BotCommand.parse(["run", "--config", "x.json", "--help"]) == .help(command: "run"))
    }

    @Test(arguments: [
        (["deploy"], #"unknown command "deploy"; the commands are run, check, sandbox, say, chat, quarantine, reload, help, export, import"#),
        (["say", "--to", "echo_bot", "hi"], "say needs --as USER: who sends"),
        (["say", "--as", "alice", "--to", "echo_bot"], "say needs a message after the options"),
        ([], "no command given"),
        (["run", "--prot", "1"], "unknown option --prot for run"),
        (["run", "--config"], "--config needs a value"),
        (["run", "--config", "--sandbox-port"], "--config needs a value"),
        (["run", "extra"], #"unexpected argument "extra" for run"#),
        (["sandbox", "--port", "70000"], #"--port must be a port number from 0 to 65535 (0: any free port), found "70000""#),
        (["sandbox", "--console-bind", "0.0.0.0"], "--console-bind goes with --console-port: the console is off without a port"),
        (["run", "--shutdown-timeout", "soon"], #"--shutdown-timeout must be a number of seconds from 0 to 86400, found "soon""#),
        (["help", "deploy"], #"no help for "deploy": not a command"#),
        (["quarantine"], "quarantine needs list, retry ID or drop ID"),
        (["quarantine", "purge"], #"unknown quarantine action "purge"; the actions are list, retry and drop"#),
        (["quarantine", "retry"], "quarantine retry needs one ID, as `quarantine list` shows it (e.g. poison/3)"),
        (["quarantine", "drop", "3"], #""3" is not a quarantine ID: write BOT/N as `quarantine list` shows it (e.g. poison/3)"#),
        (["quarantine", "retry", "poison/0"], #""poison/0" is not a quarantine ID: write BOT/N as `quarantine list` shows it (e.g. poison/3)"#),
        (["quarantine", "retry", "--bot", "poison", "poison/1"], "--bot goes with quarantine list; retry takes an ID like poison/3"),
    ])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String) {
        #expect(throws: CommandLineUsageError.self) { try BotCommand.parse(arguments) }
        do {
            _ = try BotCommand.parse(arguments)
        } catch {
            #expect(error.message == message)
        }
    }
}
