import Foundation
import SQLite
import Testing

/// Migrations run in order, once each, are recorded in the file, and a newer file is refused untouched.
@Suite struct DatabaseMigratorTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("migrated.sqlite")
    }

    /// A migrator whose migrations log their names into the `log` table as they run.
    private func migrator(_ names: [String]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS log (name TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO log (name) VALUES (?)", arguments: [name])
            }
        }
        return migrator
    }

    private func log(_ db: Database) throws -> [String] {
        try db.fetchAll(String.self, sql: "SELECT name FROM log ORDER BY rowid")
    }

    @Test func migrationsRunInOrderOnceAndAreRecorded() throws {
        let db = try Database(path: path)
        let names = ["v1-create-outbox", "v2-add-state", "v3-index-outbox"]
        try migrator(names).migrate(db)
        try migrator(names).migrate(db)
        #expect(try log(db) == names)
        #expect(try migrator(names).appliedMigrations(in: db) == names)
        #expect(try migrator(names).hasCompletedMigrations(in: db))
        let recorded = try db.fetchAll(String.self, sql: "SELECT name FROM schema_migrations ORDER BY rowid")
        #expect(recorded == names)
    }

    /// `migrator(names)` with a baseline through `through` that logs "baseline" instead of each migration's name.
    private func migrator(_ names: [String], baselineThrough through: String) -> DatabaseMigrator {
        var migrator = migrator(names)
        migrator.registerBaseline(through: through) { db in
            try db.execute(sql: "CREATE TABLE log (name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO log (name) VALUES ('baseline')")
        }
        return migrator
    }

    @Test func aNewDatabaseTakesTheBaselineThenTheMigrationsAfterIt() throws {
        let db = try Database(path: path)
        try migrator(["v1", "v2", "v3"], baselineThrough: "v2").migrate(db)
        #expect(try log(db) == ["baseline", "v3"])
        #expect(try migrator(["v1", "v2", "v3"]).appliedMigrations(in: db) == ["v1", "v2", "v3"])
    }

    @Test func aDatabaseWithAMigrationAppliedIgnoresTheBaseline() throws {
        try migrator(["v1"]).migrate(Database(path: path))
        let db = try Database(path: path)
        try migrator(["v1", "v2", "v3"], baselineThrough: "v2").migrate(db)
        #expect(try log(db) == ["v1", "v2", "v3"])
    }

    @Test func aDatabaseWithTablesButNoMigrationsIgnoresTheBaseline() throws {
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE unrelated (x)")
        try migrator(["v1", "v2"], baselineThrough: "v2").migrate(db)
        #expect(try log(db) == ["v1", "v2"])
    }

    @Test func onlyNewMigrationsRunAfterAnUpgrade() throws {
        try migrator(["v1", "v2"]).migrate(Database(path: path))
        let db = try Database(path: path)
        #expect(try !migrator(["v1", "v2", "v3"]).hasCompletedMigrations(in: db))
        try migrator(["v1", "v2", "v3"]).migrate(db)
        #expect(try log(db) == ["v1", "v2", "v3"])
    }

    @Test func newerSchemaIsRefusedAndTheFileIsLeftUntouched() throws {
        do {
            let db = try Database(path: path)
            try migrator(["v1", "v2", "v3"]).migrate(db)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        do {
            let older = try Database(path: path)
            let error = #expect(throws: DatabaseError.self) { try migrator(["v1", "v2"]).migrate(older) }
            guard case .newerSchema(let unknown)? = error else {
                Issue.record("expected newerSchema, got \(String(describing: error))")
                return
            }
            #expect(unknown == ["v3"])
        }

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try log(Database(path: path)) == ["v1", "v2", "v3"])
    }

    @Test func failingMigrationIsRolledBackAndStopsTheLaterOnes() throws {
        struct BadMigration: Error {}
        var migrator = migrator(["v1"])
        migrator.registerMigration("v2-broken") { db in
            try db.execute(sql: "CREATE TABLE half_done (x)")
            throw BadMigration()
        }
        migrator.registerMigration("v3") { db in try db.execute(sql: "CREATE TABLE never (x)") }
        let db = try Database(path: path)

        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        guard case .migrationFailed(name: "v2-broken", underlying: let underlying)? = error else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(underlying is BadMigration)
        #expect(try migrator.appliedMigrations(in: db) == ["v1"])
        let tables = try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(tables == ["log", "schema_migrations"])
    }

    @Test func duplicateNamesAreRefusedBeforeAnythingRuns() throws {
        let db = try Database(path: path)
        let error = #expect(throws: DatabaseError.self) { try migrator(["v1", "v2", "v1"]).migrate(db) }
        guard case .duplicateMigration("v1")? = error else {
            Issue.record("expected duplicateMigration, got \(String(describing: error))")
            return
        }
        #expect(try DatabaseMigrator().appliedMigrations(in: db) == [])
    }

    @Test func migrationsMayRebuildTablesButMustKeepForeignKeysValid() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE conversation (id TEXT PRIMARY KEY);
                CREATE TABLE message (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversation(id));
                INSERT INTO conversation VALUES ('c1');
                INSERT INTO message VALUES ('m1', 'c1');
                """)
        }
        migrator.registerMigration("v2-rebuild-conversation") { db in
            // SQLite's recipe for changes ALTER TABLE cannot make: the parent is briefly missing.
            try db.execute(sql: """
                CREATE TABLE conversation_new (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '');
                INSERT INTO conversation_new (id) SELECT id FROM conversation;
                DROP TABLE conversation;
                ALTER TABLE conversation_new RENAME TO conversation;
                """)
        }
        var broken = migrator
        broken.registerMigration("v3-orphan") { db in try db.execute(sql: "DELETE FROM conversation") }
        let db = try Database(path: path)

        try migrator.migrate(db)
        #expect(try db.fetchOne(String.self, sql: "SELECT title FROM conversation WHERE id = 'c1'") == "")

        let error = #expect(throws: DatabaseError.self) { try broken.migrate(db) }
        guard case .foreignKeyViolation(migration: "v3-orphan", table: "message", rowID: _, parent: "conversation")? = error else {
            Issue.record("expected foreignKeyViolation, got \(String(describing: error))")
            return
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM conversation") == 1)
        #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
    }
}
