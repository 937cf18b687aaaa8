@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
import Testing

/// What happens to acks the outbox sender received when its session closes the store (shutdown).
@Suite struct OutboxAckRecordingTests {
    let directory: StoreDirectory
    let clock = ManualClock()
    let logs = LogCollector()

    init() throws {
        directory = try StoreDirectory()
    }

    private func sender(_ store: BotStore) -> OutboxSender {
        OutboxSender(
            store: store, clock: clock, pacing: nil, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock),
            metrics: SessionMetrics(clock: clock)) { _, _ in }
    }

    @Test func anAckReceivedJustBeforeTheStoreClosesIsRecordedFirst() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let reply = try await store.enqueue(Fixture.send("pong"))
        let outbox = sender(store)
        try await outbox.loadPending()

        // The reader hands over the ack that came in the close handshake; the session closes the store right after.
        outbox.received(Fixture.ack(reply.id, seq: 2))
        await outbox.finishRecordingAcks(before: clock.now.addingTimeInterval(5))
        await store.close()

        let reopened = try await openStore(in: directory, clock: clock)
        let entry = try #require(try await reopened.outboxEntry(reply.id))
        await reopened.close()
        #expect(entry.status == .acked)
        #expect(entry.acknowledgement?.seq == 2)
        #expect(outbox.depth == 0)
        #expect(!logs.all.contains { $0.level == .error })
    }

    @Test func anAckReceivedOnceRecordingHasFinishedIsDroppedWithAWarningNotWrittenToTheClosedStore() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let reply = try await store.enqueue(Fixture.send("pong"))
        let outbox = sender(store)
        try await outbox.loadPending()

        await outbox.finishRecordingAcks(before: clock.now)
        await store.close()
        outbox.received(Fixture.ack(reply.id, seq: 2))

        #expect(logs.contains(.warning, "ack received after the store closed"))
        #expect(!logs.all.contains { $0.level == .error })
        #expect(outbox.depth == 1)
        let reopened = try await openStore(in: directory, clock: clock)
        #expect(try await reopened.outboxEntry(reply.id)?.status == .pending)
        await reopened.close()
    }

    @Test func everyCallerWaitingForAnEmptyOutboxResumesOnceTheLastAckIsRecorded() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let reply = try await store.enqueue(Fixture.send("pong"))
        let outbox = sender(store)
        try await outbox.loadPending()
        let first = Task { await outbox.waitUntilEmpty() }
        let second = Task { await outbox.waitUntilEmpty() }

        outbox.received(Fixture.ack(reply.id, seq: 2))

        try await withDeadline(.hangGuard, "both waiters to resume") {
            await first.value
            await second.value
        }
        #expect(outbox.depth == 0)
        #expect(try await store.outboxEntry(reply.id)?.status == .acked)
        await store.close()
    }

    @Test func stoppingTheOutboxResumesItsEmptyWaiters() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        _ = try await store.enqueue(Fixture.send("never acked"))
        let outbox = sender(store)
        try await outbox.loadPending()
        let waiter = Task { await outbox.waitUntilEmpty() }

        outbox.stop()

        try await withDeadline(.hangGuard, "the waiter to resume") { await waiter.value }
        #expect(outbox.depth == 1)
        await store.close()
    }
}
