import ChatterBots
import Foundation

/// The bots a configuration asks for, each made by its registered kind: the step between `bots.json` and the
/// sessions. Building it checks what the file alone cannot: that every kind is registered once and accepts its
/// bot's options. Every problem is reported at once, naming the bot and the field.
public struct BotLineup: Sendable {
    /// One configured bot and the bot code that runs it.
    public struct Member: Sendable {
        /// The bot's configuration.
        public var configuration: BotConfiguration
        /// The bot made by its kind.
        public var bot: any Bot
    }

    /// The bots, in configuration order.
    public var members: [Member]

    /// Makes every bot of `configuration` with the kind of its name.
    ///
    /// - Throws: `ConfigurationError` listing every bot whose kind is unknown or refused its options, and every
    ///   kind registered twice.
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
            do {
                members.append(Member(configuration: bot, bot: try kind.makeBot(for: bot)))
            } catch let error as DecodingError {
                let (path, reason) = Self.describe(error)
                issues.append(ConfigurationIssue(
                    bot: bot.name, botIndex: index, field: path.isEmpty ? "options" : "options.\(path)",
                    message: "\(reason) (kind \"\(bot.kind)\")"))
            } catch {
                issues.append(ConfigurationIssue(bot: bot.name, botIndex: index, field: "options", message: "\(error)"))
            }
        }
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        self.members = members
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
