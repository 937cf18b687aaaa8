import BotRuntime
import ChatterBots
import Foundation

/// What a command reads from and writes to: the process's by default, substitutes in tests (captured output, a
/// shutdown requested by the test instead of a signal, fake sessions).
struct CommandEnvironment: Sendable {
    /// Where a relative `--config` or `--data` is resolved, and where `bots.json` is looked for.
    var workingDirectory: URL
    /// Where `{"env": …}` values of the configuration are looked up.
    var variables: [String: String]
    /// What the commands print for people (what runs, how to talk to it, `check`'s report).
    var standardOutput: any LogOutput
    /// Usage and configuration errors, and the logs.
    var standardError: any LogOutput
    /// Asks `run` and `sandbox` to stop; the signal watcher calls it when `watchesSignals`.
    var shutdown: ShutdownRequest
    /// Whether `run` and `sandbox` watch SIGINT/SIGTERM (a second signal exits the process at once).
    var watchesSignals: Bool
    /// The time source of the sessions and the embedded sandbox.
    var clock: any ChatterClock
    /// Makes the session that runs one bot.
    var makeSession: @Sendable (BotLineup.Member, BotHost) -> any SupervisedBot
    /// The person's typed lines, for `chat` (standard input, read on a thread of its own).
    var standardInput: @Sendable () -> AsyncStream<String> = { StandardInputReader.lines() }
    /// How `chat` colours what it prints on standard output: ANSI colours only on a terminal.
    var standardOutputStyle: TerminalStyle = .plain
    /// How long one REST request of the bots, `say` and `chat` may take in all, in real time: the production bounds
    /// unless a test gives its hang guards.
    var restRequestTimeouts = RESTRequestTimeouts()

    /// The process's own: its working directory and environment, standard output and error, signals.
    static func process(makeSession: @escaping @Sendable (BotLineup.Member, BotHost) -> any SupervisedBot) -> CommandEnvironment {
        CommandEnvironment(
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
            variables: ProcessInfo.processInfo.environment,
            standardOutput: FileDescriptorLogOutput.standardOutput,
            standardError: FileDescriptorLogOutput.standardError,
            shutdown: ShutdownRequest(), watchesSignals: true, clock: SystemClock(), makeSession: makeSession,
            standardOutputStyle: TerminalStyle.detect(fileDescriptor: 1, environment: ProcessInfo.processInfo.environment))
    }

    /// `path` made absolute against the working directory (`~` expanded).
    func resolve(_ path: String) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded).standardizedFileURL }
        return workingDirectory.appendingPathComponent(expanded).standardizedFileURL
    }
}

/// What every session of a `run` shares: the server, the data directory, the log, the clock, and what guards
/// against work that crashes the process.
struct BotHost: Sendable {
    var server: ChatterServerConfiguration
    var dataDirectory: URL
    var log: LogSink
    var clock: any ChatterClock
    var quarantine: QuarantineSettings = .default
    var inFlightTable: InFlightTable?
    var suspectGate = SuspectGate()
    var makeThreads = MakeThreads(fitting: BotRuntimeEnvironment.defaultStartupGate)
    /// Another shard's embedded sandbox makes the accounts: a bot added by a reload may sign in first.
    var accountsMayAppear = false
    /// How long one REST request of a bot may take in all, in real time.
    var restRequestTimeouts = RESTRequestTimeouts()

    /// The runtime environment of one bot's session on this host.
    var environment: BotRuntimeEnvironment {
        var environment = BotRuntimeEnvironment(server: server, dataDirectory: dataDirectory, clock: clock, logSink: log)
        environment.quarantine = quarantine
        environment.inFlightTable = inFlightTable
        environment.suspectGate = suspectGate
        environment.makeThreads = makeThreads
        environment.accountsMayAppear = accountsMayAppear
        environment.restRequestTimeouts = restRequestTimeouts
        return environment
    }
}
