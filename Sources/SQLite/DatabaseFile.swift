import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system work around opening a database: creating it owner-only, and explaining why it cannot be opened.
package enum DatabaseFile {
    /// Writes the file's changed pages to disk (`fdatasync`), if it exists; false when it could not.
    @discardableResult
    static func flushToDisk(at path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flushToDisk(descriptor)
    }

    private static func flushToDisk(_ descriptor: Int32) -> Bool {
        #if canImport(Glibc)
        return fdatasync(descriptor) == 0
        #else
        return fsync(descriptor) == 0
        #endif
    }

    /// Writes the entries of the directory holding `path` to disk (`fsync`), so that a file created there survives a
    /// power loss under its name; false when it could not.
    package static func flushDirectoryToDisk(of path: String) -> Bool {
        let descriptor = open(parentDirectory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
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

    /// Creates the file at `path` (mode 0600) holding `bytes`, unless something already exists there, and returns
    /// whether it did. The file appears whole or not at all: the bytes go to a file without a name in the same
    /// directory, are synced to disk if `syncs`, and only then get the name, which never replaces an existing file.
    /// A crash partway leaves no file at `path` (and no other file); with `syncs`, a power loss does too.
    ///
    /// False as well where the file system cannot (no unnamed files off Linux or on some file systems) or any step
    /// fails (a missing directory, a full disk): nothing is left behind, and the caller creates the file the usual
    /// way, which reports what is wrong. `stopsAfterBytes` (tests only) stops writing there, as a crash would.
    /// `looksFirst`: whether to look for a file at `path` before writing one, which costs one system call where
    /// there is one (the common case) and saves the writing; without it the file is written and its name refused.
    static func createOwnerOnlyIfMissing(
        at path: String, holding bytes: [UInt8], syncs: Bool, looksFirst: Bool = true, stopsAfterBytes: Int? = nil
    ) -> Bool {
        guard !looksFirst || !exists(path) else { return false }
        let descriptor = csqlite_open_unnamed_file(parentDirectory(of: path))
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let length = min(bytes.count, stopsAfterBytes ?? bytes.count)
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            var offset = 0
            while offset < length {
                let count = pwrite(descriptor, start + offset, length - offset, off_t(offset))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written, length == bytes.count, !syncs || flushToDisk(descriptor) else { return false }
        return csqlite_link_unnamed_file(descriptor, path) == 0
    }

    /// Whether something is at `path` (a dangling symbolic link included), or it cannot be told.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 || errno != ENOENT
    }

    /// The reason a file operation on the database at `path` failed with `errno`, when the file system tells.
    ///
    /// `errno` alone can mislead: after a refused create, SQLite retries read-only and reports that
    /// retry's ENOENT. So the directory and the file are examined as well.
    static func failureReason(path: String, errno code: Int32) -> DatabaseError.OpenFailure? {
        let directory = parentDirectory(of: path)
        if let failure = directoryFailure(directory) { return failure }
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

    /// Why `directory` cannot hold files, if it cannot: it does not exist, or something other than a directory is
    /// there (a data directory's path given to a file, say).
    package static func directoryFailure(_ directory: String) -> DatabaseError.OpenFailure? {
        var status = stat()
        guard stat(directory, &status) == 0 else { return .missingDirectory(directory) }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            return .other("\(directory) is not a directory: move what is there, or choose another directory")
        }
        return nil
    }

    /// The directory part of `path` as written ("." when it has none), without asking the file system.
    package static func parentDirectory(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// The last component of `path` as written.
    package static func fileName(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}
