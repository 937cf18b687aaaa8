@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// `MessageChanges`: what an update changed, compared with the previous version known.
@Suite struct MessageChangesTests {
    static func message(
        _ body: String?, edited: Double? = nil, deleted: Double? = nil, reactions: [Message.Reaction] = []
    ) -> Message {
        Message(
            id: "01JFMESSAGE0000000000000001", conversationId: "01JECONVERSATION0000000001", seq: 1,
            senderId: "01JCUSER00000000000000001", clientMessageId: nil, kind: .text, body: body,
            reactions: reactions, createdAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_000)),
            editedAt: edited.map { Timestamp(Date(timeIntervalSince1970: $0)) },
            deletedAt: deleted.map { Timestamp(Date(timeIntervalSince1970: $0)) })
    }

    @Test func anEditGivesTheBodyBefore() {
        let changes = MessageChanges(from: MessageVersion(Self.message("a")), to: Self.message("b", edited: 1))
        #expect(changes == MessageChanges(edit: .init(previousBody: "a")))
    }

    @Test func reactionsAreComparedPerEmojiAndUser() {
        let before = Self.message("a", reactions: [.init(emoji: "👍", userIds: ["U1", "U2"])])
        let after = Self.message("a", reactions: [.init(emoji: "👍", userIds: ["U2"]), .init(emoji: "🎉", userIds: ["U1", "U3"])])
        let changes = MessageChanges(from: MessageVersion(before), to: after)
        #expect(changes.edit == nil && !changes.isDeleted)
        #expect(changes.added == [.init(emoji: "🎉", userIds: ["U1", "U3"])])
        #expect(changes.removed == [.init(emoji: "👍", userIds: ["U1"])])
    }

    @Test func aDeletionReportsNothingElse() {
        let before = Self.message("a", reactions: [.init(emoji: "👍", userIds: ["U1"])])
        let changes = MessageChanges(from: MessageVersion(before), to: Self.message(nil, deleted: 2))
        #expect(changes == MessageChanges(isDeleted: true))
        #expect(MessageChanges(from: MessageVersion(Self.message(nil, deleted: 2)), to: Self.message(nil, deleted: 2)) == MessageChanges())
    }

    @Test func anUnknownPreviousVersionIsTakenAsCreated() {
        let changes = MessageChanges(from: nil, to: Self.message("b", edited: 1, reactions: [.init(emoji: "👍", userIds: ["U1"])]))
        #expect(changes.edit == .init(previousBody: nil))
        #expect(changes.added == [.init(emoji: "👍", userIds: ["U1"])])
        #expect(MessageChanges(from: nil, to: Self.message("a")) == MessageChanges())
    }
}

/// `RecentMessageVersions`: the messages handled recently, bounded.
@Suite struct RecentMessageVersionsTests {
    static func message(_ index: Int) -> Message {
        Message(
            id: Message.ID("M\(index)"), conversationId: "C1", seq: index, senderId: "U1", clientMessageId: nil,
            kind: .text, body: "text \(index)", createdAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_000)))
    }

    @Test func onlyTheMostRecentMessagesAreRemembered() {
        let recent = RecentMessageVersions()
        let capacity = RecentMessageVersions.capacity
        for index in 0...(2 * capacity) { recent.remember(Self.message(index)) }
        #expect(recent.version(of: Self.message(capacity).id) == nil)
        #expect(recent.version(of: Self.message(capacity + 1).id)?.body == "text \(capacity + 1)")
        #expect(recent.version(of: Self.message(2 * capacity).id)?.body == "text \(2 * capacity)")
    }
}
