import ChatterBots

/// One whitespace-separated word of a chat message: as written, and normalized for matching.
struct MessageToken: Hashable {
    /// The word exactly as written, a slice of the message.
    let text: Substring
    /// Lowercased, curly apostrophes made straight, commas, semicolons and colons trimmed from both ends.
    let word: String

    init(_ text: Substring) {
        self.text = text
        word = text.lowercased()
            .replacingCharacter("\u{2019}", with: "'")
            .trimmingEnds(of: [",", ";", ":"])
    }

    /// The words of `message`, split on any run of whitespace.
    static func split(_ message: String) -> [MessageToken] {
        message.split(whereSeparator: \.isWhitespace).map(MessageToken.init)
    }

    /// The message text from the first to the last of `tokens`, as written (inner spacing kept),
    /// without commas, semicolons or colons at its ends; empty for no tokens.
    static func text(of tokens: ArraySlice<MessageToken>) -> String {
        guard let first = tokens.first, let last = tokens.last else { return "" }
        let text = first.text.base[first.text.startIndex..<last.text.endIndex]
        return String(text).trimmingEnds(of: [",", ";", ":"])
    }
}

extension String {
    /// This string without any of `characters` at its start or end.
    func trimmingEnds(of characters: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }

    fileprivate func replacingCharacter(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
