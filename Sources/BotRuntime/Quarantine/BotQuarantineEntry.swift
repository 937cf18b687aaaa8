import Foundation

/// A quarantined entry with its bot's name, as the control routes answer it and the `quarantine` commands show it.
/// Its JSON (`QuarantineJSON`) is the control routes' contract: field names do not change.
package struct BotQuarantineEntry: Hashable, Sendable, Codable {
    package var bot: String
    /// The entry's number in the bot's store.
    package var id: Int64
    package var handler: String
    package var trace: String
    /// What names the work across restarts, e.g. `message:<id>` or `job:<id>#<occurrence>`.
    package var workKey: String
    /// What the work was, for people: a message's text, shortened.
    package var summary: String
    /// How many times the process died while it ran.
    package var attempts: Int
    /// When the last attempt (the last crash) started.
    package var lastStartedAt: Date
    package var quarantinedAt: Date
    /// An operator asked for a retry that has not run yet.
    package var retryRequested: Bool

    package init(bot: String, entry: QuarantineEntry) {
        self.bot = bot
        self.id = entry.id
        self.handler = entry.handler
        self.trace = entry.trace
        self.workKey = entry.key
        self.summary = entry.summary
        self.attempts = entry.attempts
        self.lastStartedAt = entry.lastStartedAt
        self.quarantinedAt = entry.quarantinedAt
        self.retryRequested = entry.retryRequested
    }

    /// How people name it: `BOT/N`.
    package var reference: QuarantineReference { QuarantineReference(bot: bot, id: id) }
}

/// What a retry did: the work runs again now (its bot is running) or at the bot's next start.
package struct QuarantineRetryOutcome: Hashable, Sendable, Codable {
    package enum Timing: String, Hashable, Sendable, Codable {
        /// The bot runs: the handler was handed the work at once.
        case now
        /// The bot does not run: the work is handed to its handler when the bot next starts.
        case nextStart
    }

    package var entry: BotQuarantineEntry
    package var runs: Timing

    package init(entry: BotQuarantineEntry, runs: Timing) {
        self.entry = entry
        self.runs = runs
    }
}

/// The JSON of the quarantine's control routes: ISO 8601 dates, sorted keys.
package enum QuarantineJSON {
    /// `GET /quarantine`'s body.
    package struct Listing: Hashable, Sendable, Codable {
        package var entries: [BotQuarantineEntry]

        package init(entries: [BotQuarantineEntry]) {
            self.entries = entries
        }
    }

    /// The body of a successful drop.
    package struct Dropped: Hashable, Sendable, Codable {
        package var bot: String
        package var id: Int64
        package var dropped: Bool

        package init(_ reference: QuarantineReference) {
            self.bot = reference.bot
            self.id = reference.id
            self.dropped = true
        }
    }

    /// The body of every refused control request: what is wrong and what to do.
    package struct Failure: Hashable, Sendable, Codable {
        package var error: String

        package init(error: String) {
            self.error = error
        }
    }

    package static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail; an empty object is the fallback the compiler asks for.
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) -> T? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(type, from: Data(bytes))
    }
}
