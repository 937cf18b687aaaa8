import Foundation
import SQLite
import Testing

/// A database queue serialises async access: concurrent writers never lose an update, reads cannot
/// write, and a closed queue refuses work.
@Suite struct DatabaseQueueTests {
    struct HandlerFailed: Error, Equatable {}

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func counterQueue(_ name: String = "counter.sqlite") async throws -> DatabaseQueue {
        let queue = try await DatabaseQueue(path: directory.file(name))
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS counter (n INTEGER NOT NULL)")
            if try db.fetchOne(Int.self, sql: "SELECT count(*) FROM counter") == 0 {
                try db.execute(sql: "INSERT INTO counter VALUES (0)")
            }
        }
        return queue
    }

    /// Reads the counter and writes it back plus one: loses updates unless writes are serialised.
    @Sendable private static func increment(_ db: Database) throws {
        let n = try db.fetchOne(Int.self, sql: "SELECT n FROM counter") ?? 0
        try db.execute(sql: "UPDATE counter SET n = ?", arguments: [n + 1])
    }

    @Test func concurrentIncrementsFromManyTasksAllCount() async throws {
        let queue = try await counterQueue()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { try await queue.write(Self.increment) }
            }
            try await group.waitForAll()
        }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 200)
    }

    @Test func twoQueuesOnOneFileStillCountEveryIncrement() async throws {
        let first = try await counterQueue("shared.sqlite")
        let second = try await counterQueue("shared.sqlite")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                let queue = index.isMultiple(of: 2) ? first : second
                group.addTask { try await queue.write(Self.increment) }
            }
            try await group.waitForAll()
        }
        #expect(try await first.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 100)
    }

    @Test func writeReturnsTheClosureResult() async throws {
        let queue = try await DatabaseQueue(path: directory.file("result.sqlite"))
        let id = try await queue.write { db in
            try db.execute(sql: "CREATE TABLE outbox (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO outbox (body) VALUES (?)", arguments: ["hello"])
            return db.lastInsertRowID
        }
        #expect(id == 1)
        let row = try await queue.read { db in try db.fetchOne(sql: "SELECT * FROM outbox") }
        #expect(try row?["body"] as String? == "hello")
    }

    @Test func throwingWriteRollsBackAndRethrows() async throws {
        let queue = try await counterQueue()
        await #expect(throws: HandlerFailed()) {
            try await queue.write { db in
                try Self.increment(db)
                throw HandlerFailed()
            }
        }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 0)
    }

    @Test func readCannotWriteAndLeavesTheQueueWritable() async throws {
        let queue = try await counterQueue()
        let error = await #expect(throws: SQLiteError.self) { try await queue.read(Self.increment) }
        #expect(error?.code == .readOnly)
        try await queue.write(Self.increment)
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 1)
    }

    @Test func readsLeaveCachedStatementsCompiled() async throws {
        let queue = try await counterQueue()
        let sql = "SELECT n FROM counter WHERE n >= ?"
        try await queue.write { db in _ = try db.cachedStatement(sql: sql).fetchOne(Int.self, arguments: [0]) }
        for _ in 0..<3 {
            _ = try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM counter") }
        }
        let recompilations = try await queue.write { db in
            let statement = try db.cachedStatement(sql: sql)
            _ = try statement.fetchOne(Int.self, arguments: [0])
            return statement.recompilationCount
        }
        #expect(recompilations == 0)
    }

    @Test func openErrorsReachTheCaller() async throws {
        let path = directory.file("missing/bot.sqlite")
        let error = await #expect(throws: DatabaseError.self) { _ = try await DatabaseQueue(path: path) }
        guard case .cannotOpen(path: path, reason: .missingDirectory, underlying: _)? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
    }

    @Test func closedQueueRefusesWorkAndReleasesTheFile() async throws {
        let path = directory.file("closed.sqlite")
        let queue = try await counterQueue("closed.sqlite")
        try await queue.write(Self.increment)
        await queue.close()
        let error = await #expect(throws: DatabaseError.self) { try await queue.read { _ in 0 } }
        guard case .closed? = error else {
            Issue.record("expected closed, got \(String(describing: error))")
            return
        }
        // Closing the last connection checkpoints the WAL into the file and removes it.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try Database(path: path).fetchOne(Int.self, sql: "SELECT n FROM counter") == 1)
    }

    @Test func migratorRunsThroughTheQueue() async throws {
        let queue = try await DatabaseQueue.inMemory()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-create-outbox") { db in
            try db.execute(sql: "CREATE TABLE outbox (id INTEGER PRIMARY KEY)")
        }
        try await migrator.migrate(queue)
        let registered = migrator
        let applied = try await queue.read { db in try registered.appliedMigrations(in: db) }
        #expect(applied == ["v1-create-outbox"])
    }

    /// Prints a throughput figure for the runtime's typical transaction (not asserted: debug builds vary).
    @Test func manySmallWriteTransactionsAllCommit() async throws {
        let queue = try await DatabaseQueue(path: directory.file("throughput.sqlite"))
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE outbox (id INTEGER PRIMARY KEY, client_id TEXT NOT NULL UNIQUE, body TEXT NOT NULL)")
        }
        let count = 3_000
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            for index in 0..<count {
                try await queue.write { db in
                    try db.execute(
                        sql: "INSERT INTO outbox (client_id, body) VALUES (?, ?)", arguments: ["client-\(index)", "hello"])
                }
            }
        }
        let total = try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM outbox") }
        #expect(total == count)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("DatabaseQueue: \(count) sequential awaited write transactions in \(elapsed): \(Int(Double(count) / seconds)) tx/s")
    }
}
