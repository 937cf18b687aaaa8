import ChatterBots
import Foundation

/// One problem in `bots.json`, naming the bot and the field at fault and saying what to write instead.
public struct ConfigurationIssue: Sendable, Equatable, CustomStringConvertible {
    /// The name of the bot at fault, when the problem is in a bot that has a usable name.
    public var bot: String?
    /// The position of the bot at fault in `bots`, when the problem is in a bot.
    public var botIndex: Int?
    /// The field at fault: a path inside the bot (`credentials.password`) or from the top (`server.apiURL`).
    public var field: String
    /// What is wrong and how to fix it.
    public var message: String

    /// Creates an issue.
    public init(bot: String? = nil, botIndex: Int? = nil, field: String, message: String) {
        self.bot = bot
        self.botIndex = botIndex
        self.field = field
        self.message = message
    }

    public var description: String {
        let place: String
        if let bot {
            place = "bot \"\(bot)\", \(field)"
        } else if let botIndex {
            place = "bots[\(botIndex)]" + (field.isEmpty ? "" : ".\(field)")
        } else {
            place = field.isEmpty ? "the configuration" : field
        }
        return "\(place): \(message)"
    }
}

/// `bots.json` cannot be used: every problem found, each naming its bot and field.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every problem found (reading stops at structural problems, so fix those first).
    public var issues: [ConfigurationIssue]
    /// The file the configuration came from, when it came from a file.
    public var file: String?
    /// The file itself could not be read for a reason that may pass (out of descriptors or memory), not because
    /// it is missing or forbidden: it may read later as it is.
    package var mayReadLater = false

    /// Creates an error from its issues.
    public init(issues: [ConfigurationIssue], file: String? = nil) {
        self.issues = issues
        self.file = file
    }

    public var description: String {
        let name = file ?? "the configuration"
        let lines = issues.map { "  - \($0)" }.joined(separator: "\n")
        return "\(name) has \(issues.count) problem\(issues.count == 1 ? "" : "s"):\n\(lines)"
    }
}
