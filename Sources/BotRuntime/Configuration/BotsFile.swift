import ChatterBots
import Foundation

/// `bots.json` as written: which server, where data lives, and the bots, with strings that may still be
/// environment references. `BotsConfiguration` resolves and validates it into what the runtime uses.
///
/// Decoding reads the whole file and reports every structural problem (unknown field, wrong type, unknown
/// policy) as a `ConfigurationError` naming the bot and the field. `docs/bots.schema.json` describes the format.
public struct BotsFile: Sendable, Equatable, Codable {
    /// The server the bots talk to.
    public enum Server: Sendable, Equatable {
        /// `"sandbox"`: the embedded local Chatter server.
        case sandbox
        /// A real Chatter service: REST base URL, WebSocket URL and client key.
        case remote(apiURL: ConfigurationString, webSocketURL: ConfigurationString, clientKey: ConfigurationString)
    }

    /// How fast a bot may send, as written: `"off"`, or `{"perSecond": …, "burst": …}`. A field a bot's setting
    /// leaves out is the file's, and one the file leaves out the default's (`SendPacing.conservative`).
    public enum PacingSetting: Sendable, Equatable {
        /// No pacing: frames go out as fast as the connection takes them (a 4008 or `RATE_LIMITED` still pauses).
        case off
        /// A token bucket: `perSecond` sustained, `burst` back to back after a quiet period.
        case paced(perSecond: Double?, burst: Int?)

        /// The pacer's configuration; nil for `off`.
        public var configuration: SendPacing? { configuration(over: .conservative) }

        /// The pacer's configuration, a field left out taken from `base` (a bot's setting over the file's); nil for
        /// `off`.
        public func configuration(over base: SendPacing) -> SendPacing? {
            switch self {
            case .off:
                return nil
            case .paced(let perSecond, let burst):
                return SendPacing(sendsPerSecond: perSecond ?? base.sendsPerSecond, burst: burst ?? base.burst)
            }
        }
    }

    /// A bot's account.
    public struct Credentials: Sendable, Equatable {
        /// The account's username.
        public var username: ConfigurationString
        /// The account's password; plain text only with the sandbox.
        public var password: ConfigurationString

        /// Creates credentials.
        public init(username: ConfigurationString, password: ConfigurationString) {
            self.username = username
            self.password = password
        }
    }

    /// One bot as written.
    public struct Bot: Sendable, Equatable {
        /// Unique among the bots; names the bot's data file.
        public var name: String
        /// The registered bot kind that runs it (`"auto-responder"`, `"reminder"`…).
        public var kind: String
        /// The bot's Chatter account.
        public var credentials: Credentials
        /// Which friend requests are accepted without asking the bot's code.
        public var friendRequests: FriendRequestPolicy
        /// Kind-specific options (`{}` when absent).
        public var options: BotOptions
        /// This bot's send pacing; nil: the file's `sendPacing`, else the default.
        public var sendPacing: PacingSetting?
        /// Which receipts this bot sends; nil: the file's `receipts`, else the runtime's (both, unless changed).
        public var receipts: ReceiptPolicy?

        /// Creates a bot entry.
        public init(
            name: String, kind: String, credentials: Credentials, friendRequests: FriendRequestPolicy,
            options: BotOptions = .empty, sendPacing: PacingSetting? = nil, receipts: ReceiptPolicy? = nil
        ) {
            self.name = name
            self.kind = kind
            self.credentials = credentials
            self.friendRequests = friendRequests
            self.options = options
            self.sendPacing = sendPacing
            self.receipts = receipts
        }
    }

    /// The server the bots talk to.
    public var server: Server
    /// Where each bot's SQLite file goes; relative paths are relative to the file's directory. Default `data`.
    public var dataDirectory: ConfigurationString?
    /// Default `info`.
    public var logLevel: LogLevel?
    /// The port of the `/healthz` and `/metrics` endpoint; absent: no HTTP endpoint; 0: a port the OS chooses.
    public var httpPort: Int?
    /// The address the HTTP endpoint binds to; nil: 127.0.0.1 (loopback only).
    public var httpBind: String?
    /// Whether the HTTP endpoint serves the web console under `/console/`; nil: no.
    public var console: Bool?
    /// The send pacing of every bot that sets none of its own; nil: the default.
    public var sendPacing: PacingSetting?
    /// Which receipts every bot that says nothing of its own sends; nil: the runtime's (both, unless changed).
    public var receipts: ReceiptPolicy?
    /// When handler work that keeps crashing the process is set aside, and when a bot is stopped for it; nil: the
    /// defaults (`QuarantineSettings`).
    public var quarantine: QuarantineSettings?
    /// How many seconds after the start `/readyz` waits at most for the bots the process started with to be live;
    /// nil: until each has been (or stopped on its own).
    public var readinessTimeoutSeconds: Int?
    /// The bots to run.
    public var bots: [Bot]

    /// Creates a file's content in code (for tests and generated configurations).
    public init(
        server: Server, dataDirectory: ConfigurationString? = nil, logLevel: LogLevel? = nil, httpPort: Int? = nil,
        sendPacing: PacingSetting? = nil, receipts: ReceiptPolicy? = nil, quarantine: QuarantineSettings? = nil, bots: [Bot]
    ) {
        self.quarantine = quarantine
        self.receipts = receipts
        self.server = server
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.httpPort = httpPort
        self.sendPacing = sendPacing
        self.bots = bots
    }

    /// Reads `bots.json` text.
    public init(json data: Data) throws(ConfigurationError) {
        var reader = BotsFileReader()
        let file = reader.read(try ConfigurationJSON.parse(data))
        guard let file, reader.issues.isEmpty else { throw ConfigurationError(issues: reader.issues) }
        self = file
    }

    public init(from decoder: any Decoder) throws {
        var reader = BotsFileReader()
        let file = reader.read(try ConfigurationJSON(from: decoder))
        guard let file, reader.issues.isEmpty else { throw ConfigurationError(issues: reader.issues) }
        self = file
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    var json: ConfigurationJSON {
        var root: [String: ConfigurationJSON] = [:]
        switch server {
        case .sandbox:
            root["server"] = .string("sandbox")
        case .remote(let apiURL, let webSocketURL, let clientKey):
            root["server"] = .object(["apiURL": apiURL.json, "webSocketURL": webSocketURL.json, "clientKey": clientKey.json])
        }
        root["dataDirectory"] = dataDirectory?.json
        root["logLevel"] = logLevel.map { .string($0.rawValue) }
        root["httpPort"] = httpPort.map { .number(Double($0)) }
        root["httpBind"] = httpBind.map { .string($0) }
        root["console"] = console.map { .bool($0) }
        root["sendPacing"] = sendPacing?.json
        root["receipts"] = receipts.map { .string($0.settingName) }
        root["quarantine"] = quarantine.map {
            .object(["attempts": .number(Double($0.attempts)), "maxPerHour": .number(Double($0.maxPerHour))])
        }
        root["readinessTimeoutSeconds"] = readinessTimeoutSeconds.map { .number(Double($0)) }
        root["bots"] = .array(bots.map { bot in
            var fields: [String: ConfigurationJSON] = [
                "name": .string(bot.name),
                "kind": .string(bot.kind),
                "credentials": .object(["username": bot.credentials.username.json, "password": bot.credentials.password.json]),
                "friendRequests": bot.friendRequests.json,
            ]
            if !bot.options.isEmpty { fields["options"] = bot.options.json }
            if let pacing = bot.sendPacing { fields["sendPacing"] = pacing.json }
            if let receipts = bot.receipts { fields["receipts"] = .string(receipts.settingName) }
            return .object(fields)
        })
        return .object(root)
    }
}

extension BotsFile.PacingSetting {
    var json: ConfigurationJSON {
        switch self {
        case .off:
            return .string("off")
        case .paced(let perSecond, let burst):
            var fields: [String: ConfigurationJSON] = [:]
            fields["perSecond"] = perSecond.map { .number($0) }
            fields["burst"] = burst.map { .number(Double($0)) }
            return .object(fields)
        }
    }
}

extension ReceiptPolicy {
    /// The policies as `bots.json` names them.
    static let settings: [(name: String, policy: ReceiptPolicy)] = [
        ("delivered and read", ReceiptPolicy(sendsDelivered: true, sendsRead: true)),
        ("read", ReceiptPolicy(sendsDelivered: false, sendsRead: true)),
        ("delivered", ReceiptPolicy(sendsDelivered: true, sendsRead: false)),
        ("none", ReceiptPolicy(sendsDelivered: false, sendsRead: false)),
    ]

    /// This policy's name in `bots.json`.
    var settingName: String {
        Self.settings.first { $0.policy == self }?.name ?? "delivered and read"
    }
}

/// Walks the JSON tree of `bots.json`, collecting every structural problem with its bot and field.
struct BotsFileReader {
    private(set) var issues: [ConfigurationIssue] = []

    private static let topLevelKeys = [
        "server", "dataDirectory", "logLevel", "httpPort", "httpBind", "console", "sendPacing", "receipts", "quarantine",
        "readinessTimeoutSeconds", "bots",
    ]
    /// The longest bound of `/readyz`'s wait: a day, as for the command line's durations.
    static let longestReadinessTimeout = 86_400
    private static let quarantineKeys = ["attempts", "maxPerHour"]
    private static let serverKeys = ["apiURL", "webSocketURL", "clientKey"]
    private static let botKeys = ["name", "kind", "credentials", "friendRequests", "options", "sendPacing", "receipts"]
    private static let pacingKeys = ["perSecond", "burst"]
    private static let credentialKeys = ["username", "password"]
    /// The slowest `perSecond` accepted: one send every 1000 seconds. Slower is no pace a bot could keep (a tiny
    /// value is most likely a mistake for `"off"`).
    static let slowestPace = 0.001

    /// Where a value sits: a bot (by name once known, else by index) and a field path.
    private struct Place {
        var bot: String?
        var botIndex: Int?
        var field: String

        func child(_ key: String) -> Place {
            Place(bot: bot, botIndex: botIndex, field: field.isEmpty ? key : "\(field).\(key)")
        }
    }

    private mutating func report(_ place: Place, _ message: String) {
        issues.append(ConfigurationIssue(bot: place.bot, botIndex: place.botIndex, field: place.field, message: message))
    }

    mutating func read(_ root: ConfigurationJSON) -> BotsFile? {
        let top = Place(field: "")
        guard case .object(let fields) = root else {
            report(top, "must be a JSON object with \"server\" and \"bots\", found \(root.kindDescription)")
            return nil
        }
        checkKeys(fields, allowed: Self.topLevelKeys, at: top)
        let server = readServer(fields["server"], at: top.child("server"))
        let dataDirectory = fields["dataDirectory"].flatMap { configurationString($0, at: top.child("dataDirectory")) }
        let logLevel = fields["logLevel"].flatMap { readLogLevel($0, at: top.child("logLevel")) }
        let httpPort = fields["httpPort"].flatMap { readPort($0, at: top.child("httpPort")) }
        let httpBind = fields["httpBind"].flatMap { readBind($0, at: top.child("httpBind")) }
        let console = fields["console"].flatMap { readFlag($0, at: top.child("console"), meaning: "serve the web console on httpPort") }
        let sendPacing = fields["sendPacing"].flatMap { readPacing($0, at: top.child("sendPacing")) }
        let receipts = fields["receipts"].flatMap { readReceipts($0, at: top.child("receipts")) }
        let quarantine = fields["quarantine"].flatMap { readQuarantine($0, at: top.child("quarantine")) }
        let readinessTimeout = fields["readinessTimeoutSeconds"].flatMap {
            readReadinessTimeout($0, at: top.child("readinessTimeoutSeconds"))
        }
        let bots = readBots(fields["bots"], at: top.child("bots"))
        guard let server, let bots, issues.isEmpty else { return nil }
        var file = BotsFile(
            server: server, dataDirectory: dataDirectory, logLevel: logLevel, httpPort: httpPort, sendPacing: sendPacing,
            receipts: receipts, quarantine: quarantine, bots: bots)
        file.httpBind = httpBind
        file.console = console
        file.readinessTimeoutSeconds = readinessTimeout
        return file
    }

    private mutating func checkKeys(_ fields: [String: ConfigurationJSON], allowed: [String], at place: Place) {
        for key in fields.keys.sorted() where !allowed.contains(key) {
            report(place.child(key), "unknown field; expected one of: \(allowed.joined(separator: ", "))")
        }
    }

    private mutating func configurationString(_ value: ConfigurationJSON, at place: Place) -> ConfigurationString? {
        switch value {
        case .string(let text):
            return .literal(text)
        case .object(let fields) where fields.count == 1:
            if case .string(let variable)? = fields["env"] {
                guard !variable.isEmpty else {
                    report(place, "names an empty environment variable")
                    return nil
                }
                return .environment(variable)
            }
            if case .string(let path)? = fields["file"] {
                guard !path.isEmpty else {
                    report(place, "names an empty file path")
                    return nil
                }
                return .file(path)
            }
        default:
            break
        }
        report(place, "must be a string, {\"env\": \"VARIABLE\"} or {\"file\": \"PATH\"}, found \(value.kindDescription)")
        return nil
    }

    private mutating func literalString(_ value: ConfigurationJSON?, at place: Place) -> String? {
        guard let value else {
            report(place, "is missing")
            return nil
        }
        guard case .string(let text) = value else {
            report(place, "must be a string, found \(value.kindDescription)")
            return nil
        }
        return text
    }

    private mutating func readServer(_ value: ConfigurationJSON?, at place: Place) -> BotsFile.Server? {
        let expected = "use \"sandbox\" or {\"apiURL\": …, \"webSocketURL\": …, \"clientKey\": …}"
        switch value {
        case nil:
            report(place, "is missing; \(expected)")
        case .string("sandbox")?:
            return .sandbox
        case .string(let other)?:
            report(place, "unknown server \"\(other)\"; \(expected)")
        case .object(let fields)?:
            checkKeys(fields, allowed: Self.serverKeys, at: place)
            var values: [String: ConfigurationString] = [:]
            for key in Self.serverKeys {
                guard let field = fields[key] else {
                    report(place.child(key), "is missing")
                    continue
                }
                values[key] = configurationString(field, at: place.child(key))
            }
            guard let api = values["apiURL"], let ws = values["webSocketURL"], let key = values["clientKey"] else { return nil }
            return .remote(apiURL: api, webSocketURL: ws, clientKey: key)
        case let other?:
            report(place, "must be \"sandbox\" or an object, found \(other.kindDescription); \(expected)")
        }
        return nil
    }

    private mutating func readLogLevel(_ value: ConfigurationJSON, at place: Place) -> LogLevel? {
        let levels = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .string(let text) = value, let level = LogLevel(rawValue: text) else {
            report(place, "must be one of: \(levels)")
            return nil
        }
        return level
    }

    private mutating func readPort(_ value: ConfigurationJSON, at place: Place) -> Int? {
        guard case .number(let number) = value, number.rounded() == number, (0...65_535).contains(number) else {
            report(place, "must be a whole number from 0 to 65535 (0: any free port)")
            return nil
        }
        return Int(number)
    }

    private mutating func readReceipts(_ value: ConfigurationJSON, at place: Place) -> ReceiptPolicy? {
        if case .string(let text) = value, let setting = ReceiptPolicy.settings.first(where: { $0.name == text }) {
            return setting.policy
        }
        let names = ReceiptPolicy.settings.map { "\"\($0.name)\"" }.joined(separator: ", ")
        let found = if case .string(let text) = value { "\"\(text)\"" } else { value.kindDescription }
        report(place, "must be one of \(names); found \(found)")
        return nil
    }

    private mutating func readPacing(_ value: ConfigurationJSON, at place: Place) -> BotsFile.PacingSetting? {
        let expected = "use \"off\" or {\"perSecond\": 2, \"burst\": 10}"
        switch value {
        case .string("off"):
            return .off
        case .object(let fields):
            checkKeys(fields, allowed: Self.pacingKeys, at: place)
            var perSecond: Double?
            var burst: Int?
            var valid = true
            if let field = fields["perSecond"] {
                if case .number(let number) = field, number.isFinite, number >= Self.slowestPace {
                    perSecond = number
                } else {
                    report(place.child("perSecond"), "must be a number from 0.001 (one send every 1000 seconds) up "
                        + "(sends per second, sustained); to send without pacing, write \"sendPacing\": \"off\"")
                    valid = false
                }
            }
            if let field = fields["burst"] {
                if case .number(let number) = field, number.rounded() == number, (1...1_000_000).contains(number) {
                    burst = Int(number)
                } else {
                    report(place.child("burst"), "must be a whole number from 1 to 1000000 (sends back to back)")
                    valid = false
                }
            }
            return valid ? .paced(perSecond: perSecond, burst: burst) : nil
        default:
            report(place, "must be \"off\" or an object, found \(value.kindDescription); \(expected)")
            return nil
        }
    }

    private mutating func readFlag(_ value: ConfigurationJSON, at place: Place, meaning: String) -> Bool? {
        guard case .bool(let flag) = value else {
            report(place, "must be true or false (\(meaning)), found \(value.kindDescription)")
            return nil
        }
        return flag
    }

    private mutating func readBind(_ value: ConfigurationJSON, at place: Place) -> String? {
        guard case .string(let text) = value, !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            report(place, "must be an address to listen on, e.g. \"127.0.0.1\" (the default), \"0.0.0.0\" or \"::\"")
            return nil
        }
        return text
    }

    private mutating func readQuarantine(_ value: ConfigurationJSON, at place: Place) -> QuarantineSettings? {
        guard case .object(let fields) = value else {
            report(place, "must be an object, found \(value.kindDescription); e.g. {\"attempts\": 2, \"maxPerHour\": 5}")
            return nil
        }
        checkKeys(fields, allowed: Self.quarantineKeys, at: place)
        var settings = QuarantineSettings()
        var valid = true
        func whole(_ key: String, _ range: ClosedRange<Double>, _ meaning: String) -> Int? {
            guard let field = fields[key] else { return nil }
            if case .number(let number) = field, number.rounded() == number, range.contains(number) { return Int(number) }
            report(place.child(key), "must be a whole number from \(Int(range.lowerBound)) to \(Int(range.upperBound)) (\(meaning))")
            valid = false
            return nil
        }
        if let attempts = whole("attempts", 1...100, "crashes before a piece of work is quarantined") { settings.attempts = attempts }
        if let perHour = whole("maxPerHour", 0...1_000_000, "quarantines in an hour beyond which a bot is stopped") {
            settings.maxPerHour = perHour
        }
        return valid ? settings : nil
    }

    private mutating func readReadinessTimeout(_ value: ConfigurationJSON, at place: Place) -> Int? {
        let range = 1...Double(Self.longestReadinessTimeout)
        guard case .number(let number) = value, number.rounded() == number, range.contains(number) else {
            report(place, "must be a whole number from 1 to \(Self.longestReadinessTimeout) (seconds /readyz waits at most "
                + "for the bots of the start to be live); leave it out to wait until each has been")
            return nil
        }
        return Int(number)
    }

    private mutating func readBots(_ value: ConfigurationJSON?, at place: Place) -> [BotsFile.Bot]? {
        guard let value else {
            report(place, "is missing; list the bots to run")
            return nil
        }
        guard case .array(let items) = value else {
            report(place, "must be an array of bots, found \(value.kindDescription)")
            return nil
        }
        let bots = items.enumerated().map { readBot($1, index: $0) }
        return bots.contains { $0 == nil } ? nil : bots.compactMap { $0 }
    }

    private mutating func readBot(_ value: ConfigurationJSON, index: Int) -> BotsFile.Bot? {
        var place = Place(botIndex: index, field: "")
        guard case .object(let fields) = value else {
            report(place, "must be an object, found \(value.kindDescription)")
            return nil
        }
        let name = literalString(fields["name"], at: place.child("name"))
        if let name, !name.isEmpty { place.bot = name }
        checkKeys(fields, allowed: Self.botKeys, at: place)
        let kind = literalString(fields["kind"], at: place.child("kind"))
        let credentials = readCredentials(fields["credentials"], at: place.child("credentials"))
        let policy = readPolicy(fields["friendRequests"], at: place.child("friendRequests"))
        var options = BotOptions.empty
        if let value = fields["options"] {
            if case .object = value {
                options = BotOptions(json: value)
            } else {
                report(place.child("options"), "must be an object, found \(value.kindDescription)")
            }
        }
        let sendPacing = fields["sendPacing"].flatMap { readPacing($0, at: place.child("sendPacing")) }
        let receipts = fields["receipts"].flatMap { readReceipts($0, at: place.child("receipts")) }
        guard let name, let kind, let credentials, let policy else { return nil }
        return BotsFile.Bot(
            name: name, kind: kind, credentials: credentials, friendRequests: policy, options: options,
            sendPacing: sendPacing, receipts: receipts)
    }

    private mutating func readCredentials(_ value: ConfigurationJSON?, at place: Place) -> BotsFile.Credentials? {
        guard let value else {
            report(place, "is missing; give {\"username\": …, \"password\": {\"env\": \"VARIABLE\"}}")
            return nil
        }
        guard case .object(let fields) = value else {
            report(place, "must be an object with username and password, found \(value.kindDescription)")
            return nil
        }
        checkKeys(fields, allowed: Self.credentialKeys, at: place)
        var values: [String: ConfigurationString] = [:]
        for key in Self.credentialKeys {
            guard let field = fields[key] else {
                report(place.child(key), "is missing")
                continue
            }
            values[key] = configurationString(field, at: place.child(key))
        }
        guard let username = values["username"], let password = values["password"] else { return nil }
        return BotsFile.Credentials(username: username, password: password)
    }

    private mutating func readPolicy(_ value: ConfigurationJSON?, at place: Place) -> FriendRequestPolicy? {
        let expected = "use \"everyone\", \"nobody\" or {\"allowlist\": [\"username\", …]}"
        switch value {
        case nil:
            report(place, "is missing; \(expected)")
        case .string("everyone")?:
            return .everyone
        case .string("nobody")?:
            return .nobody
        case .string(let other)?:
            report(place, "unknown policy \"\(other)\"; \(expected)")
        case .object(let fields)? where fields.keys.sorted() == ["allowlist"]:
            guard case .array(let items)? = fields["allowlist"] else {
                report(place.child("allowlist"), "must be an array of usernames")
                return nil
            }
            var names: Set<String> = []
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item, !name.isEmpty else {
                    report(place.child("allowlist[\(index)]"), "must be a non-empty username")
                    continue
                }
                names.insert(name)
            }
            return .allowlist(names)
        case let other?:
            report(place, "must be a policy, found \(other.kindDescription); \(expected)")
        }
        return nil
    }
}
