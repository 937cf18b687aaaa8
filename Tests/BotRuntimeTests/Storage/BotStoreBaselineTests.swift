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

    @Test func aStoreWhoseLogWasLostWhileItWasCreatedIsMigratedIntoTheSameStore() async throws {
        let replayed = try await newStore("replayed.sqlite", Self.replayingEveryMigration)
        let image = try #require(BotStoreSchema.newStoreImage)
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: directory.file("no-log.sqlite"), holding: image.emptyDatabase, syncs: true))
        let migrated = try await openedStore("no-log.sqlite")
        #expect(migrated.schema == replayed.schema)
        #expect(migrated.metadata == replayed.metadata)
        #expect(migrated.applied == BotStoreSchema.migrator.migrationNames)
    }

    @Test func anEmptyFileIsMigratedInPlaceIntoTheSameStore() async throws {
        let replayed = try await newStore("replayed.sqlite", Self.replayingEveryMigration)
        #expect(FileManager.default.createFile(atPath: directory.file("empty.sqlite"), contents: nil))
        let migrated = try await openedStore("empty.sqlite")
        #expect(migrated.schema == replayed.schema)
        #expect(migrated.metadata == replayed.metadata)
        #expect(migrated.applied == BotStoreSchema.migrator.migrationNames)
    }

    @Test func aNewStoreRecordsEveryMigrationAsApplied() async throws {
        let atOnce = try await newStore("at-once.sqlite", BotStoreSchema.migrator)
        #expect(atOnce.applied == BotStoreSchema.migrator.migrationNames)
    }
}
