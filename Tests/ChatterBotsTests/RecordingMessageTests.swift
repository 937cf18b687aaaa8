import Foundation
import Testing

@testable import ChatterBots

/// `RecordingBotContext.message(_:from:in:)` makes the messages a unit test delivers, as the service would.
@Suite struct RecordingMessageTests {
    static let start = Timestamp(Date(timeIntervalSince1970: 1_792_677_791))

    static func conversation(lastSeq: Int) -> Conversation {
        Conversation(
            id: "C1", kind: .direct, members: [Member(userId: "BOT", role: .member), Member(userId: "U1", role: .member)],
            lastSeq: lastSeq, createdAt: start, updatedAt: start)
    }

    @Test func aMadeMessageIsTheNextOfItsConversationAtTheContextsTime() async throws {
        let context = RecordingBotContext(now: Self.start.date, conversations: [Self.conversation(lastSeq: 4)])
        context.advance(by: .seconds(30))
        let message = context.message("hi", from: "U1", in: "C1")
        #expect(message.seq == 5)
        #expect(message.senderId == "U1" && message.conversationId == "C1")
        #expect(message.kind == .text && message.body == "hi")
        #expect(message.createdAt == Self.start.advanced(by: .seconds(30)))
    }

    @Test func aMessageDeletedForEveryoneReachesNoHandler() async throws {
        let context = RecordingBotContext(conversations: [Self.conversation(lastSeq: 0)])
        var message = context.message("oops", from: "U1", in: "C1")
        message.body = nil
        message.deletedAt = Self.start
        try await context.deliver(message, to: EchoBot())
        #expect(context.sentMessages.isEmpty)
    }

    @Test func messagesAndTheBotsRepliesTakeSeqsInTurn() async throws {
        let context = RecordingBotContext(conversations: [Self.conversation(lastSeq: 0)])
        let first = context.message("one", from: "U1", in: "C1")
        try await context.deliver(first, to: EchoBot())
        let second = context.message("two", from: "U1", in: "C1")
        #expect(first.seq == 1)
        #expect(second.seq == 3, "the echo of the first took seq 2")
        #expect(first.id != second.id)
    }

    @Test func theFirstMadeMessageFollowsTheMessagesTheTestGave() async throws {
        let given = Message(
            id: "M7", conversationId: "C1", seq: 7, senderId: "U1", clientMessageId: nil, kind: .text, body: "old",
            createdAt: Self.start)
        let context = RecordingBotContext(conversations: [Self.conversation(lastSeq: 0)], messages: [given])
        #expect(context.message("new", from: "U1", in: "C1").seq == 8)
    }

    @Test func theBotsFirstSendFollowsTheMessagesTheTestGave() async throws {
        let given = Message(
            id: "M7", conversationId: "C1", seq: 7, senderId: "U1", clientMessageId: nil, kind: .text, body: "old",
            createdAt: Self.start)
        let context = RecordingBotContext(conversations: [Self.conversation(lastSeq: 0)], messages: [given])
        let sent = try await context.run { try await context.send("hello", to: "C1") }
        #expect(try await sent.acknowledged().seq == 8)
    }

    @Test func madeMessagesJoinTheHistoryTheBotReads() async throws {
        let context = RecordingBotContext(conversations: [Self.conversation(lastSeq: 0)])
        _ = context.message("one", from: "U1", in: "C1")
        _ = context.message(.init(kind: .photo, body: nil, mediaId: "F1"), from: "U1", in: "C1")
        var seen: [Message] = []
        for try await message in context.service.history(of: "C1") { seen.append(message) }
        #expect(seen.map(\.seq) == [2, 1])
        #expect(seen.first?.kind == .photo && seen.first?.mediaId == "F1" && seen.first?.body == nil)
    }

    @Test func theEchoBotAnswersAMadeMessage() async throws {
        let context = RecordingBotContext(conversations: [Self.conversation(lastSeq: 0)])
        try await context.deliver(context.message("hi", from: "U1", in: "C1"), to: EchoBot())
        #expect(context.sentMessages.map(\.content.body) == ["echo: hi"])
        #expect(context.sentMessages.map(\.conversationId) == ["C1"])
    }

    @Test func theDocsExampleAnswersAFriendInTheirDirectConversation() async throws {
        let alice = User(id: "U-ALICE", username: "alice", displayName: "Alice")
        let context = RecordingBotContext(friends: [Friend(user: alice, since: Timestamp(Date()))])
        let chat = try await context.service.directConversation(with: alice.id)
        try await context.deliver(context.message("hi", from: alice.id, in: chat.id), to: EchoBot())
        #expect(context.sentMessages.map(\.content.body) == ["echo: hi"])
        #expect(context.sentMessages.map(\.conversationId) == [chat.id])
    }
}
