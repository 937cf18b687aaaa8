import Dispatch

/// A database reached from async code: one connection, used only on a serial dispatch queue of its own.
///
/// Every read and write is a closure that runs on that queue, one at a time, never on Swift's cooperative
/// thread pool, so blocking SQLite calls (disk I/O, busy waits, fsync) never stall other tasks. The caller
/// suspends until its closure has run; once queued, a closure runs to completion even if the calling task
/// is cancelled, so a write is never half-done. The ``Database`` passed to a closure must not escape it.
///
/// ```swift
/// let queue = try await DatabaseQueue(path: path)
/// try await migrator.migrate(queue)
/// let id = try await queue.write { db in
///     try db.execute(sql: "INSERT INTO outbox (body) VALUES (?)", arguments: [body])
///     return db.lastInsertRowID
/// }
/// ```
public final class DatabaseQueue: Sendable {
    /// The path of the database file, or `:memory:`.
    public let path: String
    /// The configuration the database was opened with.
    public let configuration: DatabaseConfiguration
    private let dispatchQueue: DispatchQueue
    private let holder: DatabaseHolder

    /// Opens (creating if needed) the database file at `path`; see ``Database/init(path:configuration:)``
    /// for the errors.
    public convenience init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) async throws {
        let dispatchQueue = DispatchQueue(label: "SQLite \(path)")
        let holder = DatabaseHolder()
        try await Self.run(on: dispatchQueue) {
            holder.database = try Database(path: path, configuration: configuration)
        }
        self.init(path: path, configuration: configuration, dispatchQueue: dispatchQueue, holder: holder)
    }

    /// Opens a new, empty in-memory database.
    public static func inMemory(configuration: DatabaseConfiguration = DatabaseConfiguration()) async throws -> DatabaseQueue {
        try await DatabaseQueue(path: ":memory:", configuration: configuration)
    }

    private init(path: String, configuration: DatabaseConfiguration, dispatchQueue: DispatchQueue, holder: DatabaseHolder) {
        self.path = path
        self.configuration = configuration
        self.dispatchQueue = dispatchQueue
        self.holder = holder
    }

    deinit {
        // Close on the queue, after any work still queued, so that closing's checkpoint I/O blocks no caller.
        dispatchQueue.async { [holder] in
            holder.database?.close()
            holder.database = nil
        }
    }

    /// Runs `body` in a read-only transaction (a consistent snapshot; writes fail with
    /// ``ResultCode/readOnly``) and returns its result.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withDatabase { db in try db.readOnlyTransaction(body) }
    }

    /// Runs `body` in an immediate transaction: committed when it returns, rolled back when it throws
    /// (the error is rethrown).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withDatabase { db in try db.transaction(.immediate, body) }
    }

    /// Runs `body` outside any transaction: for statements that cannot run in one (`VACUUM`, some PRAGMAs,
    /// migrations), or to manage transactions by hand with ``Database/transaction(_:_:)``.
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withDatabase(body)
    }

    /// Closes the database after the work already queued. Later calls throw ``DatabaseError/closed``.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            dispatchQueue.async { [holder] in
                holder.database?.close()
                holder.database = nil
                continuation.resume()
            }
        }
    }

    private func withDatabase<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await Self.run(on: dispatchQueue) { [holder] in
            guard let database = holder.database else { throw DatabaseError.closed }
            return try body(database)
        }
    }

    private static func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}

/// Holds a queue's database. `@unchecked Sendable` is safe because `database` is read and written only by
/// closures running on the queue's serial `DispatchQueue` (opening, every read and write, closing), which
/// never run concurrently and are ordered by the queue; the `Database` itself never leaves those closures.
private final class DatabaseHolder: @unchecked Sendable {
    var database: Database?
}
