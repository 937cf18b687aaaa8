import ChatterBots
import Foundation

/// The bots a configuration asks for, each with its registered kind: the step between `bots.json` and the
/// sessions. Building it checks that every kind is registered once and every bot's kind is known, and makes no bot:
/// a kind's `make` is the bot author's code, which a session runs as it starts, marked in the in-flight table, so
/// that a trap in it stops that bot as crashing instead of the fleet (`docs/quarantine.md`). ``madeBots()`` checks
/// the options too, as `check` does. Every problem is reported at once, naming the bot and the field.
public struct BotLineup: Sendable {
    /// One configured bot and the kind that makes it.
    public struct Member: Sendable {
        /// The bot's configuration.
        public var configuration: BotConfiguration
        /// The kind of `configuration.kind`.
        public var kind: BotKind
        /// The bot, when it was made already (by ``madeBots()``, or by a reload, which checks the options of the
        /// bots it starts); nil until its session makes it.
        public var bot: (any Bot)?

        /// `configuration`'s bot, to be made by `kind` (unless `bot` was made already).
        public init(configuration: BotConfiguration, kind: BotKind, bot: (any Bot)? = nil) {
            self.configuration = configuration
            self.kind = kind
            self.bot = bot
        }

        /// The bot made already, else one made now by its kind.
        ///
        /// - Throws: what the kind's `make` throws (a `DecodingError` for options it refuses; see
        ///   ``BotLineup/issue(refusing:error:)``).
        public func makeBot() throws -> any Bot {
            if let bot { return bot }
            return try kind.makeBot(for: configuration)
        }
    }

    /// The bots, in configuration order.
    public var members: [Member]

    /// Pairs every bot of `configuration` with the kind of its name. Makes no bot.
    ///
    /// - Throws: `ConfigurationError` listing every bot whose kind is unknown, and every kind registered twice.
    public init(configuration: BotsConfiguration, kinds: [BotKind]) throws(ConfigurationError) {
        var issues: [ConfigurationIssue] = []
        var kindsByName: [String: BotKind] = [:]
        for kind in kinds {
            if kindsByName[kind.name] != nil {
                issues.append(ConfigurationIssue(
                    field: "kinds", message: "the kind \"\(kind.name)\" is registered twice by the executable; register each kind once"))
            }
            kindsByName[kind.name] = kind
        }
        var members: [Member] = []
        for (index, bot) in configuration.bots.enumerated() {
            guard let kind = kindsByName[bot.kind] else {
                let known = kindsByName.keys.sorted().joined(separator: ", ")
                issues.append(ConfigurationIssue(
                    bot: bot.name, botIndex: index, field: "kind",
                    message: "unknown kind \"\(bot.kind)\"; registered kinds: \(known.isEmpty ? "none" : known)"))
                continue
            }
            members.append(Member(configuration: bot, kind: kind))
        }
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        self.members = members
    }

    /// This lineup with every bot made: checks that each kind accepts its bot's options.
    ///
    /// - Throws: `ConfigurationError` listing every bot whose kind refused its options.
    public func madeBots() throws(ConfigurationError) -> BotLineup {
        var made = self
        var issues: [ConfigurationIssue] = []
        for index in made.members.indices {
            do {
                made.members[index].bot = try made.members[index].makeBot()
            } catch {
                issues.append(Self.issue(refusing: made.members[index].configuration, error: error))
            }
        }
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return made
    }

    /// What a kind's refusal to make the bot `configuration` says: the option's path and what is wrong with it for
    /// a `DecodingError`, else the error's own words.
    public static func issue(refusing configuration: BotConfiguration, error: any Error) -> ConfigurationIssue {
        guard let error = error as? DecodingError else {
            return ConfigurationIssue(bot: configuration.name, field: "options", message: "\(error)")
        }
        let (path, reason) = describe(error)
        return ConfigurationIssue(
            bot: configuration.name, field: path.isEmpty ? "options" : "options.\(path)",
            message: "\(reason) (kind \"\(configuration.kind)\")")
    }

    /// The path of the offending option and what is wrong with it, in words.
    static func describe(_ error: DecodingError) -> (path: String, reason: String) {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return (path(context.codingPath + [key]), "is missing")
        case .typeMismatch(let type, let context):
            return (path(context.codingPath), "must be \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            return (path(context.codingPath), "must be \(Self.describe(type)), found null")
        case .dataCorrupted(let context):
            return (path(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "a value of type \(type)"
        }
    }
}
