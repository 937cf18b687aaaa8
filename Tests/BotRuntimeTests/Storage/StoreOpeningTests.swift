import BotRuntime
import ChatterBots
import ChildProcesses
import Foundation
import SQLite
import Testing
import TestSupport

/// Opening a store: the schema, the file's privacy, refusing files it cannot read.
@Suite("BotStore opening")
struct StoreOpeningTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    @Test func migrationsCreateEveryTableAndRecordEveryMigration() async throws {
        let store = try await openStore(in: directory)
        await store.close()
        let (tables, applied) = try await inspect(directory.file("bot.sqlite")) { db in
            (
                Set(try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")),
                try db.fetchAll(String.self, sql: "SELECT name FROM schema_migrations ORDER BY rowid")
            )
        }
        let expected: Set<String> = [
            "session", "devices", "store_metadata", "conversations", "parked_messages", "seen_messages", "outbox",
            "state", "scheduled_jobs", "dialogs", "message_actions", "crash_suspects", "quarantine",
        ]
        #expect(expected.isSubset(of: tables))
        #expect(applied == BotStore.migrationNames)
        #expect(applied == [
            "v1-session", "v1-conversations", "v1-outbox", "v1-state", "v1-schedules", "v1-dialogs", "v2-outbox-first-attempt",
            "v3-time-ordered-client-message-ids", "v4-status-checks-without-lists", "v5-message-actions",
            "v6-quarantine", "v7-paused-jobs", "v8-conversation-details",
        ])
    }

    @Test func reopeningKeepsTheDataAndAppliesNoMigrationTwice() async throws {
        let first = try await openStore(in: directory)
        try await first.setValue(41, forKey: "answer", in: .global)
        await first.close()
        let second = try await openStore(in: directory)
        #expect(try await second.value(Int.self, forKey: "answer", in: .global) == 41)
        await second.close()
        let count = try await inspect(directory.file("bot.sqlite")) { db in
            try db.fetchOne(Int.self, sql: "SELECT count(*) FROM schema_migrations")
        }
        #expect(count == BotStore.migrationNames.count)
    }

    @Test func theDatabaseAndItsLogAreReadableByTheOwnerOnly() async throws {
        let store = try await openStore(in: directory)
        try await store.setValue("secret", forKey: "k", in: .global)
        for suffix in ["", "-wal"] {
            #expect(try permissions(of: directory.file("bot.sqlite" + suffix)) == 0o600, "bot.sqlite\(suffix)")
        }
        await store.close()
    }

    @Test func anOpenStoreKeepsItsLogIndexInMemoryWithNoSharedMemoryFile() async throws {
        let store = try await openStore(in: directory)
        try await store.setValue("x", forKey: "k", in: .global)
        #expect(FileManager.default.fileExists(atPath: directory.file("bot.sqlite-wal")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("bot.sqlite-shm")))
        await store.close()
    }

    @Test func aSecondOpenerOfTheSameStoreIsRefusedAsInUseAndTheFirstGoesOn() async throws {
        let first = try await openStore(in: directory)
        try await first.setValue(1, forKey: "runs", in: .global)
        let error = await #expect(throws: BotStoreError.self) { _ = try await openStore(in: directory) }
        guard case .inUse(let path, inThisProcess: true)? = error, path == directory.file("bot.sqlite") else {
            Issue.record("expected the store to be in use in this process, got \(String(describing: error))")
            return
        }
        try await first.setValue(2, forKey: "runs", in: .global)
        #expect(try await first.value(Int.self, forKey: "runs", in: .global) == 2)
        await first.close()
    }

    @Test func aStoreRunningInAnotherProcessIsRefused() async throws {
        let store = try await openStore(in: directory)
        try await store.setValue("mine", forKey: "owner", in: .global)
        let other = try await ChildProcess.run(
            ["sqlite3", directory.file("bot.sqlite"), "UPDATE state SET value = '\"theirs\"'"], timeout: .hangGuard)
        #expect(other.termination != .exited(0))
        #expect(other.output.contains("locked"))
        #expect(try await store.value(String.self, forKey: "owner", in: .global) == "mine")
        await store.close()
    }

    @Test func aDormantStoreReopensOnItsNextWriteAndKeepsItsData() async throws {
        let store = try await BotStore.open(
            path: directory.file("bot.sqlite"), clock: ManualClock(),
            dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        try await store.setValue("before", forKey: "note", in: .global)
        #expect(await store.releaseConnectionIfIdle())
        #expect(await !store.isConnectionOpen)
        try await store.setValue("after", forKey: "second", in: .global)
        #expect(try await store.value(String.self, forKey: "note", in: .global) == "before")
        #expect(try await store.value(String.self, forKey: "second", in: .global) == "after")
        await store.close()
    }

    @Test func anExistingFileReadableByOthersIsMadeOwnerOnly() async throws {
        let path = directory.file("bot.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        #expect(try permissions(of: path) == 0o644)
        let store = try await openStore(in: directory)
        #expect(try permissions(of: path) == 0o600)
        await store.close()
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftUntouched() async throws {
        let path = directory.file("bot.sqlite")
        let text = Data(String(repeating: "not a database\n", count: 100).utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: text))
        await #expect {
            _ = try await openStore(in: directory)
        } throws: { error in
            guard case BotStoreError.storage(_, let underlying) = error,
                case DatabaseError.cannotOpen(_, .notADatabase, _) = underlying
            else { return false }
            return true
        }
        #expect(FileManager.default.contents(atPath: path) == text)
    }

    @Test func aStoreMigratedByANewerVersionIsRefused() async throws {
        let store = try await openStore(in: directory)
        await store.close()
        let path = directory.file("bot.sqlite")
        let queue = try await DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO schema_migrations (name, applied_at) VALUES ('v9-from-the-future', 0)")
        }
        await queue.close()
        await #expect {
            _ = try await openStore(in: directory)
        } throws: { error in
            guard case BotStoreError.storage(_, let underlying) = error,
                case DatabaseError.newerSchema(let unknown) = underlying
            else { return false }
            return unknown == ["v9-from-the-future"]
        }
    }

    @Test func operationsAfterCloseFailWithAStorageError() async throws {
        let store = try await openStore(in: directory)
        await store.close()
        await #expect {
            try await store.setValue(1, forKey: "k", in: .global)
        } throws: { error in
            guard case BotStoreError.storage(_, let underlying) = error, case DatabaseError.closed = underlying else { return false }
            return true
        }
        await #expect {
            _ = try await store.commit(UnitOfWork(bot: Fixture.bot))
        } throws: { error in
            guard case BotStoreError.storage(_, let underlying) = error, case DatabaseError.closed = underlying else { return false }
            return true
        }
    }
}
