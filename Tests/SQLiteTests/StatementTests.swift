import Foundation
import SQLite
import Testing

/// Statements: arguments, multi-statement scripts, the statement cache, SQLite's errors.
@Suite struct StatementTests {
    let directory: TemporaryDirectory
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("statements.sqlite"))
        try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, author TEXT NOT NULL UNIQUE, body TEXT)")
    }

    @Test func positionalArgumentsBindInOrder() throws {
        try db.execute(sql: "INSERT INTO note (author, body) VALUES (?, ?)", arguments: ["ann", "hi"])
        try db.execute(sql: "INSERT INTO note (author, body) VALUES (?2, ?1)", arguments: ["there", "bob"])
        let rows = try db.fetchAll(sql: "SELECT author, body FROM note ORDER BY id")
        #expect(try rows.map { [try $0["author"] as String, try $0["body"] as String] } == [["ann", "hi"], ["bob", "there"]])
    }

    @Test func convertedValuesBindAsTheLiteralDoes() throws {
        try db.execute(sql: "INSERT INTO note (id, author, body) VALUES (?, ?, ?)", arguments: StatementArguments(values: [.integer(7), .text("ann"), .null]))
        try db.execute(sql: "INSERT INTO note (id, author, body) VALUES (?, ?, ?)", arguments: [8, "bob", nil])
        let rows = try db.fetchAll(sql: "SELECT id, author, body FROM note ORDER BY id")
        #expect(try rows.map { "\(try $0["id"] as Int) \(try $0["author"] as String) \(String(describing: try $0["body"] as String?))" }
            == ["7 ann nil", "8 bob nil"])
        #expect(StatementArguments(values: [.integer(8), .text("bob"), .null]) == [8, "bob", nil])
    }

    @Test func namedArgumentsBindByNameWhateverThePrefix() throws {
        try db.execute(sql: "INSERT INTO note (author, body) VALUES (:author, @body)", arguments: ["author": "ann", ":body": "x"])
        try db.execute(sql: "INSERT INTO note (author, body) VALUES ($author, :author || '!')", arguments: ["$author": "bob"])
        let bodies = try db.fetchAll(String.self, sql: "SELECT body FROM note ORDER BY id")
        #expect(bodies == ["x", "bob!"])
    }

    @Test func namedParametersAlsoTakePositionalArguments() throws {
        try db.execute(sql: "INSERT INTO note (author, body) VALUES (:author, :body)", arguments: ["ann", nil])
        #expect(try db.fetchOne(String?.self, sql: "SELECT body FROM note WHERE author = :a", arguments: ["a": "ann"]) == .some(nil))
    }

    @Test func wrongArgumentCountIsRefusedBeforeRunning() throws {
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO note (author, body) VALUES (?, ?)", arguments: ["ann"])
        }
        guard case .argumentCountMismatch(expected: 2, given: 1, sql: _)? = error else {
            Issue.record("expected argumentCountMismatch, got \(String(describing: error))")
            return
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 0)
    }

    @Test func missingAndMisspelledNamedArgumentsAreRefused() throws {
        let missing = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO note (author, body) VALUES (:author, :body)", arguments: ["author": "ann"])
        }
        guard case .missingArgument(name: "body", sql: _)? = missing else {
            Issue.record("expected missingArgument, got \(String(describing: missing))")
            return
        }
        let unused = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO note (author) VALUES (:author)", arguments: ["author": "ann", "bdy": "x"])
        }
        guard case .unusedArguments(names: ["bdy"], sql: _)? = unused else {
            Issue.record("expected unusedArguments, got \(String(describing: unused))")
            return
        }
        let positional = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO note (author, body) VALUES (:author, ?)", arguments: ["author": "ann"])
        }
        guard case .positionalParameterWithNamedArguments? = positional else {
            Issue.record("expected positionalParameterWithNamedArguments, got \(String(describing: positional))")
            return
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 0)
    }

    @Test func executeRunsAScriptOfSeveralStatements() throws {
        try db.execute(sql: """
            -- a migration-like script
            CREATE TABLE tag (name TEXT);
            INSERT INTO tag VALUES ('a'); /* inline comment */ INSERT INTO tag VALUES ('b');
            ;;
            """)
        #expect(try db.fetchAll(String.self, sql: "SELECT name FROM tag ORDER BY name") == ["a", "b"])
    }

    @Test func argumentsAreRefusedForAScriptOfSeveralStatements() throws {
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO note (author) VALUES (?); DELETE FROM note", arguments: ["ann"])
        }
        guard case .multipleStatements? = error else {
            Issue.record("expected multipleStatements, got \(String(describing: error))")
            return
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 0)
    }

    @Test func makeStatementRequiresExactlyOneStatement() throws {
        #expect(throws: DatabaseError.self) { _ = try db.makeStatement(sql: "SELECT 1; SELECT 2") }
        #expect(throws: DatabaseError.self) { _ = try db.makeStatement(sql: "  -- nothing\n") }
        let statement = try db.makeStatement(sql: "SELECT 1 AS one; -- trailing comment")
        #expect(statement.columnNames == ["one"])
        #expect(statement.isReadOnly)
    }

    @Test func cachedStatementIsCompiledOnceAndReused() throws {
        let sql = "INSERT INTO note (author) VALUES (?)"
        let first = try db.cachedStatement(sql: sql)
        try db.execute(sql: sql, arguments: ["ann"])
        let second = try db.cachedStatement(sql: sql)
        #expect(first === second)
        try second.execute(arguments: ["bob"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 2)
    }

    @Test func aKeptStatementIsFoundByItsIndexUntilTheCacheIsEmptied() throws {
        let sql = "INSERT INTO note (author) VALUES (?)"
        let first = try db.keptStatement(0, sql: sql)
        #expect(try db.keptStatement(0, sql: sql) === first)
        #expect(try db.cachedStatement(sql: sql) === first, "it is the cache's statement")
        try first.execute(arguments: ["ann"])
        db.releaseMemory()
        let again = try db.keptStatement(0, sql: sql)
        #expect(again !== first)
        try again.execute(arguments: ["bob"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 2)
    }

    @Test func firstUseAdmissionCachesAStatementTheFirstTimeItRuns() throws {
        let before = db.cachedStatementCount
        #expect(try db.fetchOne(Int.self, sql: "SELECT 41 + 1") == 42)
        #expect(db.cachedStatementCount == before + 1)
    }

    @Test func repeatedUseAdmissionCachesOnlyAStatementThatRunsAgain() throws {
        let frugal = try Database(
            path: directory.file("repeated-use.sqlite"), configuration: .init(statementCacheAdmission: .repeatedUse))
        try frugal.execute(sql: "CREATE TABLE item (name TEXT NOT NULL)")
        try frugal.execute(sql: "INSERT INTO item VALUES (?)", arguments: ["once"])
        #expect(try frugal.fetchOne(Int.self, sql: "SELECT count(*) FROM item") == 1)
        #expect(frugal.cachedStatementCount == 0)

        try frugal.execute(sql: "INSERT INTO item VALUES (?)", arguments: ["twice"])
        #expect(frugal.cachedStatementCount == 1)
        #expect(try frugal.fetchOne(Int.self, sql: "SELECT count(*) FROM item") == 2)
        #expect(frugal.cachedStatementCount == 2)
        #expect(try frugal.fetchAll(String.self, sql: "SELECT name FROM item ORDER BY rowid") == ["once", "twice"])
    }

    @Test func releasingMemoryEmptiesTheStatementCacheAndKeepsTheConnectionWorking() throws {
        try db.execute(sql: "INSERT INTO note (author) VALUES (?)", arguments: ["ann"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 1)
        #expect(db.cachedStatementCount >= 2)

        db.releaseMemory()

        #expect(db.cachedStatementCount == 0)
        try db.execute(sql: "INSERT INTO note (author) VALUES (?)", arguments: ["bob"])
        #expect(try db.fetchAll(String.self, sql: "SELECT author FROM note ORDER BY id") == ["ann", "bob"])
    }

    @Test func statementCacheEvictsTheLeastRecentlyUsedBeyondItsCapacity() throws {
        let small = try Database(path: directory.file("small-cache.sqlite"), configuration: .init(statementCacheCapacity: 2))
        let one = try small.cachedStatement(sql: "SELECT 1")
        let two = try small.cachedStatement(sql: "SELECT 2")
        #expect(try small.cachedStatement(sql: "SELECT 1") === one)
        _ = try small.cachedStatement(sql: "SELECT 3")
        #expect(try small.cachedStatement(sql: "SELECT 1") === one)
        #expect(try small.cachedStatement(sql: "SELECT 2") !== two)
        #expect(try small.fetchOne(Int.self, sql: "SELECT 2") == 2)
    }

    @Test func cachedSelectStarSeesColumnsAddedLater() throws {
        try db.execute(sql: "INSERT INTO note (author) VALUES ('ann')")
        #expect(try db.fetchOne(sql: "SELECT * FROM note")?.columnNames == ["id", "author", "body"])
        try db.execute(sql: "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM note"))
        #expect(row.columnNames == ["id", "author", "body", "pinned"])
        #expect(try row["pinned"] as Bool == false)
    }

    @Test func aQueryNestedInsideTheSameQueryUsesItsOwnStatement() throws {
        try db.execute(sql: "INSERT INTO note (author) VALUES ('ann'), ('bob')")
        let sql = "SELECT author FROM note WHERE id >= ? ORDER BY id"
        var pairs: [[String]] = []
        try db.cachedStatement(sql: sql).forEachRow(arguments: [1]) { outer in
            let inner = try db.fetchAll(String.self, sql: sql, arguments: [2])
            pairs.append([try outer["author"]] + inner)
        }
        #expect(pairs == [["ann", "bob"], ["bob", "bob"]])
        let statement = try db.cachedStatement(sql: sql)
        let error = #expect(throws: DatabaseError.self) {
            try statement.forEachRow(arguments: [1]) { _ in _ = try statement.fetchAll(arguments: [1]) }
        }
        guard case .statementInUse? = error else {
            Issue.record("expected statementInUse, got \(String(describing: error))")
            return
        }
    }

    @Test func lastInsertRowIDAndChangesDescribeTheLatestStatement() throws {
        try db.execute(sql: "INSERT INTO note (author) VALUES ('ann')")
        try db.execute(sql: "INSERT INTO note (id, author) VALUES (41, 'bob')")
        #expect(db.lastInsertRowID == 41)
        try db.execute(sql: "UPDATE note SET body = 'x'")
        #expect(db.changes == 2)
        #expect(db.totalChanges == 4)
    }

    @Test func constraintViolationCarriesCodesMessageAndSQL() throws {
        let sql = "INSERT INTO note (author) VALUES (?)"
        try db.execute(sql: sql, arguments: ["ann"])
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql: sql, arguments: ["ann"]) }
        #expect(error?.code == .constraint)
        #expect(error?.extendedCode == .constraintUnique)
        #expect(error?.message == "UNIQUE constraint failed: note.author")
        #expect(error?.sql == sql)
        // The statement was reset: it runs again at once.
        try db.execute(sql: sql, arguments: ["bob"])
    }

    @Test func syntaxErrorIsAnSQLiteErrorWithTheSQL() throws {
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELEC 1") }
        #expect(error?.code == .error)
        #expect(error?.message.contains("syntax error") == true)
        #expect(error?.sql == "SELEC 1")
    }

    @Test func closedDatabaseRefusesWork() throws {
        let statement = try db.cachedStatement(sql: "SELECT count(*) FROM note")
        db.close()
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT 1") }
        #expect(throws: DatabaseError.self) { _ = try statement.fetchOne(Int.self) }
    }
}
