import Foundation
import Testing

@testable import ChatterBots

/// History reads newest first, page by page, until the first message.
@Suite struct MessageHistoryTests {
    static let start = Timestamp(Date(timeIntervalSince1970: 1_792_677_791))

    func context(messages count: Int) -> RecordingBotContext {
        let conversation = Conversation(
            id: "C1", kind: .direct, members: [Member(userId: "BOT", role: .member), Member(userId: "U1", role: .member)],
            lastSeq: count, createdAt: Self.start, updatedAt: Self.start)
        let messages = (1...count).map { seq in
            Message(
                id: Message.ID("M\(seq)"), conversationId: "C1", seq: seq, senderId: "U1", clientMessageId: nil, kind: .text,
                body: "m\(seq)", createdAt: Self.start)
        }
        return RecordingBotContext(conversations: [conversation], messages: messages)
    }

    @Test func historyReadsEveryMessageNewestFirstAcrossPages() async throws {
        let context = context(messages: 7)
        var seqs: [Int] = []
        for try await message in context.service.history(of: "C1", pageSize: 3) { seqs.append(message.seq) }
        #expect(seqs == [7, 6, 5, 4, 3, 2, 1])
    }

    @Test func historyBeforeASeqStartsBelowIt() async throws {
        let context = context(messages: 7)
        var seqs: [Int] = []
        for try await message in context.service.history(of: "C1", before: 4, pageSize: 2) { seqs.append(message.seq) }
        #expect(seqs == [3, 2, 1])
    }

    @Test func historyOfAConversationTheBotIsNotInThrowsNotFound() async throws {
        let context = context(messages: 1)
        var iterator = context.service.history(of: "C9", before: 5).makeAsyncIterator()
        let error = await #expect(throws: ChatterAPIError.self) { _ = try await iterator.next() }
        #expect(error?.code == .notFound)
    }

    @Test func aPageSizeOutOfTheServicesRangeIsRefusedWithAReason() async throws {
        let context = context(messages: 4)
        var iterator = context.service.history(of: "C1", before: 5, pageSize: 0).makeAsyncIterator()
        let error = await #expect(throws: ChatterAPIError.self) { _ = try await iterator.next() }
        #expect(error?.code == .validationFailed)
    }
}
