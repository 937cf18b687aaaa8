/// How people name a quarantined entry: its bot and its number in the bot's store, written `BOT/N` (`poison/3`).
package struct QuarantineReference: Hashable, Sendable, CustomStringConvertible {
    package var bot: String
    package var id: Int64

    package init(bot: String, id: Int64) {
        self.bot = bot
        self.id = id
    }

    /// Reads `BOT/N`; nil unless there is a bot name and a positive number.
    package init?(_ text: String) {
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let bot = String(text[..<slash])
        guard !bot.isEmpty, let id = Self.id(String(text[text.index(after: slash)...])) else { return nil }
        self.init(bot: bot, id: id)
    }

    /// An entry number as written by people and in control routes: a positive decimal integer.
    package static func id(_ text: String) -> Int64? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), let id = Int64(text), id > 0 else { return nil }
        return id
    }

    package var description: String { "\(bot)/\(id)" }
}
