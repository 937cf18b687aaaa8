@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
import Synchronization
import Testing

/// After a synchronization the store is pruned when due and lets go of the statements and pages the start-up used.
@Suite struct StoreMaintenanceTests {
    let directory: StoreDirectory
    let clock = ManualClock()
    let logs = LogCollector()

    init() throws {
        directory = try StoreDirectory()
    }

    private func cachedStatements(_ store: BotStore) async throws -> Int {
        try await store.queue.writeWithoutTransaction { $0.cachedStatementCount }
    }

    @Test func afterASynchronizationTheStoreKeepsNoStartUpStatements() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        for text in ["one", "two", "three"] { _ = try await store.enqueue(Fixture.send(text)) }
        #expect(try await cachedStatements(store) > 0)
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))

        maintenance.afterSynchronization {}

        try await withDeadline(.hangGuard, "the maintenance to finish") { await maintenance.waitUntilFinished() }
        #expect(try await cachedStatements(store) == 0)
        let entry = try await store.enqueue(Fixture.send("four"))
        #expect(try await store.outboxEntry(entry.id)?.status == .pending)
        await store.close()
    }

    @Test func theStoreKeepsItsStatementsUntilWhatTheSynchronizationBroughtIsHandled() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        for text in ["one", "two", "three"] { _ = try await store.enqueue(Fixture.send(text)) }
        // Pruned just now: no pass runs, whose own release would race the one under test.
        let maintenance = StoreMaintenance(
            store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock), lastPass: clock.now)
        let settling = AsyncStream<Void>.makeStream()
        let handled = AsyncStream<Void>.makeStream()

        maintenance.afterSynchronization {
            settling.continuation.yield()
            for await _ in handled.stream { return }
        }
        for await _ in settling.stream { break }
        let whileHandling = try await cachedStatements(store)
        handled.continuation.yield()

        #expect(whileHandling > 0)
        try await withDeadline(.hangGuard, "the release to finish") { await maintenance.waitUntilFinished() }
        #expect(try await cachedStatements(store) == 0)
        await store.close()
    }

    @Test func aSynchronizationWhileAReleaseWaitsForItsCatchUpAddsNoSecondWaiter() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))
        let waiters = Mutex(0)
        let entered = AsyncStream<Void>.makeStream()
        let handled = AsyncStream<Void>.makeStream()
        let settled: @Sendable () async -> Void = {
            waiters.withLock { $0 += 1 }
            entered.continuation.yield()
            for await _ in handled.stream { return }
        }

        maintenance.afterSynchronization(settled: settled)
        for await _ in entered.stream { break }
        maintenance.afterSynchronization(settled: settled)
        maintenance.afterSynchronization(settled: settled)
        handled.continuation.yield()
        _ = try await store.enqueue(Fixture.send("after the catch-up"))

        #expect(waiters.withLock { $0 } == 1)
        await store.close()
    }

    @Test func aDuePassPrunesSettledEntriesOlderThanTheRetention() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let settled = try await store.enqueue(Fixture.send("settled long ago"))
        _ = try await store.markAcked(Fixture.ack(settled.id, seq: 2))
        await clock.advance(by: StoreMaintenance.outboxRetention + .seconds(60))
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))

        maintenance.afterSynchronization {}

        try await withDeadline(.hangGuard, "the pass to finish") { await maintenance.waitUntilFinished() }
        #expect(try await store.outboxEntry(settled.id) == nil)
        await store.close()
    }

    @Test func aDuePassPrunesRecordsOfHandledUpdatesOlderThanTheRetentionAndNothingElse() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let old = MessageUpdateFingerprint.storageKey(of: "M1")
        try await store.setValue(["old"], forKey: old, in: .global)
        try await store.setValue(7, forKey: "chatterbots.runtime.updatedness", in: .global)
        try await store.setValue(8, forKey: "the bot's own", in: .global)
        await clock.advance(by: StoreMaintenance.handledUpdateRetention + .seconds(60))
        let recent = MessageUpdateFingerprint.storageKey(of: "M2")
        try await store.setValue(["recent"], forKey: recent, in: .global)
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))

        maintenance.afterSynchronization {}

        try await withDeadline(.hangGuard, "the pass to finish") { await maintenance.waitUntilFinished() }
        #expect(try await store.value([String].self, forKey: old, in: .global) == nil)
        #expect(try await store.value([String].self, forKey: recent, in: .global) == ["recent"])
        #expect(try await store.value(Int.self, forKey: "chatterbots.runtime.updatedness", in: .global) == 7)
        #expect(try await store.value(Int.self, forKey: "the bot's own", in: .global) == 8)
        await store.close()
    }

    @Test func aStoreItsOpenCreatedCountsAsPrunedWhenItWasCreated() async throws {
        let store = try await openStore(in: directory, clock: clock)
        #expect(StoreMaintenance.lastPass(of: store, at: clock.now) == clock.now)
        await store.close()
    }

    @Test func aStoreThatExistedBeforeItsOpenIsDueForAPass() async throws {
        let created = try await openStore(in: directory, clock: clock)
        await created.close()
        let reopened = try await openStore(in: directory, clock: clock)
        #expect(StoreMaintenance.lastPass(of: reopened, at: clock.now) == nil)
        await reopened.close()
    }

    @Test func aPassCutShortByStopLogsNoWarning() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))
        maintenance.afterSynchronization {}
        maintenance.stop()
        await store.close()

        try await withDeadline(.hangGuard, "the stopped pass to end") { await maintenance.waitUntilFinished() }

        #expect(!logs.all.contains { $0.message.contains("could not prune") })
    }
}
