@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
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

    private func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    @Test func afterASynchronizationTheStoreKeepsNoStartUpStatements() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        for text in ["one", "two", "three"] { _ = try await store.enqueue(Fixture.send(text)) }
        #expect(try await cachedStatements(store) > 0)
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))

        maintenance.afterSynchronization {}

        #expect(try await eventually { try await cachedStatements(store) == 0 })
        let entry = try await store.enqueue(Fixture.send("four"))
        #expect(try await store.outboxEntry(entry.id)?.status == .pending)
        await store.close()
    }

    @Test func theStoreKeepsItsStatementsUntilWhatTheSynchronizationBroughtIsHandled() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        for text in ["one", "two", "three"] { _ = try await store.enqueue(Fixture.send(text)) }
        let maintenance = StoreMaintenance(store: store, clock: clock, log: SessionLog(sink: logs.sink, bot: "botty", clock: clock))
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
        #expect(try await eventually { try await cachedStatements(store) == 0 })
        await store.close()
    }
}
