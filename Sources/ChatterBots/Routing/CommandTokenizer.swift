/// Splits message text into words the way people type commands: runs of whitespace separate words, and a
/// quoted string ("…", '…', “…” or ‘…’) is one word without its quotes.
///
/// A quote opens a quoted word only at the start of a word and closes it only where the word ends, so
/// apostrophes (`don't`) stay literal; a quote that never closes is literal too, so no text is ever lost.
/// Inside a quoted word, a backslash escapes the next character (`"say \"hi\""`).
struct CommandTokenizer {
    /// One word of the text, unquoted, with where it was written.
    struct Token: Hashable, Sendable {
        var value: String
        /// The token as written, quotes included.
        var range: Range<String.Index>
        var isQuoted: Bool
    }

    static func tokens(in text: String) -> [Token] {
        var tokens: [Token] = []
        var index = text.startIndex
        while index < text.endIndex {
            if text[index].isWhitespace {
                index = text.index(after: index)
                continue
            }
            if let quoted = quotedToken(in: text, at: index) {
                tokens.append(quoted)
                index = quoted.range.upperBound
            } else {
                let end = text[index...].firstIndex(where: \.isWhitespace) ?? text.endIndex
                tokens.append(Token(value: String(text[index..<end]), range: index..<end, isQuoted: false))
                index = end
            }
        }
        return tokens
    }

    private static let closingQuotes: [Character: Set<Character>] = [
        "\"": ["\"", "”", "“"], "“": ["”", "\"", "“"], "”": ["”", "\"", "“"],
        "'": ["'", "’"], "‘": ["’", "'"],
    ]

    /// The quoted word starting at `start`, or nil when `start` is not an opening quote that closes.
    private static func quotedToken(in text: String, at start: String.Index) -> Token? {
        guard let closings = closingQuotes[text[start]] else { return nil }
        var value = ""
        var index = text.index(after: start)
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "\\", next < text.endIndex {
                value.append(text[next])
                index = text.index(after: next)
                continue
            }
            if closings.contains(character), next == text.endIndex || text[next].isWhitespace {
                return Token(value: value, range: start..<next, isQuoted: true)
            }
            value.append(character)
            index = next
        }
        return nil
    }
}
