import ChatterBots
import Testing

@testable import ChatterBench

@Suite("LoadLedger")
struct LoadLedgerTests {
    /// A ledger with two friends in a direct conversation, and the caller of the first on a device of its own.
    static func twoPeople() -> (LoadLedger, LoadLedger.Caller, Conversation.ID) {
        var ledger = LoadLedger()
        let alice = ledger.createUser(username: "alice", password: "pw")
        let bot = ledger.createUser(username: "bot", password: "pw")
        ledger.makeFriends(alice.id, bot.id)
        let conversation = ledger.directConversation(between: alice.id, bot.id)
        return (ledger, LoadLedger.Caller(userId: alice.id, deviceId: "D_ALICE"), conversation.id)
    }

    static func send(_ body: String, key: ClientMessageID, in conversation: Conversation.ID) -> MessageSend {
        MessageSend(conversationId: conversation, clientMessageId: key, content: MessageContent(kind: .text, body: body))
    }

    @Test(arguments: [ClientMessageID("0190f3a2-7c41-7abc-8def-0123456789ab"), ClientMessageID("not-a-uuid")])
    func aRepeatedSendGetsTheFirstAckAndMakesNoMessage(_ key: ClientMessageID) throws {
        var (ledger, alice, conversation) = Self.twoPeople()
        let (first, deliveries) = try ledger.send(Self.send("hi", key: key, in: conversation), from: alice).get()
        let (again, redeliveries) = try ledger.send(Self.send("hi again", key: key, in: conversation), from: alice).get()
        #expect(deliveries.count == 1)
        #expect(again == first)
        #expect(redeliveries.isEmpty)
        #expect(ledger.messages(in: conversation, for: alice.userId, afterSeq: 0, limit: 10)?.messages.map(\.body) == ["hi"])
    }

    @Test func keysDifferingOnlyInCaseMakeTwoMessages() throws {
        var (ledger, alice, conversation) = Self.twoPeople()
        let lower: ClientMessageID = "0190f3a2-7c41-7abc-8def-0123456789ab"
        let first = try ledger.send(Self.send("one", key: lower, in: conversation), from: alice).get().0
        let second = try ledger.send(Self.send("two", key: ClientMessageID(lower.rawValue.uppercased()), in: conversation), from: alice).get().0
        #expect(first.seq == 1 && second.seq == 2)
    }
}

@Suite("FloodRequest")
struct FloodRequestTests {
    static func request(firstNumber: Int, count: Int) -> FloodRequest {
        FloodRequest(conversations: ["C1"], count: count, firstNumber: firstNumber, window: 8, timeoutSeconds: 1)
    }

    @Test func numbersThatFitASendersKeysAreAccepted() {
        #expect(Self.request(firstNumber: 0, count: 20_000).isWellFormed)
        #expect(Self.request(firstNumber: VirtualSenders.messageNumbers - 10, count: 10).isWellFormed)
    }

    @Test func negativeOrOversizedNumbersAreRefused() {
        #expect(!Self.request(firstNumber: -1, count: 10).isWellFormed)
        #expect(!Self.request(firstNumber: 0, count: -1).isWellFormed)
        #expect(!Self.request(firstNumber: VirtualSenders.messageNumbers - 10, count: 11).isWellFormed)
        #expect(!Self.request(firstNumber: Int.max, count: 10).isWellFormed)
    }
}
