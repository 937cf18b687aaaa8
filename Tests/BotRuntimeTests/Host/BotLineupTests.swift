@testable import BotRuntime
import ChatterBots
import Foundation
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
            """), kinds: [GreetingBot.kind])
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
        let error = try #require(throws: ConfigurationError.self) { try BotLineup(configuration: config, kinds: [GreetingBot.kind]) }
        #expect(error.issues.map(\.description) == [
            #"bot "one", options.greeting: must be a string (kind "greeting")"#,
            #"bot "two", options.greeting: is missing (kind "greeting")"#,
        ])
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
