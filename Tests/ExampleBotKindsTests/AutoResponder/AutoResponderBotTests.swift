import BotRuntime
import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

/// The auto-responder answering messages: rule order, templates, per-person cooldowns, quiet hours and away mode.
@Suite("AutoResponderBot")
struct AutoResponderBotTests {
    /// Sunday 30 November 2025, 14:30 UTC (14:30 in Lisbon).
    static let afternoon = Chat.instant("2025-11-30T14:30:00Z")

    func bot(_ json: String) throws -> AutoResponderBot {
        try AutoResponderBot(options: botOptions(json))
    }

    static let greetingAndOrder = #"""
        {"rules": [
            {"id": "greeting", "keywords": ["hello", "good morning"], "reply": "Hi {name}!"},
            {"id": "order", "pattern": "order\\s*#?(\\d+)", "reply": "Order {1} for @{username}: on its way."},
            {"id": "anything", "pattern": "hel+o", "reply": "You said {0}."}
        ]}
        """#

    // MARK: Rules and templates

    @Test func theFirstMatchingRuleAnswersInTheOrderGiven() async throws {
        let bot = try bot(Self.greetingAndOrder)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello, about order #42", to: bot)
        try await context.say("helllo", from: Chat.ben, in: Chat.benChat, to: bot)
        try await context.say("where is order 7?", from: Chat.ben, in: Chat.benChat, to: bot)
        #expect(context.sentTexts == ["Hi Alice Moreau!", "You said helllo.", "Order 7 for @ben_tan: on its way."])
        #expect(context.sentMessages.map(\.conversationId) == [Chat.aliceChat, Chat.benChat, Chat.benChat])
    }

    @Test func aMessageNoRuleMatchesGetsNoAnswer() async throws {
        let context = Chat.context(now: Self.afternoon)
        try await context.say("what time is it?", to: try bot(Self.greetingAndOrder))
        #expect(context.sentMessages.isEmpty)
    }

    @Test func keywordsMatchWholeWordsIgnoringCaseAndAccents() async throws {
        let bot = try bot(#"{"rules": [{"keywords": ["hello", "good morning"], "reply": "hi", "cooldownSeconds": 0}]}"#)
        let context = Chat.context(now: Self.afternoon)
        for text in ["HELLO!", "Héllo there", "well, good   Morning to you", "Othello", "hellooo", "good mornings"] {
            try await context.say(text, to: bot)
        }
        #expect(context.sentTexts == ["hi", "hi", "hi"])
    }

    @Test func patternsIgnoreCaseUnlessTheRuleSaysOtherwise() async throws {
        let bot = try bot(#"""
            {"rules": [{"pattern": "^STOP$", "caseSensitive": true, "reply": "stopped", "cooldownSeconds": 0},
                       {"pattern": "^go$", "reply": "going", "cooldownSeconds": 0}]}
            """#)
        let context = Chat.context(now: Self.afternoon)
        for text in ["stop", "STOP", "GO"] { try await context.say(text, to: bot) }
        #expect(context.sentTexts == ["stopped", "going"])
    }

    @Test func theTemplateFillsInTheMessageTextAndBraces() async throws {
        let bot = try bot(#"{"rules": [{"pattern": "echo (.*)", "reply": "{{{text}}} → {1}"}]}"#)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("echo this back", to: bot)
        #expect(context.sentTexts == ["{echo this back} → this back"])
    }

    @Test func someoneWhoseProfileTheBotCannotSeeIsCalledByTheFallbackName() async throws {
        let bot = try bot(#"{"rules": [{"keywords": ["hello"], "reply": "Hi {name}!"}], "unknownName": "friend"}"#)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", from: Chat.stranger, in: Chat.group, to: bot)
        #expect(context.sentTexts == ["Hi friend!"])
    }

    @Test func theSendersNameIsLookedUpOnceADayNotOncePerMessage() async throws {
        let bot = try bot(#"{"rules": [{"keywords": ["hello"], "reply": "Hi {name}!", "cooldownSeconds": 0}]}"#)
        let recording = Chat.context(now: Self.afternoon)
        let context = CountingBotContext(recording)
        func say(_ text: String) async throws {
            try await bot.onMessage(IncomingMessage(recording.message(text, from: Chat.alice.id, in: Chat.aliceChat)), context: context)
        }
        try await say("hello")
        try await say("hello again")
        recording.advance(by: .seconds(23 * 3_600))
        try await say("hello")
        #expect(context.friendListRequests == 1)
        recording.advance(by: .seconds(3_600))
        try await say("hello")
        #expect(context.friendListRequests == 2)
        #expect(recording.sentTexts == Array(repeating: "Hi Alice Moreau!", count: 4))
    }

    @Test func aTemplateWithoutNamesLooksNothingUp() async throws {
        let bot = try bot(#"{"rules": [{"keywords": ["ping"], "reply": "pong"}]}"#)
        let recording = Chat.context(now: Self.afternoon)
        let context = CountingBotContext(recording)
        try await bot.onMessage(IncomingMessage(recording.message("ping", from: Chat.alice.id, in: Chat.aliceChat)), context: context)
        #expect(context.friendListRequests == 0)
        #expect(recording.sentTexts == ["pong"])
    }

    @Test func theBotNeverAnswersItself() async throws {
        let bot = try bot(#"{"rules": [{"pattern": ".", "reply": "echo {text}"}]}"#)
        let context = Chat.context(now: Self.afternoon)
        let me = User(id: Chat.botId, username: "responder", displayName: "Responder")
        try await context.say("echo hello", from: me, in: Chat.aliceChat, to: bot)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func textThatLooksLikeACommandIsForTheRulesAlone() async throws {
        let bot = try bot(#"{"rules": [{"keywords": ["help"], "reply": "How can I help?", "cooldownSeconds": 0}]}"#)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("/help", to: bot)
        try await context.say("/start", to: bot)
        #expect(context.sentTexts == ["How can I help?"])
    }

    @Test func blankAndSystemMessagesGetNoAnswerNotEvenTheAwayMessage() async throws {
        let bot = try bot(#"{"away": {"message": "Away."}}"#)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("   ", to: bot)
        let joined = context.message(MessageContent(kind: .system, body: "Alice joined"), from: Chat.alice.id, in: Chat.group)
        try await context.deliver(joined, to: bot)
        #expect(context.sentTexts.isEmpty)
        try await context.say("hi", to: bot)
        #expect(context.sentTexts == ["Away."])
    }

    // MARK: Cooldowns

    static let hello = #"{"rules": [{"keywords": ["hello"], "reply": "Hi {name}!"}], "cooldownSeconds": 300}"#

    @Test func aRuleThatAnsweredSomeoneStaysSilentForThemDuringItsCooldown() async throws {
        let bot = try bot(Self.hello)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        context.advance(by: .seconds(299))
        try await context.say("hello?", to: bot)
        #expect(context.sentTexts == ["Hi Alice Moreau!"])
    }

    @Test func anotherPersonIsNotAffectedBySomeonesCooldown() async throws {
        let bot = try bot(Self.hello)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        try await context.say("hello", from: Chat.ben, in: Chat.group, to: bot)
        #expect(context.sentTexts == ["Hi Alice Moreau!", "Hi Ben Tan!"])
    }

    @Test func theCooldownExpires() async throws {
        let bot = try bot(Self.hello)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        context.advance(by: .seconds(300))
        try await context.say("hello", to: bot)
        #expect(context.sentTexts == ["Hi Alice Moreau!", "Hi Alice Moreau!"])
    }

    @Test func aCooldownLongerThanATimestampHoldsNeverEnds() async throws {
        let bot = try bot(#"{"rules": [{"keywords": ["hello"], "reply": "Hi {name}!", "cooldownSeconds": 10000000000000000}]}"#)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        context.advance(by: .seconds(3_153_600_000))  // a hundred years
        try await context.say("hello", to: bot)
        #expect(context.sentTexts == ["Hi Alice Moreau!"])
    }

    @Test func theCooldownIsKeptInStateSoItSurvivesARestart() async throws {
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: try bot(Self.hello))
        context.advance(by: .seconds(60))
        try await context.say("hello", to: try bot(Self.hello))  // a new process, the same bot state
        #expect(context.sentTexts == ["Hi Alice Moreau!"])
    }

    static let twoRules = #"""
        {"rules": [{"id": "greeting", "keywords": ["hello"], "reply": "Hi!"},
                   {"id": "thanks", "keywords": ["thanks"], "reply": "You're welcome!", "cooldownSeconds": 30}],
         "cooldownSeconds": 300, "cooldownScope": "SCOPE"}
        """#

    @Test func withRuleScopeAnotherRuleStillAnswersDuringACooldown() async throws {
        let bot = try bot(Self.twoRules.replacingOccurrences(of: "SCOPE", with: "rule"))
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        try await context.say("thanks", to: bot)
        #expect(context.sentTexts == ["Hi!", "You're welcome!"])
    }

    @Test func withGlobalScopeAnyAnswerSilencesEveryRuleForThatPerson() async throws {
        let bot = try bot(Self.twoRules.replacingOccurrences(of: "SCOPE", with: "global"))
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        try await context.say("thanks", to: bot)
        try await context.say("thanks", from: Chat.ben, in: Chat.benChat, to: bot)
        #expect(context.sentTexts == ["Hi!", "You're welcome!"])
    }

    @Test func aRulesOwnCooldownOverridesTheDefault() async throws {
        let bot = try bot(Self.twoRules.replacingOccurrences(of: "SCOPE", with: "rule"))
        let context = Chat.context(now: Self.afternoon)
        try await context.say("thanks", to: bot)
        context.advance(by: .seconds(30))
        try await context.say("thanks", to: bot)
        #expect(context.sentTexts == ["You're welcome!", "You're welcome!"])
    }

    @Test func aMatchingRuleInItsCooldownKeepsTheBotSilentRatherThanFallingThrough() async throws {
        let bot = try bot(#"""
            {"rules": [{"keywords": ["hello"], "reply": "Hi!"}, {"pattern": ".", "reply": "Anything else?"}]}
            """#)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        try await context.say("hello", to: bot)
        #expect(context.sentTexts == ["Hi!"])
    }

    // MARK: Quiet hours

    static let quiet = #"""
        {"rules": [{"keywords": ["hello"], "reply": "Hi!", "cooldownSeconds": 0}],
         "quietHours": {"from": "22:00", "to": "07:00", "timeZone": "Europe/Lisbon"}}
        """#

    @Test(arguments: [
        ("2025-11-30T21:59:59Z", true), ("2025-11-30T22:00:00Z", false), ("2025-11-30T23:59:00Z", false),
        ("2025-12-01T00:00:00Z", false), ("2025-12-01T06:59:59Z", false), ("2025-12-01T07:00:00Z", true),
    ])
    func quietHoursAcrossMidnightSilenceTheRules(at instant: String, answers: Bool) async throws {
        let context = Chat.context(now: Chat.instant(instant))
        try await context.say("hello", to: try bot(Self.quiet))
        #expect(context.sentTexts == (answers ? ["Hi!"] : []))
    }

    @Test func quietHoursAreReadInTheirTimeZone() async throws {
        // 22:30 UTC is 17:30 in New York: not quiet there.
        let bot = try bot(Self.quiet.replacingOccurrences(of: "Europe/Lisbon", with: "America/New_York"))
        let context = Chat.context(now: Chat.instant("2025-11-30T22:30:00Z"))
        try await context.say("hello", to: bot)
        #expect(context.sentTexts == ["Hi!"])
    }

    @Test func quietHoursWithinADayEndBeforeMidnight() throws {
        let hours = QuietHours(
            from: try TimeOfDay(hour: 12, minute: 0), to: try TimeOfDay(hour: 14, minute: 0), timeZone: Chat.zone("UTC"))
        #expect(hours.period(containing: Chat.instant("2025-11-30T11:59:00Z")) == nil)
        #expect(hours.period(containing: Chat.instant("2025-11-30T12:00:00Z")) == LocalDate(year: 2025, month: 11, day: 30))
        #expect(hours.period(containing: Chat.instant("2025-11-30T14:00:00Z")) == nil)
    }

    @Test func aNightIsOneQuietPeriodFromItsEveningToItsMorning() throws {
        let hours = QuietHours(
            from: try TimeOfDay(hour: 22, minute: 0), to: try TimeOfDay(hour: 7, minute: 0), timeZone: Chat.zone("Europe/Lisbon"))
        let monday = LocalDate(year: 2025, month: 12, day: 1)
        #expect(hours.period(containing: Chat.instant("2025-12-01T23:00:00Z")) == monday)
        #expect(hours.period(containing: Chat.instant("2025-12-02T06:00:00Z")) == monday)
    }

    @Test func theQuietReplyIsSentOncePerPersonPerNight() async throws {
        let bot = try bot(#"""
            {"rules": [{"keywords": ["hello"], "reply": "Hi!", "cooldownSeconds": 0}],
             "quietHours": {"from": "22:00", "to": "07:00", "timeZone": "Europe/Lisbon", "reply": "Shh, {name}: back at 07:00."}}
            """#)
        let context = Chat.context(now: Chat.instant("2025-11-30T23:00:00Z"))
        try await context.say("hello", to: bot)
        try await context.say("hello", from: Chat.ben, in: Chat.benChat, to: bot)
        context.advance(to: Chat.instant("2025-12-01T05:00:00Z"))
        try await context.say("hello?", to: bot)
        context.advance(to: Chat.instant("2025-12-01T09:00:00Z"))
        try await context.say("hello", to: bot)
        context.advance(to: Chat.instant("2025-12-01T22:30:00Z"))
        try await context.say("hello", to: bot)
        #expect(context.sentTexts == [
            "Shh, Alice Moreau: back at 07:00.", "Shh, Ben Tan: back at 07:00.", "Hi!", "Shh, Alice Moreau: back at 07:00.",
        ])
    }

    // MARK: Away

    static let away = #"""
        {"rules": [{"keywords": ["hello"], "reply": "Hi!", "cooldownSeconds": 0}],
         "away": {"message": "I'm away until Monday, {name}.", "from": "2025-11-29T00:00:00Z", "until": "2025-12-01T08:00:00Z"}}
        """#

    @Test func theAwayMessageAnswersEachPersonOnceThenTheRulesAnswer() async throws {
        let bot = try bot(Self.away)
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hello", to: bot)
        try await context.say("hello", to: bot)
        try await context.say("are you there?", to: bot)
        try await context.say("hello", from: Chat.ben, in: Chat.group, to: bot)
        #expect(context.sentTexts == ["I'm away until Monday, Alice Moreau.", "Hi!", "I'm away until Monday, Ben Tan."])
    }

    @Test func theAwayMessageIsSentOnlyWithinItsPeriod() async throws {
        let bot = try bot(Self.away)
        let before = Chat.context(now: Chat.instant("2025-11-28T23:59:59Z"))
        try await before.say("hello", to: bot)
        let after = Chat.context(now: Chat.instant("2025-12-01T08:00:00Z"))
        try await after.say("hello", to: bot)
        #expect(before.sentTexts == ["Hi!"])
        #expect(after.sentTexts == ["Hi!"])
    }

    @Test func aNewAwayPeriodTellsEveryoneAgain() async throws {
        let context = Chat.context(now: Self.afternoon)
        try await context.say("hi", to: try bot(Self.away))
        try await context.say("hi", to: try bot(Self.away))
        try await context.say("hi", to: try bot(Self.away.replacingOccurrences(of: "until Monday", with: "until Tuesday")))
        #expect(context.sentTexts == ["I'm away until Monday, Alice Moreau.", "I'm away until Tuesday, Alice Moreau."])
    }

    @Test func quietHoursComeBeforeTheAwayMessage() async throws {
        let bot = try bot(#"""
            {"away": {"message": "Away."}, "quietHours": {"from": "22:00", "to": "07:00", "timeZone": "UTC"}}
            """#)
        let context = Chat.context(now: Chat.instant("2025-11-30T23:00:00Z"))
        try await context.say("hello", to: bot)
        context.advance(to: Chat.instant("2025-12-01T08:00:00Z"))
        try await context.say("hello", to: bot)
        #expect(context.sentTexts == ["Away."])
    }
}
