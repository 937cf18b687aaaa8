import Foundation
import SQLite
import Testing

/// Transactions commit what their closure did when it returns, and undo it when it throws.
@Suite struct TransactionTests {
    struct HandlerFailed: Error, Equatable {}

    let directory: TemporaryDirectory
    let path: String
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("transactions.sqlite")
        db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE entry (name TEXT NOT NULL)")
    }

    private func names(in database: Database) throws -> [String] {
        try database.fetchAll(String.self, sql: "SELECT name FROM entry ORDER BY rowid")
    }

    @Test func returningClosureCommitsForOtherConnections() throws {
        let count = try db.transaction { db in
            try db.execute(sql: "INSERT INTO entry VALUES ('a'), ('b')")
            return db.changes
        }
        #expect(count == 2)
        #expect(!db.isInTransaction)
        #expect(try names(in: Database(path: path)) == ["a", "b"])
    }

    @Test func throwingClosureRollsBackAndRethrowsTheSameError() throws {
        try db.execute(sql: "INSERT INTO entry VALUES ('kept')")
        #expect(throws: HandlerFailed()) {
            try db.transaction { db in
                try db.execute(sql: "INSERT INTO entry VALUES ('lost')")
                throw HandlerFailed()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try names(in: db) == ["kept"])
    }

    @Test func failingStatementRollsBackTheWholeTransaction() throws {
        #expect(throws: SQLiteError.self) {
            try db.transaction { db in
                try db.execute(sql: "INSERT INTO entry VALUES ('lost')")
                try db.execute(sql: "INSERT INTO entry VALUES (NULL)")
            }
        }
        #expect(try names(in: db) == [])
    }

    @Test func nestedTransactionRollsBackOnlyItself() throws {
        try db.transaction { db in
            try db.execute(sql: "INSERT INTO entry VALUES ('outer')")
            #expect(throws: HandlerFailed()) {
                try db.transaction { db in
                    try db.execute(sql: "INSERT INTO entry VALUES ('inner')")
                    throw HandlerFailed()
                }
            }
            try db.transaction { db in try db.execute(sql: "INSERT INTO entry VALUES ('second inner')") }
        }
        #expect(try names(in: db) == ["outer", "second inner"])
    }

    @Test func immediateTransactionTakesTheWriteLockAtOnce() throws {
        let other = try Database(path: path, configuration: .init(busyTimeout: .zero))
        try db.transaction(.immediate) { _ in
            let error = #expect(throws: SQLiteError.self) { try other.execute(sql: "BEGIN IMMEDIATE") }
            #expect(error?.code == .busy)
        }
        try other.transaction { other in try other.execute(sql: "INSERT INTO entry VALUES ('after')") }
        #expect(try names(in: db) == ["after"])
    }
}
