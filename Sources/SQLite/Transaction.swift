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
        let name = "nested_\(savepointDepth)"
        try execute(sql: "SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try execute(sql: "RELEASE \(name)")
            return result
        } catch {
            if isInTransaction {
                try? execute(sql: "ROLLBACK TO \(name)")
                try? execute(sql: "RELEASE \(name)")
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
