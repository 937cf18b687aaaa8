@testable import BotRuntime
import Foundation
@testable import SQLite
import Testing

/// A new store gets its schema at once (written from `BotStoreSchema.newStoreImage`, or made by
/// `BotStoreSchema.createBaseline` in an empty file) instead of replaying the migrations; the result must be the store
/// the migrations make.
@Suite struct BotStoreBaselineTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    /// Every migration replayed one by one, the baseline's included: what an old store becomes.
    static let replayingEveryMigration = BotStoreSchema.migrator(through: BotStoreSchema.migrations.last?.name)

    /// The schema (each table's and index's `CREATE` text), the metadata rows and the recorded migrations of a new
    /// store made by `migrator`.
    func newStore(_ name: String, _ migrator: DatabaseMigrator) async throws -> (schema: [Row], metadata: [Row], applied: [String]) {
        let queue = try await DatabaseQueue(path: directory.file(name))
        try await migrator.migrate(queue)
        let result = try await queue.read { db in
            (
                try db.fetchAll(sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'schema_migrations' ORDER BY name"),
                try db.fetchAll(sql: "SELECT key, value FROM store_metadata ORDER BY key"),
                try migrator.appliedMigrations(in: db)
            )
        }
        await queue.close()
        return result
    }

    @Test func aNewStoreMadeAtOnceHasTheSchemaTheMigrationsMake() async throws {
        let replayed = try await newStore("replayed.sqlite", Self.replayingEveryMigration)
        let atOnce = try await newStore("at-once.sqlite", BotStoreSchema.migrator)
        #expect(replayed.schema.count == 18)
        #expect(atOnce.schema == replayed.schema)
        #expect(atOnce.metadata == replayed.metadata)
    }

    /// The schema, metadata rows and recorded migrations of the store `BotStore.open` makes at `name`.
    func openedStore(_ name: String) async throws -> (schema: [Row], metadata: [Row], applied: [String]) {
        let store = try await BotStore.open(path: directory.file(name))
        await store.close()
        let queue = try await DatabaseQueue(path: directory.file(name))
        let result = try await queue.read { db in
            (
                try db.fetchAll(sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'schema_migrations' ORDER BY name"),
                try db.fetchAll(sql: "SELECT key, value FROM store_metadata ORDER BY key"),
                try BotStoreSchema.migrator.appliedMigrations(in: db)
            )
        }
        await queue.close()
        return result
    }

    @Test func aNewStoreWrittenFromTheImageIsTheStoreTheMigrationsMake() async throws {
        let replayed = try await newStore("replayed.sqlite", Self.replayingEveryMigration)
        let path = directory.file("from-image.sqlite")
        let image = try #require(BotStoreSchema.newStoreImage)
        #expect(image.createFileIfMissing(at: path))
        let fromImage = try await openedStore("from-image.sqlite")
        #expect(fromImage.schema == replayed.schema)
        #expect(fromImage.metadata == replayed.metadata)
        #expect(fromImage.applied == BotStoreSchema.migrator.migrationNames)
    }

    @Test func aStoreWhoseLogWasLostWhileItWasCreatedIsTheSameStore() async throws {
        let replayed = try await newStore("replayed.sqlite", Self.replayingEveryMigration)
        let image = try #require(BotStoreSchema.newStoreImage)
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: directory.file("no-log.sqlite"), holding: image.database, syncs: true))
        let withoutLog = try await openedStore("no-log.sqlite")
        #expect(withoutLog.schema == replayed.schema)
        #expect(withoutLog.metadata == replayed.metadata)
        #expect(withoutLog.applied == BotStoreSchema.migrator.migrationNames)
    }

    @Test func anEmptyFileIsMigratedInPlaceIntoTheSameStore() async throws {
        let replayed = try await newStore("replayed.sqlite", Self.replayingEveryMigration)
        #expect(FileManager.default.createFile(atPath: directory.file("empty.sqlite"), contents: nil))
        let migrated = try await openedStore("empty.sqlite")
        #expect(migrated.schema == replayed.schema)
        #expect(migrated.metadata == replayed.metadata)
        #expect(migrated.applied == BotStoreSchema.migrator.migrationNames)
    }

    /// The page size of the database at `name`.
    func pageSize(of name: String) async throws -> Int? {
        let queue = try await DatabaseQueue(path: directory.file(name))
        let size = try await queue.read { db in try db.fetchOne(Int.self, sql: "PRAGMA page_size") }
        await queue.close()
        return size
    }

    @Test func everyNewStoreHasTheSchemasPageSizeHoweverItWasMade() async throws {
        _ = try await openedStore("from-image.sqlite")
        let image = try #require(BotStoreSchema.newStoreImage)
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: directory.file("no-log.sqlite"), holding: image.database, syncs: true))
        _ = try await openedStore("no-log.sqlite")
        #expect(FileManager.default.createFile(atPath: directory.file("empty.sqlite"), contents: nil))
        _ = try await openedStore("empty.sqlite")
        for name in ["from-image.sqlite", "no-log.sqlite", "empty.sqlite"] {
            #expect(try await pageSize(of: name) == BotStoreSchema.pageSize, "\(name)")
        }
    }

    @Test func aStoreMadeWithSQLitesDefaultPagesKeepsThemAndWorks() async throws {
        _ = try await newStore("older.sqlite", Self.replayingEveryMigration)
        #expect(try await pageSize(of: "older.sqlite") == 4096)
        let store = try await BotStore.open(path: directory.file("older.sqlite"))
        try await store.setValue(String(repeating: "v", count: 10_000), forKey: "long", in: .global)
        await store.close()
        let reopened = try await BotStore.open(path: directory.file("older.sqlite"))
        let value = try await reopened.value(String.self, forKey: "long", in: .global)
        await reopened.close()
        #expect(value?.count == 10_000)
        #expect(try await pageSize(of: "older.sqlite") == 4096)
    }

    @Test func aNewStoreHoldsValuesLargerThanItsPages() async throws {
        let store = try await BotStore.open(path: directory.file("new.sqlite"))
        let long = String(repeating: "é", count: 20_000)
        try await store.setValue(long, forKey: "long", in: .global)
        await store.close()
        let reopened = try await BotStore.open(path: directory.file("new.sqlite"))
        let value = try await reopened.value(String.self, forKey: "long", in: .global)
        let check = try await reopened.queue.read { db in try db.fetchOne(String.self, sql: "PRAGMA integrity_check") }
        await reopened.close()
        #expect(value == long)
        #expect(check == "ok")
    }

    @Test func aNewStoreRecordsEveryMigrationAsApplied() async throws {
        let atOnce = try await newStore("at-once.sqlite", BotStoreSchema.migrator)
        #expect(atOnce.applied == BotStoreSchema.migrator.migrationNames)
    }
}
