@testable import BotRuntime
import Testing

/// A lane's commit queue: every submitted unit is taken by the lane's running commits or starts them again, in order.
@Suite("Lane commit queue")
struct LaneCommitQueueTests {
    /// The interleaving that once lost a unit: the lane's commits found nothing pending, a handler then submitted its
    /// unit, and only afterwards did they end; the unit joined a lane that nobody would commit any more.
    @Test func aUnitSubmittedRightAfterTheLaneFoundNothingPendingStartsItsCommitsAgain() {
        var queue = LaneCommitQueue<Int>()
        let first = queue.submit(908, ticket: 1)
        #expect(first)
        let batch = queue.takeBatch()
        #expect(batch?.map(\.unit) == [908])
        queue.finishBatch()
        let empty = queue.takeBatch()
        #expect(empty == nil)
        #expect(queue.isIdle)
        let late = queue.submit(918, ticket: 2)
        #expect(late, "the lane commits nothing any more: this unit must start it again")
        let next = queue.takeBatch()
        #expect(next?.map(\.unit) == [918])
    }

    @Test func unitsSubmittedWhileALaneCommitsAreTakenByItInOrder() {
        var queue = LaneCommitQueue<Int>()
        let started = queue.submit(1, ticket: 1)
        #expect(started)
        let first = queue.takeBatch()
        #expect(first?.map(\.unit) == [1])
        let second = queue.submit(2, ticket: 2)
        let third = queue.submit(3, ticket: 3)
        #expect(!second && !third)
        #expect(queue.units == [1, 2, 3])
        queue.finishBatch()
        #expect(queue.committedThrough == 1)
        let rest = queue.takeBatch()
        #expect(rest?.map(\.unit) == [2, 3])
        queue.finishBatch()
        let empty = queue.takeBatch()
        #expect(empty == nil)
        #expect(queue.isIdle)
    }

    @Test func aTicketIsWaitedForUntilItsBatchIsCommitted() {
        var queue = LaneCommitQueue<Int>()
        _ = queue.submit(1, ticket: 1)
        _ = queue.submit(2, ticket: 2)
        #expect(queue.isWaiting(for: 2))
        _ = queue.takeBatch()
        #expect(queue.isWaiting(for: 1) && queue.isWaiting(for: 2))
        queue.finishBatch()
        #expect(!queue.isWaiting(for: 1) && !queue.isWaiting(for: 2))
        #expect(!queue.isWaiting(for: 3), "a ticket not queued here is not waited for")
    }
}
