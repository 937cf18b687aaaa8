import Foundation

/// Finds keywords in a message the way people expect of a chat bot: as whole words, folding case and
/// diacritics. "Héllo!" and "HELLO there" contain `hello`; "Othello" and "hellooo" do not. A keyword of several
/// words (`good morning`) matches them in a row, whatever spaces or punctuation stand between them.
///
/// ```swift
/// let greetings = KeywordMatcher(["hello", "good morning"])
/// greetings.firstMatch(in: "Well, GOOD morning!")  // "good morning"
/// ```
///
/// Words are runs of letters and digits; everything else separates them. `MessageRouter.keywords(_:name:_:)`
/// routes messages with one.
public struct KeywordMatcher: Sendable, Hashable {
    /// The keywords, as given, in the order they are tried.
    public let keywords: [String]
    /// Each keyword's folded words; a keyword without letters or digits has none and never matches.
    private let wordsOfKeywords: [[String]]

    /// A matcher trying `keywords` in order.
    public init(_ keywords: [String]) {
        self.keywords = keywords
        wordsOfKeywords = keywords.map(Self.words(of:))
    }

    /// The first keyword (as given) that `text` contains as whole words, or nil when it contains none.
    public func firstMatch(in text: String) -> String? {
        let words = Self.words(of: text)
        for (keyword, wanted) in zip(keywords, wordsOfKeywords) where !wanted.isEmpty && wanted.count <= words.count {
            for start in 0...(words.count - wanted.count) where words[start..<(start + wanted.count)].elementsEqual(wanted) {
                return keyword
            }
        }
        return nil
    }

    /// The words of `text` as compared: runs of letters and digits, folded to lower case without diacritics.
    /// Empty for text without letters or digits, which as a keyword could never match: check configured
    /// keywords with it.
    public static func words(of text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split { !($0.isLetter || $0.isNumber) }
            .map(String.init)
    }
}
