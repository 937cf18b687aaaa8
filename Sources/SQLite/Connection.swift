import CSQLite
import Foundation
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

/// Which file or directory a path or descriptor leads to: its device and inode.
package struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of what is open as `descriptor`.
    package init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The identity of what is at `path`, through any symbolic link.
    package init?(path: String) {
        guard case .success(let identity) = Self.of(path) else { return nil }
        self = identity
    }

    /// The identity of what is at `path`, through any symbolic link, or the errno of looking it up.
    package static func of(_ path: String) -> Result<FileIdentity, POSIXError> {
        var status = stat()
        guard stat(path, &status) == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
        return .success(FileIdentity(status))
    }
}

/// Whether a queue opens its file for the first time, creating it when missing, or again, the file (by device and
/// inode) that it had open before; `.again(nil)`, when that could not be told, only creates none.
enum FileOpening {
    case first
    case again(FileIdentity?)
}
