import CSQLite
import Glibc

/// Owns an `sqlite3` handle. Statements keep their connection alive, so finalizing a statement never
/// touches a freed handle; closing uses `sqlite3_close_v2`, which waits for outstanding statements.
final class Connection {
    let handle: OpaquePointer
    private(set) var isClosed = false
    /// Set inside `DatabaseQueue.read`: statements that would change the database are refused before they run.
    var refusesWrites = false

    /// The descriptor whose lock keeps the file to this connection when SQLite itself does not lock it (see
    /// `Database.openConnection`); closed, and the lock with it, after the handle.
    private let lockDescriptor: Int32?

    init(handle: OpaquePointer, lockDescriptor: Int32? = nil) {
        self.handle = handle
        self.lockDescriptor = lockDescriptor
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
        if let lockDescriptor { Glibc.close(lockDescriptor) }
    }

    func error(resultCode: Int32, sql: String?) -> SQLiteError {
        SQLiteError(connection: handle, resultCode: resultCode, sql: sql)
    }

    deinit {
        close()
    }
}

@available(*, unavailable, message: "A connection is used only on its database's queue.")
extension Connection: Sendable {}
