import ChatterBots
import Foundation

/// The validated configuration the runtime runs with: `bots.json` with its environment and file references resolved,
/// relative paths made absolute, and every rule checked.
///
/// Loading reports all problems at once, each naming the bot and the field. A plain-text password is an
/// error unless the server is the sandbox: a real account's password belongs in the environment
/// (`{"env": "REMINDER_BOT_PASSWORD"}`), never in a file that gets copied, committed and backed up.
public struct BotsConfiguration: Sendable, Equatable {
    /// The server the bots talk to, resolved.
    public enum Server: Sendable, Equatable {
        /// The embedded local sandbox.
        case sandbox
        /// A real Chatter service.
        case remote(apiURL: URL, webSocketURL: URL, clientKey: String)
    }

    /// The server the bots talk to.
    public var server: Server
    /// The directory holding one SQLite file per bot (absolute).
    public var dataDirectory: URL
    /// How much the runtime logs.
    public var logLevel: LogLevel
    /// The `/healthz` and `/metrics` port; nil: no HTTP endpoint; 0: a port the OS chooses.
    public var httpPort: UInt16?
    /// The address `/healthz`, `/metrics` and the control routes listen on: 127.0.0.1 unless the file says
    /// otherwise. Off loopback, the control routes need the control token (docs/running.md).
    public var httpBind: String
    /// Whether the HTTP endpoint serves the web console under `/console/` (docs/console.md); off unless the file
    /// says `"console": true`.
    public var console: Bool
    /// When handler work that keeps crashing the process is set aside, and when a bot is stopped for it.
    public var quarantine: QuarantineSettings
    /// How long after the start `/readyz` waits at most for the bots the process started with to be live
    /// (`BotSupervisor`); nil: until each has been (or stopped on its own).
    public var readinessTimeout: Duration?
    /// The bots to run, in file order.
    public var bots: [BotConfiguration]
    /// Problems worth a loud log line that do not prevent running (an unencrypted URL to another host).
    public var warnings: [ConfigurationIssue]

    /// The data directory used when `bots.json` names none, relative to the file's directory.
    public static let defaultDataDirectory = "data"

    /// Whether the file at `path`, which just failed to read, may read later as it is: opening it now fails for want
    /// of descriptors or memory, or succeeds on a file that is not a directory. A missing, forbidden or looping path
    /// does not pass by itself (Foundation reports most of these as one unknown error, so the path is asked again).
    static func mayReadLater(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [EMFILE, ENFILE, ENOMEM, EINTR, EAGAIN, EIO].contains(errno) }
        defer { close(fd) }
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// Loads and validates the file at `url`; a relative `dataDirectory` is relative to the file's directory.
    ///
    /// - Parameters:
    ///   - environment: where `{"env": …}` values are looked up (the process environment by default).
    ///   - knownKinds: the registered bot kinds; when given, a bot of another kind is an error.
    public static func load(
        contentsOf url: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        knownKinds: Set<String>? = nil
    ) throws(ConfigurationError) -> BotsConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            var unreadable = ConfigurationError(
                issues: [ConfigurationIssue(field: "", message: "cannot be read: \(error.localizedDescription)")],
                file: url.path)
            unreadable.mayReadLater = Self.mayReadLater(url.path)
            throw unreadable
        }
        do {
            return try BotsConfiguration(
                json: data, environment: environment, baseDirectory: url.deletingLastPathComponent(),
                knownKinds: knownKinds)
        } catch {
            throw ConfigurationError(issues: error.issues, file: url.path)
        }
    }

    /// Reads and validates `bots.json` text; a relative `dataDirectory` is relative to `baseDirectory`.
    public init(
        json data: Data, environment: [String: String], baseDirectory: URL, knownKinds: Set<String>? = nil
    ) throws(ConfigurationError) {
        try self.init(
            file: try BotsFile(json: data), environment: environment, baseDirectory: baseDirectory,
            knownKinds: knownKinds)
    }

    /// Resolves and validates `file`; relative `{"file": …}` paths are relative to `baseDirectory`.
    public init(
        file: BotsFile, environment: [String: String], baseDirectory: URL, knownKinds: Set<String>? = nil
    ) throws(ConfigurationError) {
        var validator = BotsConfigurationValidator(environment: environment, baseDirectory: baseDirectory)
        let server = validator.server(file.server)
        let dataDirectory = validator.dataDirectory(file.dataDirectory, baseDirectory: baseDirectory)
        let bots = validator.bots(
            file.bots, server: file.server, sendPacing: file.sendPacing, receipts: file.receipts, knownKinds: knownKinds)
        guard validator.errors.isEmpty, let server, let dataDirectory else {
            throw ConfigurationError(issues: validator.errors)
        }
        self.server = server
        self.dataDirectory = dataDirectory
        self.logLevel = file.logLevel ?? .info
        self.httpPort = file.httpPort.flatMap { UInt16(exactly: $0) }
        self.quarantine = file.quarantine ?? .default
        self.httpBind = file.httpBind ?? "127.0.0.1"
        self.console = file.console ?? false
        self.readinessTimeout = file.readinessTimeoutSeconds.map { .seconds($0) }
        self.bots = bots
        self.warnings = validator.warnings
        if console && httpPort == nil {
            warnings.append(ConfigurationIssue(field: "console", message: "is true but httpPort is not set: the console "
                + "is served on httpPort, so it is off; set httpPort (e.g. 8080)"))
        }
        if readinessTimeout != nil && httpPort == nil {
            warnings.append(ConfigurationIssue(field: "readinessTimeoutSeconds", message: "is set but httpPort is not: "
                + "/readyz is served on httpPort, so it has no effect; set httpPort (e.g. 8080)"))
        }
    }
}

/// Resolves environment references and checks the rules that need values, collecting every problem.
package struct BotsConfigurationValidator {
    let environment: [String: String]
    /// Where relative `{"file": …}` paths start: the configuration file's directory.
    let baseDirectory: URL?
    package private(set) var errors: [ConfigurationIssue] = []
    private(set) var warnings: [ConfigurationIssue] = []

    /// Bot names become file names: letters, digits, `.`, `_`, `-`; no leading dot; at most 64 characters.
    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

    package init(environment: [String: String], baseDirectory: URL? = nil) {
        self.environment = environment
        self.baseDirectory = baseDirectory
    }

    private mutating func error(bot: String? = nil, index: Int? = nil, _ field: String, _ message: String) {
        errors.append(ConfigurationIssue(bot: bot, botIndex: index, field: field, message: message))
    }

    /// The value of `string`, reporting a missing variable or an empty value.
    private mutating func resolve(
        _ string: ConfigurationString, bot: String? = nil, index: Int? = nil, field: String
    ) -> String? {
        switch string.resolve(in: environment, baseDirectory: baseDirectory) {
        case .failure(let failure):
            error(bot: bot, index: index, field, failure.description)
            return nil
        case .success(let value) where value.isEmpty:
            if case .environment(let variable) = string {
                error(bot: bot, index: index, field, EnvironmentVariableProblem.empty(variable).description)
            } else {
                error(bot: bot, index: index, field, "is empty")
            }
            return nil
        case .success(let value):
            return value
        }
    }

    package mutating func server(_ server: BotsFile.Server) -> BotsConfiguration.Server? {
        switch server {
        case .sandbox:
            return .sandbox
        case .remote(let apiURL, let webSocketURL, let clientKey):
            let api = url(apiURL, field: "server.apiURL", schemes: ["https", "http"])
            let ws = url(webSocketURL, field: "server.webSocketURL", schemes: ["wss", "ws"])
            let key = resolve(clientKey, field: "server.clientKey")
            guard let api, let ws, let key else { return nil }
            return .remote(apiURL: api, webSocketURL: ws, clientKey: key)
        }
    }

    private mutating func url(_ string: ConfigurationString, field: String, schemes: [String]) -> URL? {
        guard let text = resolve(string, field: field) else { return nil }
        let allowed = schemes.map { "\($0)://" }.joined(separator: " or ")
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), schemes.contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            error(field, "must be a \(allowed) URL with a host, found \"\(text)\"")
            return nil
        }
        if scheme == schemes[1], !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
            warnings.append(ConfigurationIssue(
                field: field, message: "\(scheme):// to \(host) sends tokens and messages unencrypted; use \(schemes[0])://"))
        }
        return url
    }

    package mutating func dataDirectory(_ value: ConfigurationString?, baseDirectory: URL) -> URL? {
        let path: String?
        if let value {
            path = resolve(value, field: "dataDirectory")
        } else {
            path = BotsConfiguration.defaultDataDirectory
        }
        guard let path else { return nil }
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded, isDirectory: true).standardizedFileURL }
        return baseDirectory.appendingPathComponent(expanded, isDirectory: true).standardizedFileURL
    }

    mutating func bots(
        _ bots: [BotsFile.Bot], server: BotsFile.Server, sendPacing: BotsFile.PacingSetting?, receipts: ReceiptPolicy?,
        knownKinds: Set<String>?
    ) -> [BotConfiguration] {
        let defaultPacing = (sendPacing ?? .paced(perSecond: nil, burst: nil)).configuration
        // A bot's fields over the file's: with the file "off", over the default.
        let pacingBase = defaultPacing ?? .conservative
        if bots.isEmpty { error("bots", "is empty; configure at least one bot") }
        var firstIndexOfName: [String: Int] = [:]
        var firstIndexOfUsername: [String: Int] = [:]
        var resolved: [BotConfiguration] = []
        for (index, bot) in bots.enumerated() {
            let label: String? = bot.name.isEmpty ? nil : bot.name
            if let first = firstIndexOfName[bot.name], !bot.name.isEmpty {
                error(bot: label, index: index, "name",
                      "is also the name of bots[\(first)]; names must be unique because each bot has its own data file")
            } else {
                firstIndexOfName[bot.name] = index
            }
            if !Self.isValidName(bot.name) {
                error(bot: label, index: index, "name",
                      "must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.', "
                      + "because it names the bot's data file; found \"\(bot.name)\"")
            }
            let kind = bot.kind.trimmingCharacters(in: .whitespaces)
            if kind.isEmpty {
                error(bot: label, index: index, "kind", "is empty; name the bot kind to run")
            } else if let knownKinds, !knownKinds.contains(kind) {
                error(bot: label, index: index, "kind",
                      "unknown kind \"\(kind)\"; registered kinds: \(knownKinds.sorted().joined(separator: ", "))")
            }
            if case .remote = server, bot.credentials.password.isLiteral {
                error(bot: label, index: index, "credentials.password",
                      "is plain text, which is only accepted with the sandbox server; "
                      + "give it as {\"env\": \"VARIABLE\"} and set that variable, or as {\"file\": \"/run/secrets/NAME\"}")
            }
            let username = resolve(bot.credentials.username, bot: label, index: index, field: "credentials.username")
            // Usernames name one account whatever their case.
            if let username, !username.isEmpty {
                if let first = firstIndexOfUsername[username.lowercased()] {
                    // Two devices of one account both receive every message, and both would answer it.
                    error(bot: label, index: index, "credentials.username",
                          "\"\(username)\" is also the account of bots[\(first)]; each bot needs an account of its own, or both "
                          + "would receive and answer every message")
                } else {
                    firstIndexOfUsername[username.lowercased()] = index
                }
            }
            let password = resolve(bot.credentials.password, bot: label, index: index, field: "credentials.password")
            var optionProblems: [(String, String)] = []
            let options = bot.options.resolved(in: environment, baseDirectory: baseDirectory) { optionProblems.append(($0, $1)) }
            for (field, message) in optionProblems { error(bot: label, index: index, field, message) }
            if let username, let password {
                resolved.append(BotConfiguration(
                    name: bot.name, kind: kind, credentials: BotCredentials(username: username, password: password),
                    friendRequests: bot.friendRequests, options: options,
                    sendPacing: bot.sendPacing.map { $0.configuration(over: pacingBase) } ?? defaultPacing,
                    receipts: bot.receipts ?? receipts))
            }
        }
        return resolved
    }

    /// Whether `name` may name a bot: it names the bot's data file.
    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count) && !name.hasPrefix(".") && name.allSatisfy { nameCharacters.contains($0) }
    }
}
