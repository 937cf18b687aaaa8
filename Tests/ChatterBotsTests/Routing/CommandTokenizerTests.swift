import Testing

@testable import ChatterBots

@Suite("Command tokenizer")
struct CommandTokenizerTests {
    private func words(_ text: String) -> [String] { CommandTokenizer.tokens(in: text).map(\.value) }

    @Test func whitespaceOfAnyLengthSeparatesWords() {
        #expect(words("  /remind\t10m   stretch \n legs ") == ["/remind", "10m", "stretch", "legs"])
    }

    @Test func quotedStringsAreOneWordWithoutQuotes() {
        #expect(words(#"/remind 10m "stretch your legs" now"#) == ["/remind", "10m", "stretch your legs", "now"])
        #expect(words("/say 'hello there'") == ["/say", "hello there"])
    }

    @Test func typographicQuotesFromPhoneKeyboardsWork() {
        #expect(words("/remind 10m “call mom” ‘today’") == ["/remind", "10m", "call mom", "today"])
    }

    @Test func apostrophesInsideWordsStayLiteral() {
        #expect(words("don't forget it's Ana's") == ["don't", "forget", "it's", "Ana's"])
    }

    @Test func backslashEscapesAQuoteInsideQuotes() {
        #expect(words(#"/say "she said \"hi\"""#) == ["/say", #"she said "hi""#])
    }

    @Test func anUnclosedQuoteIsKeptLiterallySoNothingIsLost() {
        #expect(words(#"/say "hello world"#) == ["/say", #""hello"#, "world"])
    }

    @Test func aQuoteClosesOnlyWhereAWordEnds() {
        #expect(words(#""a"b c" d"#) == [#"a"b c"#, "d"])
    }

    @Test func tokensRememberWhereTheyWereWritten() {
        let text = #"/remind 10m "stretch""#
        let tokens = CommandTokenizer.tokens(in: text)
        #expect(tokens.map { String(text[$0.range]) } == ["/remind", "10m", #""stretch""#])
        #expect(tokens.map(\.isQuoted) == [false, false, true])
    }
}
