import BotRuntime
import ChatterBots
import ChatterBotsTesting
import Foundation
import Testing
@testable import ExampleBotKinds

/// The auto-responder as it runs, against the sandbox on a virtual clock: rules by keyword and pattern, first
/// match wins, the sender's name in the reply, a per-person cooldown, quiet hours and away mode.
@Suite("AutoResponderBot end to end")
struct AutoResponderBotEndToEndTests {
    static let rules: JSONValue = [
        ["keywords": ["hello", "good morning"], "reply": "Hi {name}!"],
        ["pattern": "order\\s*#?(\\d+)", "reply": "Looking up order {1} for you, {name}."],
        ["keywords": ["order"], "reply": "Which order do you mean?"],
    ]

    /// An auto-responder with `rules` and a five-minute cooldown, plus `extra` options, started at `start`.
    static func harness(
        at start: Date = Fixture.sunday, _ extra: [String: JSONValue] = [:]
    ) async throws -> BotTestHarness {
        var options: [String: JSONValue] = ["rules": rules, "cooldownSeconds": 300]
        options.merge(extra) { $1 }
        return try await BotTestHarness.start(
            AutoResponderBot.botKind, options: .object(options),
            configuration: BotTestConfiguration(start: start, timeZone: Fixture.lisbon))
    }

    @Test func aKeywordRuleAnswersWithTheSendersName() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice", displayName: "Alice Moreau")
            try await alice.send("Hello there!")
            #expect(try await alice.nextText() == "Hi Alice Moreau!")
        }
    }

    @Test func aPatternRuleFillsInWhatItCapturedAndTheFirstMatchingRuleWins() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice", displayName: "Alice Moreau")
            try await alice.send("where is my order #4711?")  // the pattern (rule 2) and "order" (rule 3) match
            #expect(try await alice.nextText() == "Looking up order 4711 for you, Alice Moreau.")
            #expect(try await alice.remainingMessages().isEmpty)
            try await alice.send("about that order")
            #expect(try await alice.nextText() == "Which order do you mean?")
        }
    }

    @Test func aMessageNoRuleMatchesGetsNoAnswer() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("nice weather today")
            #expect(try await alice.remainingMessages().isEmpty)
        }
    }

    @Test func aRuleStaysSilentForAPersonDuringItsCooldownThenAnswersAgain() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice", displayName: "Alice")
            try await alice.send("hello")
            #expect(try await alice.nextText() == "Hi Alice!")
            try await harness.advance(by: .minutes(4))
            try await alice.send("hello?")
            #expect(try await alice.remainingMessages().isEmpty)
            try await harness.advance(by: .minutes(1))
            try await alice.send("hello!!")
            #expect(try await alice.nextText() == "Hi Alice!")
        }
    }

    @Test func onePersonsCooldownDoesNotSilenceTheBotForAnother() async throws {
        try await Self.harness().run { harness in
            let alice = try await harness.user("alice", displayName: "Alice")
            let ben = try await harness.user("ben", displayName: "Ben")
            try await alice.send("hello")
            #expect(try await alice.nextText() == "Hi Alice!")
            try await ben.send("hello")
            #expect(try await ben.nextText() == "Hi Ben!")
        }
    }

    @Test func inQuietHoursItAnswersOncePerNightWithTheQuietReplyThenNormallyInTheMorning() async throws {
        let quiet: JSONValue = ["from": "22:00", "to": "07:00", "timeZone": "Europe/Lisbon", "reply": "I'm asleep, {name}."]
        try await Self.harness(at: Fixture.instant("2025-11-30T23:00:00Z"), ["quietHours": quiet]).run { harness in
            let alice = try await harness.user("alice", displayName: "Alice")
            try await alice.send("hello")
            #expect(try await alice.nextText() == "I'm asleep, Alice.")
            try await alice.send("hello??")
            #expect(try await alice.remainingMessages().isEmpty)
            try await harness.advance(to: try harness.instant("2025-12-01 07:00"))
            try await alice.send("good morning")
            #expect(try await alice.nextText() == "Hi Alice!")
        }
    }

    @Test func inAwayModeEachPersonIsToldOnceAndThenTheRulesAnswer() async throws {
        let away: JSONValue = ["message": "I'm away until Monday, {name}.", "until": "2025-12-01T09:00:00Z"]
        try await Self.harness(["away": away]).run { harness in
            let alice = try await harness.user("alice", displayName: "Alice")
            let ben = try await harness.user("ben", displayName: "Ben")
            try await alice.send("hello")
            #expect(try await alice.nextText() == "I'm away until Monday, Alice.")
            try await alice.send("hello again")
            #expect(try await alice.nextText() == "Hi Alice!")
            try await ben.send("order 12")
            #expect(try await ben.nextText() == "I'm away until Monday, Ben.")
        }
    }

    @Test func afterTheAwayPeriodNobodyIsToldItAnyMore() async throws {
        let away: JSONValue = ["message": "I'm away until Monday.", "until": "2025-12-01T09:00:00Z"]
        try await Self.harness(["away": away]).run { harness in
            let alice = try await harness.user("alice", displayName: "Alice")
            try await harness.advance(to: Fixture.instant("2025-12-01T09:00:00Z"))
            try await alice.send("hello")
            #expect(try await alice.nextText() == "Hi Alice!")
        }
    }
}
