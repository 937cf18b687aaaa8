import Foundation
import SQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The guard that one store file is used by one ``BotStore`` at a time, in this process and across processes, for as
/// long as the store is open: also while it is dormant and SQLite's own lock on the file is let go.
///
/// The lock is a one-byte write lock in the directory's `stores.lock` file, at an offset derived from the store's file
/// name (FNV-1a, 62 bits): every process locking the same store locks the same byte, and a process holds one
/// descriptor per directory, not one per bot (a process of 10,000 bots already spends its open-file limit on sockets
/// and open stores). On Linux it is an open-file-description lock, so a child process inheriting the descriptor
/// until its exec neither holds nor releases anything. Within the process, a table of the names held refuses a
/// second open, which the kernel would grant to the same descriptor. Two names sharing one offset (a chance of about
/// one in 10^11 among 10,000 bots) would refuse each other in one process, never run together.
final class StoreLock: Sendable {
    /// Why a lock was not taken.
    enum Refusal: Error {
        /// The store is open elsewhere: in another process, or (`inThisProcess`) in this one.
        case held(inThisProcess: Bool)
        /// The lock file cannot be opened or locked: `reason` says why, as the database's opening would.
        case unavailable(DatabaseError.OpenFailure)

        /// The refusal as the store's error about the store at `path`.
        func storeError(path: String) -> BotStoreError {
            switch self {
            case .held(let inThisProcess):
                .inUse(path: path, inThisProcess: inThisProcess)
            case .unavailable(let reason):
                .storage(
                    operation: "open the store at \(path)",
                    underlying: DatabaseError.cannotOpen(path: path, reason: reason, underlying: nil))
            }
        }
    }

    /// The name of the lock file each directory of stores gets.
    static let fileName = "stores.lock"

    private let directory: String
    private let name: String
    private let released = Atomic<Bool>(false)

    private init(directory: String, name: String) {
        self.directory = directory
        self.name = name
    }

    deinit {
        release()
    }

    /// Takes the lock of the store file at `path`, or says why not at once (it never waits).
    static func acquire(storePath path: String) throws(Refusal) -> StoreLock {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let parent = url.deletingLastPathComponent().path
        // One entry per directory however it is spelled (relative, through a symbolic link).
        let directory = realpath(parent, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? parent
        try table.withLock { directories throws(Refusal) in
            if directories[directory] == nil {
                let lockPath = (directory as NSString).appendingPathComponent(fileName)
                let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw .unavailable(failure(directory: parent, errno: errno)) }
                directories[directory] = Directory(descriptor: descriptor)
            }
            do throws(Refusal) {
                // In place: a copy of the entry would copy its table of names, one per open store.
                try directories[directory]?.take(name, at: offset(of: name), directory: parent)
            } catch {
                if let entry = directories[directory], entry.names.isEmpty {
                    close(entry.descriptor)
                    directories[directory] = nil
                }
                throw error
            }
        }
        return StoreLock(directory: directory, name: name)
    }

    /// Lets the lock go (once; later calls do nothing). The directory's descriptor closes with its last lock.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.table.withLock { directories in
            let offset = Self.offset(of: name)
            guard let descriptor = directories[directory]?.descriptor, directories[directory]?.names[offset] == name else { return }
            _ = Self.setLock(descriptor, offset: offset, locked: false)
            // In place, as in `acquire`.
            directories[directory]?.names[offset] = nil
            if directories[directory]?.names.isEmpty == true {
                close(descriptor)
                directories[directory] = nil
            }
        }
    }

    // MARK: - The process's table

    private struct Directory {
        /// The descriptor of the directory's lock file, open while this process holds a lock in it.
        let descriptor: Int32
        /// The store names held, by their offsets.
        var names: [Int64: String] = [:]

        /// Locks the byte at `offset` for `name`, or says why not.
        mutating func take(_ name: String, at offset: Int64, directory: String) throws(Refusal) {
            guard names[offset] == nil else { throw .held(inThisProcess: true) }
            let code = StoreLock.setLock(descriptor, offset: offset, locked: true)
            guard code == 0 else {
                if code == EAGAIN || code == EACCES { throw .held(inThisProcess: false) }
                throw .unavailable(StoreLock.failure(directory: directory, errno: code))
            }
            names[offset] = name
        }
    }

    private static let table = Mutex<[String: Directory]>([:])

    /// The byte of `name`: FNV-1a (64 bits) of its UTF-8, shifted to 62 bits so that the byte and its end fit `off_t`.
    static func offset(of name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(hash >> 2)
    }

    /// Why the lock file of `directory` cannot be used, from the errno of opening or locking it.
    fileprivate static func failure(directory: String, errno code: Int32) -> DatabaseError.OpenFailure {
        switch code {
        case ENOENT, ENOTDIR: .missingDirectory(directory)
        case EACCES, EPERM, EROFS: .directoryNotWritable(directory)
        default: .other("the lock file \(fileName) in \(directory) cannot be used: \(String(cString: strerror(code)))")
        }
    }

    /// Locks or unlocks the byte at `offset`; 0 or the errno.
    fileprivate static func setLock(_ descriptor: Int32, offset: Int64, locked: Bool) -> Int32 {
        var lock = flock(
            l_type: Int16(locked ? F_WRLCK : F_UNLCK), l_whence: Int16(SEEK_SET), l_start: off_t(offset), l_len: 1, l_pid: 0)
        #if os(Linux)
        let command: Int32 = 37  // F_OFD_SETLK, which Glibc declares only with _GNU_SOURCE.
        #else
        let command = F_SETLK
        #endif
        return fcntl(descriptor, command, &lock) == 0 ? 0 : errno
    }
}
