/// How a transaction takes its lock (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
public enum TransactionKind: Sendable, CustomStringConvertible {
    /// Takes locks on first use: for reads. A deferred transaction that later writes can fail with
    /// `SQLITE_BUSY` without waiting if another connection wrote in between.
    case deferred
    /// Takes the write lock at once (waiting up to the busy timeout): the right kind for writes.
    case immediate
    /// Like `immediate`; in WAL mode the two are the same.
    case exclusive

    public var description: String {
        switch self {
        case .deferred: "DEFERRED"
        case .immediate: "IMMEDIATE"
        case .exclusive: "EXCLUSIVE"
        }
    }
}

extension Database {
    /// Runs `body` in a transaction: commits when it returns, rolls back and rethrows when it throws.
    ///
    /// Inside another transaction this nests as a savepoint (and `kind` does not apply): a throwing inner
    /// block undoes only its own changes, and the outer transaction goes on.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        guard !isClosed else { throw DatabaseError.closed }
        if isInTransaction {
            return try savepoint(body)
        }
        try execute(sql: "BEGIN \(kind)")
        do {
            let result = try body(self)
            try execute(sql: "COMMIT")
            return result
        } catch {
            if isInTransaction {
                // The original error is what matters; a failed rollback leaves nothing more to report.
                try? execute(sql: "ROLLBACK")
            }
            throw error
        }
    }

    private func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let depth = savepointDepth
        try execute(sql: SavepointSQL.begin(depth))
        do {
            let result = try body(self)
            try execute(sql: SavepointSQL.release(depth))
            return result
        } catch {
            if isInTransaction {
                try? execute(sql: SavepointSQL.rollback(depth))
                try? execute(sql: SavepointSQL.release(depth))
            }
            throw error
        }
    }

    /// Runs `body` in a deferred transaction in which every statement that would write is refused
    /// (``ResultCode/readOnly``): a consistent snapshot for reads.
    ///
    /// The refusal is checked per statement (`sqlite3_stmt_readonly`) rather than with `PRAGMA query_only`:
    /// changing that pragma expires every prepared statement of the connection, so each read would have made
    /// SQLite recompile every cached statement on its next use.
    func readOnlyTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        let refused = connection.refusesWrites
        connection.refusesWrites = true
        defer { connection.refusesWrites = refused }
        return try transaction(.deferred, body)
    }
}

/// The SQL of the savepoint at each depth (`nested_1`, `nested_2`…), made once for the shallow depths: a unit of
/// work opens a savepoint at every commit, and formatting its statements each time cost two allocations.
private enum SavepointSQL {
    private static let shallowDepths = 4
    private static let begins = (1...shallowDepths).map { "SAVEPOINT \(name($0))" }
    private static let releases = (1...shallowDepths).map { "RELEASE \(name($0))" }

    private static func name(_ depth: Int) -> String { "nested_\(depth)" }

    static func begin(_ depth: Int) -> String {
        depth <= shallowDepths ? begins[depth - 1] : "SAVEPOINT \(name(depth))"
    }

    static func release(_ depth: Int) -> String {
        depth <= shallowDepths ? releases[depth - 1] : "RELEASE \(name(depth))"
    }

    /// Only when a unit fails: not worth keeping.
    static func rollback(_ depth: Int) -> String { "ROLLBACK TO \(name(depth))" }
}
