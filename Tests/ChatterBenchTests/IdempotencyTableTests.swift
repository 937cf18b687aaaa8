import ChatterBots
import Testing

@testable import ChatterBench

@Suite("IdempotencyTable")
struct IdempotencyTableTests {
    static func message(_ key: ClientMessageID, seq: Int) -> Message {
        Message(
            id: Message.ID("m\(seq)"), conversationId: "c1", seq: seq, senderId: "alice", clientMessageId: key, kind: .text,
            body: "hi", createdAt: Timestamp(millisecondsSince1970: 1_700_000_000_000))
    }

    static func key(_ sender: User.ID, _ clientMessageId: ClientMessageID) -> IdempotencyTable.Key {
        IdempotencyTable.Key(sender: sender, clientMessageId: clientMessageId)
    }

    @Test func aRepeatedUUIDKeyFromTheSameSenderGetsTheFirstMessage() {
        var table = IdempotencyTable()
        let key = ClientMessageID.random()
        table[Self.key("alice", key)] = Self.message(key, seq: 1)
        #expect(table[Self.key("alice", key)] == Self.message(key, seq: 1))
    }

    @Test func aRepeatedTextKeyFromTheSameSenderGetsTheFirstMessage() {
        var table = IdempotencyTable()
        table[Self.key("alice", "not-a-uuid")] = Self.message("not-a-uuid", seq: 1)
        #expect(table[Self.key("alice", "not-a-uuid")] == Self.message("not-a-uuid", seq: 1))
    }

    @Test func theSameKeyFromAnotherSenderIsAnotherKey() {
        var table = IdempotencyTable()
        let key = ClientMessageID.random()
        table[Self.key("alice", key)] = Self.message(key, seq: 1)
        table[Self.key("alice", "text")] = Self.message("text", seq: 2)
        #expect(table[Self.key("bob", key)] == nil)
        #expect(table[Self.key("bob", "text")] == nil)
    }

    @Test func keysDifferingOnlyInCaseAreTwoKeys() {
        var table = IdempotencyTable()
        let lower: ClientMessageID = "0190f3a2-7c41-7abc-8def-0123456789ab"
        let upper = ClientMessageID(lower.rawValue.uppercased())
        table[Self.key("alice", lower)] = Self.message(lower, seq: 1)
        #expect(table[Self.key("alice", upper)] == nil)
        table[Self.key("alice", upper)] = Self.message(upper, seq: 2)
        #expect(table[Self.key("alice", lower)]?.seq == 1)
        #expect(table[Self.key("alice", upper)]?.seq == 2)
    }

    @Test func uuidTextReadsBackToItsBits() {
        let bits = IdempotencyTable.UUIDBits(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(bits.text == "01234567-89ab-cdef-fedc-ba9876543210")
        #expect(IdempotencyTable.UUIDBits(bits.text) == bits)
    }

    @Test(arguments: [
        "", "01234567-89ab-cdef-fedc-ba987654321", "01234567-89ab-cdef-fedc-ba98765432100", "01234567+89ab-cdef-fedc-ba9876543210",
        "0123456789abcdeffedcba9876543210----", "01234567-89AB-cdef-fedc-ba9876543210", "01234567-89ab-cdeg-fedc-ba9876543210",
        "0123456é-89ab-cdef-fedc-ba987654321",
    ])
    func textThatIsNotLowercaseUUIDHasNoBits(_ text: String) {
        #expect(IdempotencyTable.UUIDBits(text) == nil)
    }

    @Test func virtualSendersKeysDifferByTrackAndNumberAndAreUUIDText() {
        let keys = [(0, 1), (0, 2), (1, 1), (1, 2)].map { track, number in
            VirtualSenders.clientMessageId(runBits: 42, track: UInt64(track), number: number)
        }
        #expect(Set(keys).count == 4)
        #expect(keys.allSatisfy { IdempotencyTable.UUIDBits($0.rawValue) != nil })
    }
}
