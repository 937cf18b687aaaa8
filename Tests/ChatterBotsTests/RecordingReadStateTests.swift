import Foundation
import Testing

@testable import ChatterBots

/// The recording context answers read-state questions from the conversations it was given and the receipts recorded.
@Suite("Recording context: read state")
struct RecordingReadStateTests {
    let identity = BotIdentity(name: "notes", userId: "BOT")
    let ana: User.ID = "U1"

    func context() -> RecordingBotContext {
        let created = Timestamp(Date(timeIntervalSince1970: 1_792_677_791))
        let conversation = Conversation(
            id: "C1", kind: .direct, title: nil, avatarUrl: nil,
            members: [Member(userId: "BOT", role: .member, lastDeliveredSeq: 3, lastReadSeq: 3),
                      Member(userId: ana, role: .member, lastDeliveredSeq: 2, lastReadSeq: 1)],
            lastSeq: 3, createdAt: created, updatedAt: created)
        return RecordingBotContext(bot: identity, conversations: [conversation])
    }

    @Test func aSendIsTheBotsLastMessageUntilTheMemberReadsUpToIt() async throws {
        let context = context()
        #expect(await !context.presence.hasRead(ana, lastMessageSentIn: "C1"))
        let ack = try await context.send("hi", to: "C1").acknowledged()
        #expect(await context.presence.readState(of: "C1")?.lastOwnSeq == ack.seq)
        context.recordReceipt(ReceiptUpdate(conversationId: "C1", userId: ana, lastDeliveredSeq: ack.seq, lastReadSeq: ack.seq - 1))
        #expect(await !context.presence.hasRead(ana, lastMessageSentIn: "C1"))
        #expect(await context.presence.hasRead(ana, upTo: ack.seq - 1, in: "C1"))
        context.recordReceipt(ReceiptUpdate(conversationId: "C1", userId: ana, lastDeliveredSeq: ack.seq, lastReadSeq: ack.seq))
        #expect(await context.presence.hasRead(ana, lastMessageSentIn: "C1"))
    }

    @Test func watermarksOnlyMoveForward() {
        var state = ConversationReadState(conversationId: "C1")
        let moved = state.merge(MemberWatermarks(userId: "U1", lastDeliveredSeq: 5, lastReadSeq: 4))
        let movedBack = state.merge(MemberWatermarks(userId: "U1", lastDeliveredSeq: 3, lastReadSeq: 2))
        #expect(moved && !movedBack)
        #expect(state.members["U1"] == MemberWatermarks(userId: "U1", lastDeliveredSeq: 5, lastReadSeq: 4))
    }

    @Test func anUnknownConversationHasNoReadState() async {
        #expect(await context().presence.readState(of: "C9") == nil)
    }
}
