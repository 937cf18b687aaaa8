import Foundation

/// Ordered, named schema migrations, each applied once and recorded in the database itself.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1-create-outbox") { db in
///     try db.execute(sql: "CREATE TABLE outbox (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
/// }
/// try await migrator.migrate(queue)
/// ```
/// Pending migrations run in registration order in one immediate transaction, each in a savepoint of its own
/// together with the record of its name in the table ``tableName``: a failing migration leaves no trace (the ones
/// before it are committed) and the next run tries it again. Never rename or edit a migration once released: add
/// a new one.
///
/// A database that records a migration this migrator does not know was migrated by a newer version of the
/// program: ``migrate(_:)`` refuses it with ``DatabaseError/newerSchema(unknownMigrations:)``
/// and writes nothing.
///
/// While a migration runs, foreign keys are not enforced (so that tables can be rebuilt, the way SQLite
/// recommends for schema changes ALTER TABLE cannot make); they are checked before its commit instead.
public struct DatabaseMigrator: Sendable {
    /// The table recording applied migrations: `name TEXT PRIMARY KEY, applied_at INTEGER` (milliseconds).
    public static let tableName = "schema_migrations"

    private var migrations: [(name: String, migrate: @Sendable (Database) throws -> Void)] = []
    private var baseline: (through: String, create: @Sendable (Database) throws -> Void)?

    /// A migrator with no migrations yet.
    public init() {}

    /// Adds a migration after those already registered.
    public mutating func registerMigration(_ name: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        migrations.append((name, migrate))
    }

    /// Registers how a new, empty database gets at once the schema that the migrations up to and including
    /// `lastMigration` build one by one; they are then recorded as applied, and any later ones run after it.
    ///
    /// Replaying history costs: every table rebuilt or altered makes SQLite read its whole schema again before the
    /// next statement. `create` must leave exactly the schema and rows those migrations leave (test it against
    /// them); a database with any migration applied, or with any table, migrates one by one as before.
    public mutating func registerBaseline(through lastMigration: String, create: @escaping @Sendable (Database) throws -> Void) {
        baseline = (lastMigration, create)
    }

    /// The registered migration names, in order.
    public var migrationNames: [String] {
        migrations.map(\.name)
    }

    /// Applies the pending migrations on the queue's database.
    public func migrate(_ queue: DatabaseQueue) async throws {
        try await queue.writeWithoutTransaction { db in try self.migrate(db) }
    }

    /// Applies the pending migrations, in order, each in its own transaction.
    public func migrate(_ db: Database) throws {
        guard !db.isInTransaction else {
            throw DatabaseError.transactionInProgress(operation: "DatabaseMigrator.migrate")
        }
        var names = Set<String>()
        for migration in migrations where !names.insert(migration.name).inserted {
            throw DatabaseError.duplicateMigration(migration.name)
        }
        // Checked before any write, so that a newer database is left exactly as it was.
        let applied = try appliedMigrations(in: db)
        try refuseUnknown(applied)
        let appliedSet = Set(applied)
        let pending = migrations.filter { !appliedSet.contains($0.name) }
        guard !pending.isEmpty else { return }
        try apply(pending, to: db)
    }

    /// The names of the migrations applied to `db`, in the order they were applied.
    public func appliedMigrations(in db: Database) throws -> [String] {
        let tableExists = try db.fetchOne(
            Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
            arguments: [Self.tableName]) ?? 0
        guard tableExists > 0 else { return [] }
        return try db.fetchAll(String.self, sql: "SELECT name FROM \(Self.tableName) ORDER BY rowid")
    }

    /// Whether every registered migration has been applied to `db`.
    public func hasCompletedMigrations(in db: Database) throws -> Bool {
        Set(try appliedMigrations(in: db)).isSuperset(of: migrationNames)
    }

    private func refuseUnknown(_ applied: [String]) throws {
        let known = Set(migrationNames)
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty {
            throw DatabaseError.newerSchema(unknownMigrations: unknown)
        }
    }

    /// Applies `pending` in one immediate transaction, each migration in a savepoint of its own with the record of
    /// its name: a failing one is undone alone, and the ones before it are committed. One commit and one setup
    /// instead of one per migration: a new bot store runs eight, and with a thousand bots starting, the commits
    /// and the statements prepared again after each migration's schema change were a third of the start-up's CPU.
    private func apply(
        _ pending: [(name: String, migrate: @Sendable (Database) throws -> Void)], to db: Database
    ) throws {
        let checksForeignKeys = try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") ?? false
        if checksForeignKeys {
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
        }
        defer {
            if checksForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        }
        var failure: (any Error)?
        try db.transaction(.immediate) { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS \(Self.tableName) (
                    name TEXT PRIMARY KEY NOT NULL,
                    applied_at INTEGER NOT NULL
                )
                """)
            // Another process may have migrated between the first check and this transaction's lock.
            var applied = try appliedMigrations(in: db)
            try refuseUnknown(applied)
            if applied.isEmpty, let baseline, let last = pending.firstIndex(where: { $0.name == baseline.through }),
                try isEmpty(db)
            {
                do {
                    try db.transaction { db in
                        do {
                            try baseline.create(db)
                        } catch {
                            throw DatabaseError.migrationFailed(name: "baseline through \(baseline.through)", underlying: error)
                        }
                        for migration in pending[...last] { try record(migration.name, in: db) }
                    }
                    applied = pending[...last].map(\.name)
                } catch {
                    failure = error
                }
            }
            for migration in pending where failure == nil && !applied.contains(migration.name) {
                do {
                    try db.transaction { db in try apply(migration, in: db, checksForeignKeys: checksForeignKeys) }
                } catch {
                    failure = error
                    break
                }
            }
        }
        if let failure { throw failure }
    }

    /// One migration, its foreign key check and its record, inside the caller's transaction.
    private func apply(
        _ migration: (name: String, migrate: @Sendable (Database) throws -> Void), in db: Database, checksForeignKeys: Bool
    ) throws {
        do {
            try migration.migrate(db)
        } catch {
            throw DatabaseError.migrationFailed(name: migration.name, underlying: error)
        }
        if checksForeignKeys, let violation = try db.fetchOne(sql: "PRAGMA foreign_key_check") {
            throw DatabaseError.foreignKeyViolation(
                migration: migration.name,
                table: try violation["table"],
                rowID: try violation["rowid"],
                parent: try violation["parent"])
        }
        try record(migration.name, in: db)
    }

    private func record(_ name: String, in db: Database) throws {
        try db.execute(sql: "INSERT INTO \(Self.tableName) (name, applied_at) VALUES (?, ?)", arguments: [name, Date()])
    }

    /// Whether `db` holds no table but the migrations' record.
    private func isEmpty(_ db: Database) throws -> Bool {
        try db.fetchOne(
            Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name <> ?",
            arguments: [Self.tableName]) == 0
    }
}
