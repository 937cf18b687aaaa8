import Foundation
import Testing

@testable import ChatterBots

/// Keywords found as whole words, folding case and diacritics, and the router's keyword routes.
@Suite("Router keywords")
struct KeywordRoutingTests {
    let context = RecordingBotContext()

    @Test func aKeywordMatchesAsAWholeWordWhateverItsCaseAndDiacritics() {
        let matcher = KeywordMatcher(["hello"])
        #expect(matcher.firstMatch(in: "HELLO!") == "hello")
        #expect(matcher.firstMatch(in: "Héllo there") == "hello")
        #expect(matcher.firstMatch(in: "Othello") == nil)
        #expect(matcher.firstMatch(in: "hellooo") == nil)
    }

    @Test func aKeywordWithDiacriticsMatchesTextWithoutThem() {
        #expect(KeywordMatcher(["café"]).firstMatch(in: "un CAFE, por favor") == "café")
    }

    @Test func aPhraseMatchesItsWordsInARowWhateverStandsBetweenThem() {
        let matcher = KeywordMatcher(["good morning"])
        #expect(matcher.firstMatch(in: "well, good   Morning to you") == "good morning")
        #expect(matcher.firstMatch(in: "good, morning!") == "good morning")
        #expect(matcher.firstMatch(in: "good mornings") == nil)
        #expect(matcher.firstMatch(in: "morning good") == nil)
    }

    @Test func theFirstKeywordGivenThatMatchesIsReported() {
        #expect(KeywordMatcher(["order", "hello"]).firstMatch(in: "hello, about my order") == "order")
    }

    @Test func aKeywordWithoutLettersOrDigitsHasNoWordsAndNeverMatches() {
        #expect(KeywordMatcher.words(of: "!?").isEmpty)
        #expect(KeywordMatcher(["!?"]).firstMatch(in: "what !?") == nil)
    }

    @Test func aKeywordRouteHandsTheKeywordAsGivenToItsHandler() async throws {
        let seen = HandlerLog<String>()
        let router = MessageRouter { router in
            router.keywords(["opening hours", "open today"], name: "hours") { message in seen.append(message.captures.match) }
        }
        #expect(try await context.say("Are you OPEN today?", to: router) == .pattern("hours"))
        #expect(seen.all == ["open today"])
    }

    @Test func keywordRoutesArePatternsInRegistrationOrder() async throws {
        let router = MessageRouter { router in
            router.pattern(/order \d+/) { message, _ in try await message.reply("order number") }
            router.keywords(["order"]) { message in try await message.reply("which order?") }
        }
        #expect(try await context.say("my order 42", to: router) == .pattern("pattern-1"))
        #expect(try await context.say("my Order", to: router) == .pattern("pattern-2"))
        #expect(try await context.say("my orders", to: router) == .unhandled)
        #expect(context.replies == ["order number", "which order?"])
    }
}
