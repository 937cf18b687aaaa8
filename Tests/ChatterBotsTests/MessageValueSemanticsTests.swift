import ChatterBots
import Foundation
import Testing

/// `Message` shares its fields between copies, yet behaves as the plain value it was: a change to one copy is
/// never seen through another, and equality and hashing go by the fields.
@Suite("Message value semantics")
struct MessageValueSemanticsTests {
    static func message(body: String = "hello") -> Message {
        Message(
            id: "M_1", conversationId: "C_1", seq: 3, senderId: "U_A", clientMessageId: "c-1", kind: .text, body: body,
            createdAt: Timestamp(millisecondsSince1970: 1_800_000_000_000))
    }

    @Test func changingACopyLeavesTheOriginalAsItWas() {
        let original = Self.message()
        var copy = original
        copy.body = "changed"
        copy.seq = 4
        copy.reactions.append(Message.Reaction(emoji: "👍", userIds: ["U_B"]))
        #expect(original.body == "hello")
        #expect(original.seq == 3)
        #expect(original.reactions.isEmpty)
        #expect(copy.body == "changed")
        #expect(copy.seq == 4)
        #expect(copy.reactions.count == 1)
    }

    @Test func messagesBuiltApartWithTheSameFieldsAreEqualAndHashAlike() {
        let first = Self.message()
        let second = Self.message()
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        #expect(first != Self.message(body: "other"))
    }

    @Test func aChangedCopyChangedBackIsEqualToTheOriginal() {
        let original = Self.message()
        var copy = original
        copy.body = "changed"
        #expect(copy != original)
        copy.body = "hello"
        #expect(copy == original)
    }

    @Test func encodingAndDecodingKeepEveryField() throws {
        var message = Self.message()
        message.mediaId = "MED_1"
        message.replyToId = "M_0"
        message.editedAt = Timestamp(millisecondsSince1970: 1_800_000_000_500)
        let decoded = try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message))
        #expect(decoded == message)
        #expect(decoded.editedAt == message.editedAt)
    }
}
