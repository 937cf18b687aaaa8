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

    /// The device and inode of the file this connection has open (of the file at `path` when SQLite locks it, which
    /// keeps its descriptor to itself), nil in memory or when it cannot be told.
    func fileIdentity(path: String) -> FileIdentity? {
        if let lockDescriptor { return FileIdentity(descriptor: lockDescriptor) }
        return path.isEmpty || path == ":memory:" ? nil : FileIdentity(path: path)
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

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of the file open as `descriptor`.
    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The identity of the file at `path`, through any symbolic link.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }
}

/// Whether a queue opens its file for the first time, creating it when missing, or again, the file (by device and
/// inode) that it had open before; `.again(nil)`, when that could not be told, only creates none.
enum FileOpening {
    case first
    case again(FileIdentity?)
}
