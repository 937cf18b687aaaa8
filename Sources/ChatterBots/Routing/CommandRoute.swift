import Foundation

/// A registered command: the words that name it, whether it needs the prefix, its parameters and handler.
struct CommandRoute: Sendable {
    /// The name as registered, without prefix, e.g. `remind` or `list reminders`.
    var name: String
    /// The name's words, lowercased, for matching.
    var words: [String]
    var isPrefixed: Bool
    var signature: CommandSignature
    var summary: String
    var handler: @Sendable (RoutedMessage) async throws -> Void

    init(
        name: String, prefix: String, isPrefixed: Bool, usage: String, summary: String,
        handler: @escaping @Sendable (RoutedMessage) async throws -> Void
    ) {
        var name = Substring(name.trimmingCharacters(in: .whitespacesAndNewlines))
        if isPrefixed, !prefix.isEmpty, name.hasPrefix(prefix) { name = name.dropFirst(prefix.count) }
        self.name = name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        self.words = name.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        self.isPrefixed = isPrefixed
        self.signature = CommandSignature(usage: usage)
        self.summary = summary
        self.handler = handler
    }

    /// How people type it: `/remind` or `list reminders`.
    func invocation(prefix: String) -> String {
        isPrefixed ? prefix + name : name
    }

    /// The command with its parameters: `/remind <delay> <task...>`.
    func synopsis(prefix: String) -> String {
        let usage = signature.usage
        return usage.isEmpty ? invocation(prefix: prefix) : invocation(prefix: prefix) + " " + usage
    }

    /// How many leading tokens name this command, or nil when they do not. Quoted words never name a command.
    func nameLength(in tokens: [CommandTokenizer.Token], prefix: String) -> Int? {
        guard !words.isEmpty, tokens.count >= words.count else { return nil }
        for (index, word) in words.enumerated() {
            let token = tokens[index]
            guard !token.isQuoted else { return nil }
            var value = Substring(token.value)
            if index == 0, isPrefixed {
                guard value.hasPrefix(prefix) else { return nil }
                value = value.dropFirst(prefix.count)
            }
            guard value.lowercased() == word else { return nil }
        }
        return words.count
    }

    /// Whether `topic` (as in `/help list reminders`) names this command, with or without the prefix.
    func isNamed(_ topic: String, prefix: String) -> Bool {
        var topic = Substring(topic.lowercased())
        if !prefix.isEmpty, topic.hasPrefix(prefix) { topic = topic.dropFirst(prefix.count) }
        return topic.split(whereSeparator: \.isWhitespace).map(String.init) == words
    }
}
