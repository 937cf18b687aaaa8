import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system work around opening a database: creating it owner-only, and explaining why it cannot be opened.
enum DatabaseFile {
    /// Writes the file's changed pages to disk (`fdatasync`), if it exists; false when it could not.
    @discardableResult
    static func flushToDisk(at path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        #if canImport(Glibc)
        return fdatasync(descriptor) == 0
        #else
        return fsync(descriptor) == 0
        #endif
    }

    /// Creates an empty file at `path` with mode 0600 unless something already exists there.
    /// An empty file is a valid empty SQLite database; an existing file is never truncated.
    static func createOwnerOnlyIfMissing(at path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
        if descriptor >= 0 {
            _ = close(descriptor)
            return
        }
        let code = errno
        if code == EEXIST { return }
        throw DatabaseError.cannotOpen(
            path: path,
            reason: failureReason(path: path, errno: code) ?? .other(String(cString: strerror(code))),
            underlying: nil)
    }

    /// The reason a file operation on the database at `path` failed with `errno`, when the file system tells.
    ///
    /// `errno` alone can mislead: after a refused create, SQLite retries read-only and reports that
    /// retry's ENOENT. So the directory and the file are examined as well.
    static func failureReason(path: String, errno code: Int32) -> DatabaseError.OpenFailure? {
        let directory = parentDirectory(of: path)
        var status = stat()
        guard stat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            return .missingDirectory(directory)
        }
        switch code {
        case ENOENT, ENOTDIR, EACCES, EPERM, EROFS:
            if access(directory, W_OK) != 0 {
                return .directoryNotWritable(directory)
            }
            if access(path, F_OK) == 0 && access(path, R_OK | W_OK) != 0 {
                return .fileNotAccessible
            }
            return nil
        case EISDIR:
            return .other("\(path) is a directory: give the path of a file")
        default:
            return nil
        }
    }

    static func parentDirectory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
}
