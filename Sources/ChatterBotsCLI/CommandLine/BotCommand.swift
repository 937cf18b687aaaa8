import BotRuntime
import ChatterBots
import Foundation

/// A parsed command line of a bot executable (`BotCommandLine`).
public enum BotCommand: Sendable, Equatable {
    /// `run`: run the bots of a configuration until SIGINT/SIGTERM.
    case run(RunOptions)
    /// `check`: validate a configuration and print what would run; with `shards`, each shard's bots, and with
    /// `from` too, which bots move when the count goes from `from` to `shards`.
    case check(configuration: String?, shards: Int? = nil, from: Int? = nil)
    /// `sandbox`: run the local Chatter sandbox alone until SIGINT/SIGTERM.
    case sandbox(SandboxOptions)
    /// `say`: send one message as a person and print the reply (to try bots from a terminal).
    case say(SayOptions)
    /// `chat`: the terminal client: sign in as a person and read and send messages live.
    case chat(ChatOptions)
    /// `quarantine list|retry|drop`: show, retry or forget the work set aside for crashing the process.
    case quarantine(QuarantineOptions)
    /// `reload [--config FILE]`: ask the running `run` processes of the configuration to read it again.
    case reload(configuration: String?)
    /// `help`, `--help`, `-h` (optionally about one command).
    case help(command: String?)
    /// `export BOT --to FILE`: copy a stopped bot's store to FILE and mark it as moved (docs/scaling.md). The data
    /// directory is `dataDirectory` (`--data DIR`) or the configuration's.
    case export(bot: String, file: String, configuration: String?, dataDirectory: String?)
    /// `import FILE [--as BOT]`: put an exported store into the data directory as the bot's store.
    case importStore(file: String, bot: String?, configuration: String?, dataDirectory: String?)

    /// Options of `quarantine`.
    public struct QuarantineOptions: Sendable, Equatable {
        /// What to do.
        public enum Action: Sendable, Equatable {
            /// `list [--bot NAME]`: every bot's quarantined work, or one bot's.
            case list(bot: String?)
            /// `retry BOT/N`: hand the entry to its handler again.
            case retry(bot: String, id: Int64)
            /// `drop BOT/N`: forget the entry.
            case drop(bot: String, id: Int64)
        }

        public var action: Action
        /// `--config FILE`; nil: `bots.json` in the working directory.
        public var configuration: String?
        /// `--json`: print JSON for machines instead of text for people.
        public var json: Bool

        public init(action: Action, configuration: String? = nil, json: Bool = false) {
            self.action = action
            self.configuration = configuration
            self.json = json
        }
    }

    /// Options of `run`.
    public struct RunOptions: Sendable, Equatable {
        /// `--config FILE`; nil: `bots.json` in the working directory.
        public var configuration: String?
        /// `--sandbox-port N`: the embedded sandbox's port; nil: `EmbeddedSandbox.defaultPort`.
        public var sandboxPort: Int?
        /// `--shutdown-timeout SECONDS`: how long a graceful shutdown may take.
        public var shutdownTimeout: Duration
        /// `--http-bind ADDRESS`: where the HTTP endpoint listens, over the configuration's `httpBind`.
        public var httpBind: String?
        /// `--shard INDEX/COUNT` or `--shard-from-hostname`; nil: the environment's shard, if any.
        package var shard: ShardSelection?
        /// `--watch-config SECONDS`: how often the configuration file is looked at for a change (a reload follows);
        /// zero: never (SIGHUP and `reload` still reload).
        public var configurationWatchInterval: Duration = ConfigurationFileWatch.defaultInterval

        /// The default shutdown timeout: running handlers and pending acknowledgements get this long.
        public static let defaultShutdownTimeout: Duration = .seconds(10)

        public init(configuration: String? = nil, sandboxPort: Int? = nil, shutdownTimeout: Duration = defaultShutdownTimeout) {
            self.configuration = configuration
            self.sandboxPort = sandboxPort
            self.shutdownTimeout = shutdownTimeout
        }
    }

    /// Options of `say`.
    public struct SayOptions: Sendable, Equatable {
        /// `--as USER`: who sends.
        public var sender: String
        /// `--password PASSWORD`; nil: the password of the sandbox test account of that name.
        public var password: String?
        /// `--to USER`: who receives, in a direct conversation (they must be friends).
        public var recipient: String
        /// The message: the words after the options.
        public var text: String
        /// `--server URL`: the REST base URL; nil: the embedded sandbox on its default port.
        public var server: String?
        /// `--client-key KEY`; nil: the sandbox's client key.
        public var clientKey: String?
        /// `--wait SECONDS`: how long to wait for a reply; 0 sends without waiting.
        public var wait: Duration

        /// How long `say` waits for a reply by default.
        public static let defaultWait: Duration = .seconds(15)

        public init(
            sender: String, password: String? = nil, recipient: String, text: String, server: String? = nil,
            clientKey: String? = nil, wait: Duration = defaultWait
        ) {
            self.sender = sender
            self.password = password
            self.recipient = recipient
            self.text = text
            self.server = server
            self.clientKey = clientKey
            self.wait = wait
        }
    }

    /// Options of `sandbox`.
    public struct SandboxOptions: Sendable, Equatable {
        /// `--port N`; nil: `EmbeddedSandbox.defaultPort`; 0: a free port the system chooses (printed).
        public var port: Int?
        /// `--data DIR`: keep the sandbox's database in `DIR/sandbox/`; nil: in memory.
        public var dataDirectory: String?
        /// `--console-port N`: serve the sandbox's web console (chat and faults) on this port; nil: no console.
        public var consolePort: Int?
        /// `--console-bind ADDRESS`: where the console listens (default loopback; elsewhere it needs the control token).
        public var consoleBind: String?

        public init(port: Int? = nil, dataDirectory: String? = nil, consolePort: Int? = nil, consoleBind: String? = nil) {
            self.port = port
            self.dataDirectory = dataDirectory
            self.consolePort = consolePort
            self.consoleBind = consoleBind
        }
    }
}

/// The command line cannot be understood; `message` says what is wrong. Exit code 2.
public struct CommandLineUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --prot for sandbox`.
    public var message: String
    /// The command it concerns, for the usage text to print with it.
    public var command: String?

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}

extension BotCommand {
    /// The commands, in the order the usage lists them.
    public static let names = ["run", "check", "sandbox", "say", "chat", "quarantine", "reload", "help"] + storeCommandNames

    /// The commands that move a bot's store.
    static let storeCommandNames = ["export", "import"]

    /// Parses the arguments after the program name.
    ///
    /// Options take their value as the next argument or after `=` (`--config bots.json`, `--config=bots.json`);
    /// `--help`/`-h` anywhere asks for the help of the command.
    public static func parse(_ arguments: [String]) throws(CommandLineUsageError) -> BotCommand {
        guard let first = arguments.first else {
            throw CommandLineUsageError("no command given")
        }
        var rest = OptionReader(Array(arguments.dropFirst()), command: first)
        switch first {
        case "help", "--help", "-h":
            let topic = rest.arguments.first
            if let topic, !names.contains(topic) {
                throw CommandLineUsageError("no help for \"\(topic)\": not a command")
            }
            return .help(command: topic)
        case "run":
            var options = RunOptions()
            while let option = try rest.nextOption() {
                switch option.name {
                case "--help", "-h": return .help(command: "run")
                case "--config", "-c": options.configuration = try rest.value(of: option)
                case "--sandbox-port": options.sandboxPort = try rest.port(of: option)
                case "--shutdown-timeout": options.shutdownTimeout = try rest.seconds(of: option)
                case "--watch-config": options.configurationWatchInterval = try rest.seconds(of: option)
                case "--http-bind": options.httpBind = try rest.value(of: option)
                case "--shard", "--shard-from-hostname", "--shard-count": try rest.shardOption(option, into: &options.shard)
                default: throw rest.unknown(option)
                }
            }
            if rest.sawShardCount, !rest.sawShardFromHostname {
                throw CommandLineUsageError("--shard-count goes with --shard-from-hostname", command: "run")
            }
            return .run(options)
        case "check":
            var configuration: String?
            var shards: Int?
            var from: Int?
            while let option = try rest.nextOption() {
                switch option.name {
                case "--help", "-h": return .help(command: "check")
                case "--config", "-c": configuration = try rest.value(of: option)
                case "--shards": shards = try rest.shardCount(of: option)
                case "--from": from = try rest.shardCount(of: option)
                default: throw rest.unknown(option)
                }
            }
            if from != nil, shards == nil {
                throw CommandLineUsageError("--from M goes with --shards N: the moves from M to N shards", command: "check")
            }
            return .check(configuration: configuration, shards: shards, from: from)
        case "sandbox":
            var options = SandboxOptions()
            while let option = try rest.nextOption() {
                switch option.name {
                case "--help", "-h": return .help(command: "sandbox")
                case "--port", "-p": options.port = try rest.port(of: option)
                case "--data", "-d": options.dataDirectory = try rest.value(of: option)
                case "--console-port": options.consolePort = try rest.port(of: option)
                case "--console-bind": options.consoleBind = try rest.value(of: option)
                default: throw rest.unknown(option)
                }
            }
            if options.consoleBind != nil, options.consolePort == nil {
                throw CommandLineUsageError("--console-bind goes with --console-port: the console is off without a port", command: "sandbox")
            }
            return .sandbox(options)
        case "say":
            var sender: String?
            var recipient: String?
            var options = SayOptions(sender: "", recipient: "", text: "")
            var words: [String] = []
            while let option = try rest.nextOption(collecting: &words) {
                switch option.name {
                case "--help", "-h": return .help(command: "say")
                case "--as": sender = try rest.value(of: option)
                case "--to": recipient = try rest.value(of: option)
                case "--password": options.password = try rest.value(of: option)
                case "--server": options.server = try rest.value(of: option)
                case "--client-key": options.clientKey = try rest.value(of: option)
                case "--wait": options.wait = try rest.seconds(of: option)
                default: throw rest.unknown(option)
                }
            }
            guard let sender else { throw CommandLineUsageError("say needs --as USER: who sends", command: "say") }
            guard let recipient else { throw CommandLineUsageError("say needs --to USER: who receives", command: "say") }
            let text = words.joined(separator: " ")
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CommandLineUsageError("say needs a message after the options", command: "say")
            }
            options.sender = sender
            options.recipient = recipient
            options.text = text
            return .say(options)
        case "chat":
            var username: String?
            var options = ChatOptions(username: "")
            while let option = try rest.nextOption() {
                switch option.name {
                case "--help", "-h": return .help(command: "chat")
                case "--as": username = try rest.value(of: option)
                case "--password": options.password = try rest.value(of: option)
                case "--config", "-c": options.configuration = try rest.value(of: option)
                case "--sandbox-port": options.sandboxPort = try rest.port(of: option)
                case "--api", "--server": options.apiURL = try rest.value(of: option)
                case "--ws": options.webSocketURL = try rest.value(of: option)
                case "--client-key": options.clientKey = try rest.value(of: option)
                case "--data", "-d": options.dataDirectory = try rest.value(of: option)
                default: throw rest.unknown(option)
                }
            }
            guard let username, !username.isEmpty else {
                throw CommandLineUsageError("chat needs --as USER: who you are (alice or bob on the sandbox)", command: "chat")
            }
            options.username = username
            if options.apiURL != nil, options.configuration != nil {
                throw CommandLineUsageError("chat takes --config FILE or --api URL, not both", command: "chat")
            }
            if options.apiURL == nil, options.webSocketURL != nil || options.clientKey != nil {
                throw CommandLineUsageError("--ws and --client-key go with --api URL", command: "chat")
            }
            return .chat(options)
        case "quarantine":
            return try parseQuarantine(&rest)
        case "reload":
            var words: [String] = []
            var configuration: String?
            while let option = try rest.nextOption(collecting: &words) {
                switch option.name {
                case "--help", "-h": return .help(command: "reload")
                case "--config", "-c": configuration = try rest.value(of: option)
                default: throw rest.unknown(option)
                }
            }
            guard words.isEmpty else {
                throw CommandLineUsageError("reload takes no arguments, found \(words.joined(separator: " "))", command: "reload")
            }
            return .reload(configuration: configuration)
        case "export", "import":
            return try parseStoreCommand(first, &rest)
        default:
            throw CommandLineUsageError(
                "unknown command \"\(first)\"; the commands are \(names.joined(separator: ", "))")
        }
    }
}

extension BotCommand {
    /// `export BOT --to FILE` and `import FILE [--as BOT]`, each with `--config FILE` or `--data DIR`.
    private static func parseStoreCommand(_ command: String, _ rest: inout OptionReader) throws(CommandLineUsageError) -> BotCommand {
        var words: [String] = []
        var file: String?
        var bot: String?
        var configuration: String?
        var dataDirectory: String?
        while let option = try rest.nextOption(collecting: &words) {
            switch (option.name, command) {
            case ("--help", _), ("-h", _): return .help(command: command)
            case ("--config", _), ("-c", _): configuration = try rest.value(of: option)
            case ("--data", _), ("-d", _): dataDirectory = try rest.value(of: option)
            case ("--to", "export"): file = try rest.value(of: option)
            case ("--as", "import"): bot = try rest.value(of: option)
            default: throw rest.unknown(option)
            }
        }
        if configuration != nil, dataDirectory != nil {
            throw CommandLineUsageError("\(command) takes --config FILE or --data DIR, not both", command: command)
        }
        guard words.count == 1, let word = words.first else {
            let what = command == "export" ? "the name of one bot" : "the path of one exported file"
            throw CommandLineUsageError("\(command) needs \(what), found \(words.count)", command: command)
        }
        if command == "import" {
            return .importStore(file: word, bot: bot, configuration: configuration, dataDirectory: dataDirectory)
        }
        guard let file else { throw CommandLineUsageError("export needs --to FILE: where the copy goes", command: command) }
        return .export(bot: word, file: file, configuration: configuration, dataDirectory: dataDirectory)
    }

    /// `quarantine list [--bot NAME]`, `quarantine retry BOT/N`, `quarantine drop BOT/N`, each with `--config FILE`
    /// and `--json`.
    fileprivate static func parseQuarantine(_ rest: inout OptionReader) throws(CommandLineUsageError) -> BotCommand {
        var words: [String] = []
        var bot: String?
        var configuration: String?
        var json = false
        while let option = try rest.nextOption(collecting: &words) {
            switch option.name {
            case "--help", "-h": return .help(command: "quarantine")
            case "--bot", "-b": bot = try rest.value(of: option)
            case "--config", "-c": configuration = try rest.value(of: option)
            case "--json": json = true
            default: throw rest.unknown(option)
            }
        }
        guard let verb = words.first else {
            throw CommandLineUsageError("quarantine needs list, retry ID or drop ID", command: "quarantine")
        }
        let action: QuarantineOptions.Action
        switch verb {
        case "list":
            guard words.count == 1 else {
                throw CommandLineUsageError("quarantine list takes no ID; use --bot NAME for one bot", command: "quarantine")
            }
            action = .list(bot: bot)
        case "retry", "drop":
            guard bot == nil else {
                throw CommandLineUsageError("--bot goes with quarantine list; \(verb) takes an ID like poison/3", command: "quarantine")
            }
            guard words.count == 2 else {
                throw CommandLineUsageError("quarantine \(verb) needs one ID, as `quarantine list` shows it (e.g. poison/3)", command: "quarantine")
            }
            guard let reference = QuarantineReference(words[1]) else {
                throw CommandLineUsageError(
                    "\"\(words[1])\" is not a quarantine ID: write BOT/N as `quarantine list` shows it (e.g. poison/3)",
                    command: "quarantine")
            }
            action = verb == "retry" ? .retry(bot: reference.bot, id: reference.id) : .drop(bot: reference.bot, id: reference.id)
        default:
            throw CommandLineUsageError(
                "unknown quarantine action \"\(verb)\"; the actions are list, retry and drop", command: "quarantine")
        }
        return .quarantine(QuarantineOptions(action: action, configuration: configuration, json: json))
    }
}

/// Reads `--name value`, `--name=value` and flags off the arguments of one command.
private struct OptionReader {
    struct Option {
        var name: String
        var inlineValue: String?
    }

    var arguments: [String]
    let command: String

    init(_ arguments: [String], command: String) {
        self.arguments = arguments
        self.command = command
    }

    /// The next option, or nil at the end; bare words (and everything after `--`) go to `words`.
    mutating func nextOption(collecting words: inout [String]) throws(CommandLineUsageError) -> Option? {
        while let argument = arguments.first {
            if argument == "--" {
                words += arguments.dropFirst()
                arguments = []
                return nil
            }
            guard !argument.hasPrefix("-") || argument == "-" else { return try nextOption() }
            words.append(arguments.removeFirst())
        }
        return nil
    }

    /// The next option, or nil at the end; a bare word is an error.
    mutating func nextOption() throws(CommandLineUsageError) -> Option? {
        guard !arguments.isEmpty else { return nil }
        let argument = arguments.removeFirst()
        guard argument.hasPrefix("-"), argument.count > 1 else {
            throw CommandLineUsageError("unexpected argument \"\(argument)\" for \(command)", command: command)
        }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            return Option(name: String(argument[..<equals]), inlineValue: String(argument[argument.index(after: equals)...]))
        }
        return Option(name: argument, inlineValue: nil)
    }

    mutating func value(of option: Option) throws(CommandLineUsageError) -> String {
        if let inline = option.inlineValue {
            guard !inline.isEmpty else { throw CommandLineUsageError("\(option.name) needs a value", command: command) }
            return inline
        }
        guard let next = arguments.first, !next.hasPrefix("-") || next == "-" else {
            throw CommandLineUsageError("\(option.name) needs a value", command: command)
        }
        arguments.removeFirst()
        return next
    }

    mutating func port(of option: Option) throws(CommandLineUsageError) -> Int {
        let text = try value(of: option)
        guard let port = Int(text), (0...65_535).contains(port) else {
            throw CommandLineUsageError(
                "\(option.name) must be a port number from 0 to 65535 (0: any free port), found \"\(text)\"", command: command)
        }
        return port
    }

    mutating func seconds(of option: Option) throws(CommandLineUsageError) -> Duration {
        let text = try value(of: option)
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw CommandLineUsageError(
                "\(option.name) must be a number of seconds from 0 to 86400, found \"\(text)\"", command: command)
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Whether `--shard-count` was read: it must come with `--shard-from-hostname`.
    var sawShardCount = false
    var sawShardFromHostname = false

    /// Reads `--shard INDEX/COUNT`, `--shard-from-hostname` or `--shard-count N` into `selection`; `--shard` and
    /// `--shard-from-hostname` exclude each other.
    mutating func shardOption(_ option: Option, into selection: inout ShardSelection?) throws(CommandLineUsageError) {
        let conflict = CommandLineUsageError("--shard INDEX/COUNT and --shard-from-hostname exclude each other", command: command)
        switch option.name {
        case "--shard":
            let text = try value(of: option)
            guard selection == nil else { throw conflict }
            do {
                selection = .shard(try Shard(parsing: text))
            } catch {
                throw CommandLineUsageError("--shard: \(error)", command: command)
            }
        case "--shard-from-hostname":
            if let inline = option.inlineValue {
                throw CommandLineUsageError("--shard-from-hostname takes no value, found \"\(inline)\"", command: command)
            }
            sawShardFromHostname = true
            switch selection {
            case .shard?: throw conflict
            case .hostname?: break
            case nil: selection = .hostname(count: nil)
            }
        default:
            let count = try shardCount(of: option)
            sawShardCount = true
            switch selection {
            case .shard?: throw CommandLineUsageError("--shard-count goes with --shard-from-hostname, not --shard", command: command)
            case .hostname?, nil: selection = .hostname(count: count)
            }
        }
    }

    /// A shard count: a whole number from 1 to `Shard.maximumCount`.
    mutating func shardCount(of option: Option) throws(CommandLineUsageError) -> Int {
        let text = try value(of: option)
        do {
            return try Shard.count(parsing: text)
        } catch {
            throw CommandLineUsageError("\(option.name): \(error)", command: command)
        }
    }

    func unknown(_ option: Option) -> CommandLineUsageError {
        CommandLineUsageError("unknown option \(option.name) for \(command)", command: command)
    }
}
