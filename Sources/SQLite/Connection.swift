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

    /// The device and inode of the file this connection has open, nil in memory or when it cannot be told.
    func fileIdentity(path: String) -> FileIdentity? {
        var status = stat()
        if let lockDescriptor {
            guard fstat(lockDescriptor, &status) == 0 else { return nil }
        } else {
            guard !path.isEmpty, path != ":memory:", stat(path, &status) == 0 else { return nil }
        }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
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

/// Which file a path led to when it was opened: its device and inode.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
}
