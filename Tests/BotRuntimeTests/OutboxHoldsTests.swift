@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// When `OutboxHolds` lets refused entries go out again, across many held conversations and retry times.
@Suite struct OutboxHoldsTests {
    let harness = OutboxHarness()

    func at(_ seconds: TimeInterval) -> Date { harness.at(seconds) }

    /// Entry `sequence`, alone in its own conversation unless `conversation` says which.
    func entry(_ sequence: Int64, in conversation: String? = nil) -> OutboxEntry {
        harness.entry(sequence, in: Conversation.ID(conversation ?? "C_\(sequence)"))
    }

    /// Holds with entries 1…`count` refused, each in its own conversation, entry n until `retryAt(n)`, refused
    /// in a scrambled order.
    func refusing(_ count: Int64, retryAt: (Int64) -> Date) -> OutboxHolds {
        var holds = OutboxHolds()
        for sequence in Self.scrambled(1...count) { holds.refused(entry(sequence), retryAt: retryAt(sequence)) }
        return holds
    }

    /// The numbers of `range` in an order far from sorted, the same at every run.
    static func scrambled(_ range: ClosedRange<Int64>) -> [Int64] {
        let count = Int64(range.count)
        // 7919 is prime: stepping by it modulo a count that is not a multiple of it visits every number once.
        return (0..<count).map { range.lowerBound + ($0 * 7919) % count }
    }

    @Test func anEntryRefusedAgainWaitsForItsLaterRetryTime() {
        var holds = OutboxHolds()
        holds.refused(entry(1), retryAt: at(1))
        #expect(holds.due(at: at(1)) == [entry(1)])

        holds.refused(entry(1), retryAt: at(5))
        #expect(holds.nextRetry == at(5))
        #expect(holds.due(at: at(4)).isEmpty)
        #expect(holds.due(at: at(5)) == [entry(1)])
        #expect(holds.nextRetry == nil)
    }

    @Test func anOlderRefusedEntryGoesFirstEvenWhenTheLaterOnesRetryComesSooner() {
        var holds = OutboxHolds()
        holds.refused(entry(2, in: "C_A"), retryAt: at(1))
        holds.refused(entry(1, in: "C_A"), retryAt: at(3))
        #expect(holds.nextRetry == at(3))
        #expect(holds.due(at: at(2)).isEmpty)
        #expect(holds.due(at: at(3)) == [entry(1, in: "C_A")])
        #expect(holds.settled("cm-1", in: "C_A", now: at(3)) == [entry(2, in: "C_A")], "its retry time has passed")
        #expect(holds.nextRetry == nil)
    }

    @Test func settlingAHoldThatIsNotTheEarliestLeavesTheEarliestToComeDue() {
        var holds = refusing(3) { at(TimeInterval($0)) }
        #expect(holds.settled("cm-2", in: "C_2", now: at(0.5)).isEmpty)
        #expect(holds.nextRetry == at(1))
        #expect(holds.due(at: at(2)) == [entry(1)])
        #expect(holds.nextRetry == at(3))
        #expect(holds.due(at: at(3)) == [entry(3)])
    }

    @Test func settlingTheEarliestHoldMakesTheNextOneTheNextRetry() {
        var holds = refusing(3) { at(TimeInterval($0)) }
        #expect(holds.settled("cm-1", in: "C_1", now: at(0.5)).isEmpty)
        #expect(holds.nextRetry == at(2))
        #expect(holds.due(at: at(1)).isEmpty)
    }

    @Test func aConversationHeldAgainAfterItsHoldWasSettledWaitsForItsNewRetryTime() {
        var holds = OutboxHolds()
        holds.refused(entry(1, in: "C_A"), retryAt: at(10))
        #expect(holds.settled("cm-1", in: "C_A", now: at(1)).isEmpty)
        holds.refused(entry(2, in: "C_A"), retryAt: at(20))
        #expect(holds.nextRetry == at(20))
        #expect(holds.due(at: at(10)).isEmpty)
        #expect(holds.due(at: at(20)) == [entry(2, in: "C_A")])
    }

    @Test func manyConversationsDueAtTheSameInstantAllGoOutTogetherOldestFirst() {
        var holds = refusing(1000) { _ in at(7) }
        #expect(holds.nextRetry == at(7))
        #expect(holds.due(at: at(6)).isEmpty)
        #expect(holds.due(at: at(7)) == (1...1000).map { entry($0) })
        #expect(holds.nextRetry == nil)
        #expect(holds.due(at: at(8)).isEmpty)
        #expect(!holds.isEmpty, "each conversation stays held until its refused entry is settled")
    }

    @Test func refusedEntriesComeDueByRetryTimeEachOnceAndOldestFirstWhenTogether() {
        // Entry n may go out again at second n % 10: ten instants, a hundred entries each.
        var holds = refusing(1000) { at(TimeInterval($0 % 10)) }
        for second in 0..<10 {
            #expect(holds.nextRetry == at(TimeInterval(second)))
            let due = holds.due(at: at(TimeInterval(second) + 0.5))
            #expect(due == (1...1000).filter { $0 % 10 == second }.map { entry($0) })
        }
        #expect(holds.nextRetry == nil)
    }

    @Test func theNextRetryStaysTheEarliestWaitingOneThroughManySettlements() {
        let count: Int64 = 600
        var holds = refusing(count) { at(TimeInterval($0)) }
        // Every entry but each tenth is settled, in a scrambled order, before any retry time.
        var waiting = Set(1...count)
        for sequence in Self.scrambled(1...count).reversed() where sequence % 10 != 0 {
            _ = holds.settled(ClientMessageID("cm-\(sequence)"), in: Conversation.ID("C_\(sequence)"), now: at(0))
            waiting.remove(sequence)
            #expect(holds.nextRetry == waiting.min().map { at(TimeInterval($0)) })
        }
        #expect(holds.due(at: at(TimeInterval(count))) == waiting.sorted().map { entry($0) })
    }
}
