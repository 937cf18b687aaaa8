@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// When an outbox entry's first send is recorded: by the commit while the connection is live, and for stores
/// written before first sends were recorded (`v2-outbox-first-attempt`), at the enqueue of what they left pending.
@Suite struct OutboxFirstAttemptTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    /// Writes a store with the v1 schema only, holding a pending and an acknowledged entry enqueued at `createdAt`.
    func writeV1Store(createdAt: Date) async throws -> String {
        let path = directory.file("bot.sqlite")
        let v1 = BotStoreSchema.migrator(through: "v1-dialogs")
        let queue = try await DatabaseQueue(path: path)
        try await v1.migrate(queue)
        let pending = OutboxPayload.json(Fixture.send("left pending", id: "cm-pending"))
        let acked = OutboxPayload.json(Fixture.send("acknowledged", id: "cm-acked"))
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outbox (client_message_id, conversation_id, payload, created_at, status, origin_kind)
                    VALUES ('cm-pending', ?1, ?2, ?4, 'pending', 'direct'), ('cm-acked', ?1, ?3, ?4, 'acked', 'direct')
                    """,
                arguments: [Fixture.direct.rawValue, pending, acked, createdAt])
        }
        await queue.close()
        return path
    }

    @Test func anEntryAnOlderVersionLeftPendingCountsAsFirstSentWhenItWasEnqueued() async throws {
        let enqueuedAt = clock.now
        let path = try await writeV1Store(createdAt: enqueuedAt)
        await clock.advance(by: .seconds(3600))

        let store = try await BotStore.open(path: path, clock: clock)
        let pending = try #require(try await store.outboxEntry("cm-pending"))
        let acked = try #require(try await store.outboxEntry("cm-acked"))
        await store.close()
        #expect(pending.status == .pending)
        #expect(pending.firstAttemptAt == enqueuedAt)
        #expect(pending.message.content.body == "left pending")
        #expect(acked.firstAttemptAt == nil)
        let applied = try await inspect(path) { db in
            try db.fetchAll(String.self, sql: "SELECT name FROM schema_migrations ORDER BY rowid")
        }
        #expect(applied == BotStore.migrationNames)
    }

    @Test func anEntryCommittedWhileTheOutboxIsLiveIsRecordedAsFirstSentAtItsCommit() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        store.outboxLiveness.set(true)
        let live = try await store.enqueue(Fixture.send("sent at once"))
        store.outboxLiveness.set(false)
        let offline = try await store.enqueue(Fixture.send("waits for a connection"))
        #expect(live.firstAttemptAt == clock.now)
        #expect(try await store.outboxEntry(live.id)?.firstAttemptAt == clock.now)
        #expect(offline.firstAttemptAt == nil)
        #expect(try await store.outboxEntry(offline.id)?.firstAttemptAt == nil)
        await store.close()
    }
}
