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
    }

    @Test func sayTakesItsOptionsAndTheWordsAfterThemAsTheMessage() throws {
        #expect(try BotCommand.parse(["say", "--as", "alice", "--to", "echo_bot", "remind", "me", "--", "-1"])
            == .say(.init(sender: "alice", recipient: "echo_bot", text: "remind me -1")))
        #expect(try BotCommand.parse(["say", "hi", "--to=echo_bot", "--as", "bob", "--wait", "0", "--password", "pw"])
            == .say(.init(sender: "bob", password: "pw", recipient: "echo_bot", text: "hi", wait: .zero)))
    }

    @Test func helpIsAskedForInEveryUsualWay() throws {
        #expect(try BotCommand.parse(["--help"]) == .help(command: nil))
        #expect(try BotCommand.parse(["-h"]) == .help(command: nil))
        #expect(try BotCommand.parse(["help"]) == .help(command: nil))
        #expect(try BotCommand.parse(["help", "sandbox"]) == .help(command: "sandbox"))
        #expect(try BotCommand.parse(["run", "--config", "x.json", "--help"]) == .help(command: "run"))
    }

    @Test(arguments: [
        (["deploy"], #"unknown command "deploy"; the commands are run, check, sandbox, say, chat, help, export, import"#),
        (["say", "--to", "echo_bot", "hi"], "say needs --as USER: who sends"),
        (["say", "--as", "alice", "--to", "echo_bot"], "say needs a message after the options"),
        ([], "no command given"),
        (["run", "--prot", "1"], "unknown option --prot for run"),
        (["run", "--config"], "--config needs a value"),
        (["run", "--config", "--sandbox-port"], "--config needs a value"),
        (["run", "extra"], #"unexpected argument "extra" for run"#),
        (["sandbox", "--port", "70000"], #"--port must be a port number from 0 to 65535 (0: any free port), found "70000""#),
        (["run", "--shutdown-timeout", "soon"], #"--shutdown-timeout must be a number of seconds from 0 to 86400, found "soon""#),
        (["help", "deploy"], #"no help for "deploy": not a command"#),
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
