import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Database {
    /// Copies the whole database, as one consistent snapshot, into a new file at `path`, readable and writable by its
    /// owner only, with SQLite's online backup (`sqlite3_backup_init`, `_step`, `_finish`): every page in one step,
    /// committed changes in the write-ahead log included, while this connection holds its read lock. The copy and
    /// its directory entry are synced to disk before this returns.
    ///
    /// Never replaces anything: when something exists at `path`, this throws ``DatabaseError/cannotOpen(path:reason:underlying:)``
    /// and leaves it. A failure partway removes the partial copy.
    public func backup(to path: String) throws {
        guard !connection.isClosed else { throw DatabaseError.closed }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else {
            let code = errno
            let reason: DatabaseError.OpenFailure = code == EEXIST
                ? .other("a file exists there already: choose another name, or remove it first")
                : DatabaseFile.failureReason(path: path, errno: code) ?? .other(String(cString: strerror(code)))
            throw DatabaseError.cannotOpen(path: path, reason: reason, underlying: nil)
        }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
        do {
            try copyPages(to: path)
        } catch {
            unlink(path)
            unlink(path + "-journal")
            throw error
        }
    }

    private func copyPages(to path: String) throws {
        var destination: OpaquePointer?
        let opened = sqlite3_open_v2(path, &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard opened == SQLITE_OK, let destination else {
            let error = SQLiteError(extendedCode: ResultCode(rawValue: opened), message: String(cString: sqlite3_errstr(opened)))
            if let destination { sqlite3_close_v2(destination) }
            throw DatabaseError.cannotOpen(path: path, reason: .other("the copy cannot be created"), underlying: error)
        }
        defer { sqlite3_close_v2(destination) }
        guard let backup = sqlite3_backup_init(destination, "main", connection.handle, "main") else {
            throw SQLiteError(connection: destination, resultCode: sqlite3_errcode(destination), sql: nil)
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else {
            throw SQLiteError(
                extendedCode: ResultCode(rawValue: stepped), message: String(cString: sqlite3_errstr(stepped)))
        }
        guard finished == SQLITE_OK else {
            throw SQLiteError(connection: destination, resultCode: finished, sql: nil)
        }
        guard DatabaseFile.flushToDisk(at: path), DatabaseFile.flushDirectoryToDisk(of: path) else {
            throw DatabaseError.cannotOpen(
                path: path, reason: .other("the copy could not be synced to disk: \(String(cString: strerror(errno)))"),
                underlying: nil)
        }
    }
}
