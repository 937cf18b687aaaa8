@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// `v4-status-checks-without-lists`: the outbox and the scheduled jobs rebuilt with status checks SQLite evaluates
/// without a temporary b-tree, their rows, order, indexes and checks kept.
@Suite struct StatusCheckRebuildTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    /// Writes a store with the schema through v3, holding two outbox entries (pending and acknowledged, in that
    /// order) and one scheduled job.
    func writeV3Store() async throws -> String {
        let path = directory.file("bot.sqlite")
        let queue = try await DatabaseQueue(path: path)
        try await BotStoreSchema.migrator(through: "v3-time-ordered-client-message-ids").migrate(queue)
        let pending = OutboxPayload.json(Fixture.send("left pending", id: "cm-pending"))
        let acked = OutboxPayload.json(Fixture.send("acknowledged", id: "cm-acked"))
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outbox (id, client_message_id, conversation_id, payload, created_at, status, origin_kind, first_attempt_at)
                    VALUES (7, 'cm-pending', ?1, ?2, 1000, 'pending', 'direct', 1000), (9, 'cm-acked', ?1, ?3, 2000, 'acked', 'direct', 2000)
                    """,
                arguments: [Fixture.direct.rawValue, pending, acked])
            try db.execute(sql: """
                INSERT INTO scheduled_jobs (id, name, due_at, payload, status, occurrence, created_at, owner_scope, owner_id)
                VALUES ('job-1', 'remind', 5000, '{}', 'scheduled', 1, 1000, 'global', '')
                """)
        }
        await queue.close()
        return path
    }

    @Test func aStoreAnOlderVersionWroteKeepsItsOutboxAndJobsThroughTheRebuild() async throws {
        let path = try await writeV3Store()

        let store = try await BotStore.open(path: path, clock: ManualClock())
        let pending = try await store.pendingOutbox()
        let acked = try #require(try await store.outboxEntry("cm-acked"))
        let job = try #require(try await store.job("job-1"))
        await store.close()
        #expect(pending.map(\.sequence) == [7])
        #expect(pending.first?.message.content.body == "left pending")
        #expect(acked.status == .acked)
        #expect(acked.sequence == 9)
        #expect(job.name == "remind")
        #expect(job.status == .scheduled)
        let indexes = try await inspect(path) { db in
            Set(try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
        }
        #expect(indexes == ["outbox_pending", "scheduled_jobs_due", "scheduled_jobs_owner"])
    }

    @Test func theRebuiltTablesStillRejectAnUnknownStatus() async throws {
        let path = try await writeV3Store()
        let store = try await BotStore.open(path: path, clock: ManualClock())
        await store.close()

        let rejected = try await inspect(path) { db in
            var rejected: [String] = []
            for sql in [
                "UPDATE outbox SET status = 'sent' WHERE id = 7",
                "UPDATE scheduled_jobs SET status = 'sleeping' WHERE id = 'job-1'",
            ] {
                do { try db.execute(sql: sql) } catch { rejected.append(sql) }
            }
            return rejected.count
        }
        #expect(rejected == 2)
    }

    @Test func aNewStoresTablesRejectAnUnknownStatus() async throws {
        let queue = try await DatabaseQueue(path: directory.file("bot.sqlite"))
        try await BotStoreSchema.migrator.migrate(queue)
        let rejected = try await queue.write { db in
            var rejected = 0
            for sql in [
                "INSERT INTO outbox (client_message_id, conversation_id, payload, created_at, status, origin_kind) VALUES ('cm', 'C', '{}', 0, 'sent', 'direct')",
                "INSERT INTO scheduled_jobs (id, name, due_at, payload, status, occurrence, created_at, owner_scope, owner_id) VALUES ('j', 'n', 0, '{}', 'sleeping', 1, 0, 'global', '')",
            ] {
                do { try db.execute(sql: sql) } catch { rejected += 1 }
            }
            return rejected
        }
        await queue.close()
        #expect(rejected == 2)
    }

    @Test func writingAnOutboxEntryOrAJobBuildsNoTemporaryTable() async throws {
        let queue = try await DatabaseQueue(path: directory.file("bot.sqlite"))
        try await BotStoreSchema.migrator.migrate(queue)
        // EXPLAIN of a write is itself refused on a read-only transaction.
        let ephemeral = try await queue.write { db in
            try [OutboxSQL.insert, OutboxSQL.acknowledge, OutboxSQL.fail, ScheduleSQL.insert, ScheduleSQL.cancel].filter { sql in
                let explain = try db.makeStatement(sql: "EXPLAIN " + sql)
                let unbound = StatementArguments(values: Array(repeating: .null, count: explain.parameterCount))
                return try explain.fetchAll(arguments: unbound).contains { row in (try row["opcode"] as String) == "OpenEphemeral" }
            }
        }
        await queue.close()
        #expect(ephemeral.isEmpty)
    }
}
