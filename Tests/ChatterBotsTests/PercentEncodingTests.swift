@testable import ChatterBots
import Foundation
import Testing

/// Percent-encoding writes what Foundation's `addingPercentEncoding(withAllowedCharacters:)` writes for the same
/// characters, without going through `NSString`.
@Suite struct PercentEncodingTests {
    static let texts = [
        "", "plain123", "p@ss word/1", "eyJhbGciOi.abc-123_x~", "a+b=c&d%e#f?g", "\u{7f}\u{01}tab\there",
        "café", "pa\u{308}sswort", "👋🏽 hi", "日本語", "\u{10FFFF}",
    ]

    @Test(arguments: texts)
    func pathsAndQueriesKeepOnlyTheUnreservedCharacters(text: String) {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        #expect(PercentEncoding.encode(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
    }

    @Test(arguments: texts)
    func keepingASCIILettersAndDigitsEscapesEveryOtherByte(text: String) {
        let letters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        #expect(
            PercentEncoding.encode(text, keeping: ASCII.isLetterOrDigit)
                == text.addingPercentEncoding(withAllowedCharacters: letters))
    }
}
