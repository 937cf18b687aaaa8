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
        #expect(ledger.send(generation: 1, pingsWritten: 0) == [Self.read(3, in: Self.ana), Self.read(1, in: Self.ben)])
        #expect(!ledger.hasUnsent)
    }

    @Test func aReadReceiptCoversDeliveryUpToItsSeq() {
        var ledger = ReceiptLedger()
        ledger.delivered(4, in: Self.ana)
        ledger.read(3, in: Self.ana)
        #expect(ledger.send(generation: 1, pingsWritten: 0) == [
            Self.read(3, in: Self.ana), .receiptDelivered(ReceiptPosition(conversationId: Self.ana, seq: 4)),
        ])
        ledger.read(4, in: Self.ana)
        #expect(ledger.send(generation: 1, pingsWritten: 0) == [Self.read(4, in: Self.ana)])
    }

    @Test func receiptsOfAConnectionThatEndedWithoutAPongAfterThemGoOutAgain() {
        var ledger = ReceiptLedger()
        ledger.read(2, in: Self.ana)
        _ = ledger.send(generation: 1, pingsWritten: 3)
        ledger.connectionEnded(generation: 1, pongsReceived: 3)  // the 3rd ping may have gone out before them
        #expect(ledger.send(generation: 2, pingsWritten: 0) == [Self.read(2, in: Self.ana)])
    }

    @Test func receiptsAPongProvedArrivedAreNotSentAgain() {
        var ledger = ReceiptLedger()
        ledger.read(2, in: Self.ana)
        _ = ledger.send(generation: 1, pingsWritten: 3)
        ledger.connectionEnded(generation: 1, pongsReceived: 4)
        #expect(!ledger.hasUnsent)
        #expect(ledger.send(generation: 2, pingsWritten: 0).isEmpty)
        ledger.connectionEnded(generation: 2, pongsReceived: 0)
        #expect(!ledger.hasUnsent, "nor on any later reconnect")
    }

    @Test func onlyWhatWasWrittenAfterTheLastProofGoesOutAgain() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        _ = ledger.send(generation: 1, pingsWritten: 0)
        ledger.read(7, in: Self.ben)
        _ = ledger.send(generation: 1, pingsWritten: 2)
        ledger.connectionEnded(generation: 1, pongsReceived: 2)
        #expect(ledger.send(generation: 2, pingsWritten: 0) == [Self.read(7, in: Self.ben)])
    }

    @Test func theEndOfAnEarlierConnectionLeavesWhatTheCurrentOneSentAlone() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        _ = ledger.send(generation: 2, pingsWritten: 0)
        ledger.connectionEnded(generation: 1, pongsReceived: 0)
        #expect(!ledger.hasUnsent)
    }

    @Test func aReceiptNotYetWrittenWaitsThroughTheEndOfAConnection() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        ledger.connectionEnded(generation: 1, pongsReceived: 0)
        #expect(ledger.send(generation: 2, pingsWritten: 0) == [Self.read(1, in: Self.ana)])
    }

    @Test func aReceiptTakenButNotYetWrittenWhenItsConnectionEndsGoesOutAgain() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        _ = ledger.takeUnsent(generation: 1)
        ledger.connectionEnded(generation: 1, pongsReceived: 9)
        #expect(ledger.send(generation: 2, pingsWritten: 0) == [Self.read(1, in: Self.ana)])
    }

    @Test func aLateWrittenOfAnEndedConnectionProvesNothingWrittenToTheNext() {
        var ledger = ReceiptLedger()
        ledger.read(1, in: Self.ana)
        _ = ledger.takeUnsent(generation: 1)
        ledger.connectionEnded(generation: 1, pongsReceived: 0)
        _ = ledger.takeUnsent(generation: 2)
        ledger.written(generation: 1, pingsWritten: 0)
        ledger.connectionEnded(generation: 2, pongsReceived: 5)
        #expect(ledger.send(generation: 3, pingsWritten: 0) == [Self.read(1, in: Self.ana)])
    }
}

extension ReceiptLedger {
    /// Takes the unsent receipts and says they were written after `pingsWritten` pings were counted.
    mutating func send(generation: UInt64, pingsWritten: Int) -> [ClientRequest] {
        let requests = takeUnsent(generation: generation)
        written(generation: generation, pingsWritten: pingsWritten)
        return requests
    }
}
