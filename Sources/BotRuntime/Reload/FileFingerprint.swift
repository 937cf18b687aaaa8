import Glibc

/// What tells one version of a file from another without reading it: the device, inode, size, modification time
/// and status-change time of the file a path leads to (symlinks followed). A Kubernetes ConfigMap update swaps a
/// symlink to a new directory, an editor or `mv` replaces the inode, an in-place write changes the size or time, a
/// `chmod` or `chown` (that makes an unreadable file readable) the status-change time: each gives another
/// fingerprint.
package struct FileFingerprint: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modifiedSeconds: Int
    package var modifiedNanoseconds: Int
    package var changedSeconds: Int
    package var changedNanoseconds: Int

    /// The fingerprint of the file at `path` now; nil when there is none (missing, unreadable directory).
    package static func of(path: String) -> FileFingerprint? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileFingerprint(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedSeconds: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec),
            changedSeconds: Int(info.st_ctim.tv_sec), changedNanoseconds: Int(info.st_ctim.tv_nsec))
    }
}
