import SQLite

/// The sandbox's state: one SQLite database (a file, or in memory) with the Chatter schema applied.
///
/// All reads and writes run on the database's own serial queue (`DatabaseQueue`), never on the cooperative
/// pool; `ChatterService` performs every mutation as one `write` transaction.
public final class SandboxStore: Sendable {
    /// The underlying database; reach it only through `read` and `write`.
    public let database: DatabaseQueue
    /// Observers of its committed writes (and of the hub's sockets opening and closing).
    package let changes = SandboxChanges()

    private init(database: DatabaseQueue) {
        self.database = database
    }

    /// Opens (creating if needed) the store at `path` and migrates it to the current schema.
    public static func open(path: String) async throws -> SandboxStore {
        let queue = try await DatabaseQueue(path: path)
        try await SandboxSchema.migrator.migrate(queue)
        return SandboxStore(database: queue)
    }

    /// A fresh, empty store in memory (gone when the store is released).
    public static func inMemory() async throws -> SandboxStore {
        let queue = try await DatabaseQueue.inMemory()
        try await SandboxSchema.migrator.migrate(queue)
        return SandboxStore(database: queue)
    }

    /// Runs `body` in a read-only transaction.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.read(body)
    }

    /// Runs `body` in one immediate transaction: all of it commits, or none of it.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let result = try await database.write(body)
        changes.noteChange()
        return result
    }

    /// Closes the database after the work already queued.
    public func close() async {
        await database.close()
    }
}
