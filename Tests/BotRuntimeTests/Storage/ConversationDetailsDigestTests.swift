@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// The digest of a conversation's details is kept in the bot's store (migration v8): its form must not change.
@Suite struct ConversationDetailsDigestTests {
    static func group(title: String?, members: [Member], lastSeq: Int = 1) -> Conversation {
        let at = Timestamp(Date(timeIntervalSince1970: 1_800_000_000))
        return Conversation(id: "C1", kind: .group, title: title, members: members, lastSeq: lastSeq, createdAt: at, updatedAt: at)
    }

    @Test func theDigestIsTheSHA1OfTheDetailsCanonicalForm() {
        let conversation = Self.group(title: "tea", members: [Member(userId: "U2", role: .member), Member(userId: "U1", role: .owner)])
        // sha1 of "conversation\ntitle 3:tea\navatar -\nmember 2:U1 5:owner\nmember 2:U2 6:member"
        #expect(conversation.detailsDigest == "9f3004f1d91db4ae823a5ab86a8d964067c339b6")
    }

    @Test func watermarksAndNewMessagesLeaveTheDigestAsItWas() {
        let before = Self.group(title: "tea", members: [Member(userId: "U1", role: .owner)])
        let after = Self.group(title: "tea", members: [Member(userId: "U1", role: .owner, lastDeliveredSeq: 9, lastReadSeq: 9)], lastSeq: 9)
        #expect(before.detailsDigest == after.detailsDigest)
        #expect(Self.group(title: "coffee", members: before.members).detailsDigest != before.detailsDigest)
    }
}
