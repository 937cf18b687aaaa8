import BotRuntime
import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

@Suite("echo bot")
struct EchoBotTests {
    func message(_ body: String) -> Message {
        Message(
            id: "m_1", conversationId: "c_1", seq: 4, senderId: "alice", clientMessageId: nil, kind: .text, body: body,
            createdAt: Timestamp(millisecondsSince1970: 1_792_677_791_482))
    }

    func configuration(options: String) throws -> BotConfiguration {
        let json = #"""
            {"server": "sandbox", "bots": [{"name": "echo", "kind": "echo",
             "credentials": {"username": "echo_bot", "password": "password"}, "friendRequests": "everyone",
             "options": \#(options)}]}
            """#
        let configuration = try BotsConfiguration(json: Data(json.utf8), environment: [:], baseDirectory: URL(fileURLWithPath: "/tmp"))
        return try #require(configuration.bots.first)
    }

    @Test func itRepliesWithThePrefixedTextInTheSameConversation() async throws {
        let context = RecordingBotContext()
        try await context.deliver(message("hello"), to: EchoBot(options: .init(prefix: "> ")))
        #expect(context.sentMessages.map(\.content.body) == ["> hello"])
        #expect(context.sentMessages.map(\.conversationId) == ["c_1"])
        #expect(context.typingChanges.isEmpty)
    }

    @Test func withTypingSecondsItShowsTypingBeforeReplying() async throws {
        let context = RecordingBotContext()
        try await context.deliver(message("hi"), to: EchoBot(options: .init(typingSeconds: 0.01)))
        #expect(context.typingChanges.map(\.isTyping) == [true])
        #expect(context.sentMessages.map(\.content.body) == ["echo: hi"])
    }

    @Test func anEmptyMessageGetsNoReply() async throws {
        let context = RecordingBotContext()
        try await context.deliver(message(""), to: EchoBot())
        #expect(context.sentMessages.isEmpty)
    }

    @Test func theKindReadsItsOptionsWithDefaultsAndRefusesAnOutOfRangeDelay() throws {
        let defaults = try #require(try EchoBot.botKind.makeBot(for: configuration(options: "{}")) as? EchoBot)
        #expect(defaults.options == EchoBot.Options(prefix: "echo: ", typingSeconds: 0))
        let custom = try #require(
            try EchoBot.botKind.makeBot(for: configuration(options: #"{"prefix": "re: ", "typingSeconds": 2}"#)) as? EchoBot)
        #expect(custom.options == EchoBot.Options(prefix: "re: ", typingSeconds: 2))
        #expect(throws: BotOptionsError(kind: "echo", option: "typingSeconds", message: "must be from 0 to 20 seconds")) {
            try EchoBot.botKind.makeBot(for: configuration(options: #"{"typingSeconds": 60}"#))
        }
        let misspelled = try #require(throws: BotOptionsError.self) {
            try EchoBot.botKind.makeBot(for: configuration(options: #"{"prefx": "> "}"#))
        }
        #expect(misspelled.option == "prefx")
    }
}

@Suite("the repository's bots.json")
struct RootConfigurationTests {
    @Test func itIsValidAndRunsTheExampleKindsAgainstTheEmbeddedSandbox() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let configuration = try BotsConfiguration.load(contentsOf: root.appendingPathComponent("bots.json"), environment: [:])
        #expect(configuration.server == .sandbox)
        let lineup = try BotLineup(
            configuration: configuration,
            kinds: [EchoBot.botKind, AutoResponderBot.botKind, ReminderBot.botKind, FriendGreeterBot.botKind]
        ).madeBots()
        #expect(Set(lineup.members.map(\.configuration.kind)) == ["echo", "auto-responder", "reminders", "friend-greeter"])
    }
}
