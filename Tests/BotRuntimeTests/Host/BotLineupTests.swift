@testable import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import Testing
import BotRuntimeTestSupport

@Suite("configuration to bots")
struct BotLineupTests {
    func configuration(_ bots: String) throws -> BotsConfiguration {
        try BotsConfiguration(
            json: Data(#"{"server": "sandbox", "bots": [\#(bots)]}"#.utf8), environment: ["GREETING": "hello from env"],
            baseDirectory: URL(fileURLWithPath: "/tmp"))
    }

    @Test func everyConfiguredBotIsMadeByItsKindWithItsOptionsInOrder() throws {
        let lineup = try BotLineup(configuration: configuration("""
            {"name": "one", "kind": "greeting", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone", "options": {"greeting": "hi"}},
            {"name": "two", "kind": "greeting", "credentials": {"username": "two_bot", "password": "password-2"},
             "friendRequests": "nobody", "options": {"greeting": {"env": "GREETING"}, "delaySeconds": 2}}
            """), kinds: [GreetingBot.kind]).madeBots()
        #expect(lineup.members.map(\.configuration.name) == ["one", "two"])
        let bots = lineup.members.compactMap { $0.bot as? GreetingBot }
        #expect(bots.map(\.options.greeting) == ["hi", "hello from env"])
        #expect(bots.map(\.options.delaySeconds) == [nil, 2])
    }

    @Test func optionsAKindRefusesAreReportedWithTheBotAndTheOptionPath() throws {
        let config = try configuration("""
            {"name": "one", "kind": "greeting", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone", "options": {"greeting": 5}},
            {"name": "two", "kind": "greeting", "credentials": {"username": "two_bot", "password": "password-2"},
             "friendRequests": "everyone"}
            """)
        let error = try #require(throws: ConfigurationError.self) {
            try BotLineup(configuration: config, kinds: [GreetingBot.kind]).madeBots()
        }
        #expect(error.issues.map(\.description) == [
            #"bot "one", options.greeting: must be a string (kind "greeting")"#,
            #"bot "two", options.greeting: is missing (kind "greeting")"#,
        ])
    }

    @Test func theLineupPairsBotsWithTheirKindsWithoutMakingAny() throws {
        let made = Mutex(0)
        let counting = BotKind("greeting") { configuration in
            made.withLock { $0 += 1 }
            return try GreetingBot.kind.makeBot(for: configuration)
        }
        let lineup = try BotLineup(configuration: configuration("""
            {"name": "one", "kind": "greeting", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone", "options": {"greeting": 5}}
            """), kinds: [counting])
        #expect(lineup.members.map(\.kind.name) == ["greeting"])
        #expect(lineup.members.allSatisfy { $0.bot == nil })
        #expect(made.withLock { $0 } == 0)
    }

    @Test func aMemberMadeAlreadyGivesItsBotWithoutMakingItAgain() throws {
        let made = Mutex(0)
        let counting = BotKind("greeting") { configuration in
            made.withLock { $0 += 1 }
            return try GreetingBot.kind.makeBot(for: configuration)
        }
        let lineup = try BotLineup(configuration: configuration("""
            {"name": "one", "kind": "greeting", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone", "options": {"greeting": "hi"}}
            """), kinds: [counting]).madeBots()
        let member = try #require(lineup.members.first)
        #expect((try member.makeBot() as? GreetingBot)?.options.greeting == "hi")
        #expect(made.withLock { $0 } == 1)
    }

    @Test func aRefusalThatIsNotADecodingErrorIsReportedInItsOwnWords() throws {
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "the greeting needs a reminder kind beside it" }
        }
        let config = try configuration("""
            {"name": "one", "kind": "greeting", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone"}
            """)
        let issue = BotLineup.issue(refusing: config.bots[0], error: Refusal())
        #expect(issue.description == #"bot "one", options: the greeting needs a reminder kind beside it"#)
    }

    @Test func aKindThatIsNotRegisteredIsReportedWithTheRegisteredOnes() throws {
        let config = try configuration("""
            {"name": "one", "kind": "reminder", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone"}
            """)
        let error = try #require(throws: ConfigurationError.self) { try BotLineup(configuration: config, kinds: [GreetingBot.kind]) }
        #expect(error.issues.map(\.description) == [#"bot "one", kind: unknown kind "reminder"; registered kinds: greeting"#])
    }

    @Test func aKindRegisteredTwiceIsAnError() throws {
        let config = try configuration("""
            {"name": "one", "kind": "greeting", "credentials": {"username": "one_bot", "password": "password-1"},
             "friendRequests": "everyone", "options": {"greeting": "hi"}}
            """)
        let error = try #require(throws: ConfigurationError.self) {
            try BotLineup(configuration: config, kinds: [GreetingBot.kind, GreetingBot.kind])
        }
        #expect(error.issues.map(\.field) == ["kinds"])
    }
}
