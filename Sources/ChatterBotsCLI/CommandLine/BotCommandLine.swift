import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation

/// The command line of a bot executable: `run`, `check`, `sandbox`, `say`, `chat`, `quarantine`, `reload`, `export`,
/// `import` and `help`, for the bot kinds the executable registers. A whole `main.swift`:
///
/// ```swift
/// import ChatterBotsCLI
///
/// await BotCommandLine(kinds: [
///     BotKind("echo") { _ in EchoBot() },
/// ]).main()
/// ```
///
/// Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error (see `ExitCode`).
public struct BotCommandLine: Sendable {
    /// How a command ended.
    public enum ExitCode: Int32, Sendable {
        /// Done, or stopped on request.
        case success = 0
        /// Something failed while running: every bot stopped, a port was taken, the shutdown overran its timeout.
        case failure = 1
        /// The command line or the configuration is wrong; nothing was started.
        case usageError = 2
    }

    /// The bot kinds `bots.json` may use.
    public var kinds: [BotKind]
    /// The name in usage texts (by default the executable's file name).
    public var programName: String
    let makeSession: @Sendable (BotLineup.Member, BotHost) -> any SupervisedBot

    /// The command line for `kinds`; `programName` defaults to the executable's file name.
    public init(kinds: [BotKind], programName: String? = nil) {
        self.init(kinds: kinds, programName: programName) { member, host in
            BotSession(member: member, environment: host.environment)
        }
    }

    init(
        kinds: [BotKind], programName: String?,
        makeSession: @escaping @Sendable (BotLineup.Member, BotHost) -> any SupervisedBot
    ) {
        self.kinds = kinds
        self.programName = programName
            ?? CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "bots"
        self.makeSession = makeSession
    }

    /// Runs the command of the process's arguments and exits with its code.
    public func main() async -> Never {
        let code = await run(arguments: Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }

    /// Runs the command `arguments` (without the program name) in this process: its working directory,
    /// environment, standard output and error, and signals.
    public func run(arguments: [String]) async -> ExitCode {
        await execute(arguments, in: .process(makeSession: makeSession))
    }

    /// Runs the command `arguments` in `environment`; everything printed is flushed before it returns.
    func execute(_ arguments: [String], in environment: CommandEnvironment) async -> ExitCode {
        let help = CommandLineHelp(program: programName, kinds: kinds.map(\.name))
        let code: ExitCode
        do {
            switch try BotCommand.parse(arguments) {
            case .help(let command):
                environment.standardOutput.write(line: help.text(for: command))
                code = .success
            case .check(let configuration, let shards, let from):
                code = await check(configuration: configuration, shards: shards, from: from, in: environment)
            case .run(let options):
                code = await runBots(options, in: environment)
            case .sandbox(let options):
                code = await runSandbox(options, in: environment)
            case .say(let options):
                code = await say(options, in: environment)
            case .chat(let options):
                code = await chat(options, in: environment)
            case .quarantine(let options):
                code = await quarantine(options, in: environment)
            case .reload(let configuration):
                code = await reload(configuration: configuration, in: environment)
            case .export(let bot, let file, let configuration, let dataDirectory):
                code = await export(bot: bot, to: file, configuration: configuration, dataDirectory: dataDirectory, in: environment)
            case .importStore(let file, let bot, let configuration, let dataDirectory):
                code = await importStore(file, as: bot, configuration: configuration, dataDirectory: dataDirectory, in: environment)
            }
        } catch {
            let hint = error.command.map { "\(programName) help \($0)" } ?? "\(programName) --help"
            environment.standardError.write(line: "\(programName): \(error.message)\nSee '\(hint)' for usage.")
            code = .usageError
        }
        await environment.standardOutput.flush()
        await environment.standardError.flush()
        return code
    }

    /// The configuration file of `--config`, or `bots.json` in the working directory.
    func configurationURL(_ path: String?, in environment: CommandEnvironment) -> URL {
        environment.resolve(path ?? "bots.json")
    }

    /// The loaded configuration and its bots, or nil after printing why there are none (a usage error), with the
    /// `problems` found in the loaded configuration besides its bots' kinds, all at once. `makingBots` makes every
    /// bot, checking its options too (`check`); otherwise each session makes its own as it starts.
    func loadLineup(
        _ path: String?, in environment: CommandEnvironment, makingBots: Bool = false,
        problems: (BotsConfiguration) -> [ConfigurationIssue] = { _ in [] }
    ) -> (BotsConfiguration, BotLineup)? {
        let url = configurationURL(path, in: environment)
        guard FileManager.default.fileExists(atPath: url.path) else {
            let advice = path == nil
                ? "run from the directory of your bots.json, or pass --config FILE"
                : "check the path given to --config"
            environment.standardError.write(line: "\(programName): no configuration at \(url.path); \(advice)")
            return nil
        }
        do throws(ConfigurationError) {
            let configuration = try BotsConfiguration.load(
                contentsOf: url, environment: environment.variables, knownKinds: Set(kinds.map(\.name)))
            let found = problems(configuration)
            let lineup: BotLineup
            do throws(ConfigurationError) {
                let kinded = try BotLineup(configuration: configuration, kinds: kinds)
                lineup = makingBots ? try kinded.madeBots() : kinded
            } catch {
                throw ConfigurationError(issues: error.issues + found, file: error.file)
            }
            guard found.isEmpty else { throw ConfigurationError(issues: found) }
            return (configuration, lineup)
        } catch {
            var error = error
            if error.file == nil { error.file = url.path }
            environment.standardError.write(line: "\(programName): \(error)")
            return nil
        }
    }
}
