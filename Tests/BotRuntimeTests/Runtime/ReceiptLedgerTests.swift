@testable import BotRuntime
import ChatterBots
import Testing

/// Which receipts go out, and which go out again after a connection ended.
@Suite struct ReceiptLedgerTests {
    static let ana = Conversation.ID("c-ana")
    static let ben = Conversation.ID("c-ben")

    static func read(_ seq: Int, in conversation: Conversation.ID) -> ClientRequest {
        .receiptRead(ReceiptPosition(conversationId: conversation, seq: seq))
    }

    @Test func aBurstOfMessagesCostsOneReceiptPerConversation() {
        var ledger = ReceiptLedger()
        for seq in 1...3 { ledger.read(seq, in: Self.ana) }
        ledger.read(1, in: Self.ben)
        #expect(ledger.takeUnsent(generation: 1, pingsWritten: 0) == [Self.read(3, in: Self.ana), Self.read(1, in: Self.ben)])
        #expect(!ledger.hasUnsent)
    }

    @Test func aReadReceiptCoversDeliveryUpToItsSeq() {
        var ledger = ReceiptLedger()
        ledger.delivered(4, in: Self.ana)
        ledger.read(3, in: Self.ana)
        #expect(ledger.takeUnsent(generation: 1, pingsWritten: 0) == [
            Self.read(3, in: Self.ana), .receiptDelivered(ReceiptPosition(conversationId: Self.ana, seq: 4)),
        ])
        ledger.read(4, in: Self.ana)
        #expect(ledger.takeUnsent(generation: 1, pingsWritten: 0) == [Self.read(4, in: Self.ana)])
    }

    @Test func receiptsOfAConnectionThatEndedWithoutAPongAfterThemGoOutAgain() {
        var ledger = ReceiptLedger()
        ledger.read(2, in: Self.ana)
        _ = ledger.takeUnsent(generation: 1, pingsWritten: 3)
        ledger.connectionEnded(generation: 1, pongsReceived: 4)  // the 4th ping may have gone out before them
        #expect(ledger.takeUnsent(generation: 2, pingsWritten: 0) == [Self.read(2, in: Self.ana)])
    }

    @Test func receiptsAPongProvedArrivedAreNotSentAgain() {
        var ledger = ReceiptLedger()
        ledger.read(2, in: Self.ana)
        _ = ledger.takeUnsent(generation: 1, pingsWritten: 3)
        ledger.connectionEnded(generation: 1, pongsReceived: 5)
        #expect(!ledger.hasUnsent)
        #expect(ledger.takeUnsent(generation: 2, pingsWritten: 0).isEmpty)
        ledger.connectionEnded(generation: 2, pongsReceived: 0)
        #expect(!ledger.hasUnsent, "nor on any later reconnect")
    }

    @Test func onlyWhatWasWrittenAfterTheLastProofGoesOutAgain() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        _ = ledger.takeUnsent(generation: 1, pingsWritten: 0)
        ledger.read(7, in: Self.ben)
        _ = ledger.takeUnsent(generation: 1, pingsWritten: 2)
        ledger.connectionEnded(generation: 1, pongsReceived: 3)
        #expect(ledger.takeUnsent(generation: 2, pingsWritten: 0) == [Self.read(7, in: Self.ben)])
    }

    @Test func theEndOfAnEarlierConnectionLeavesWhatTheCurrentOneSentAlone() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        _ = ledger.takeUnsent(generation: 2, pingsWritten: 0)
        ledger.connectionEnded(generation: 1, pongsReceived: 0)
        #expect(!ledger.hasUnsent)
    }

    @Test func aReceiptNotYetWrittenWaitsThroughTheEndOfAConnection() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        ledger.connectionEnded(generation: 1, pongsReceived: 0)
        #expect(ledger.takeUnsent(generation: 2, pingsWritten: 0) == [Self.read(1, in: Self.ana)])
    }
}
