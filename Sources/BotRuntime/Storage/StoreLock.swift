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
/// The lock is a one-byte write lock at an offset derived from the store's file name (FNV-1a, 62 bits), in one of
/// the directory's 64 stripe files `stores.lock.<n>` (n from the same hash): every process locking the same store
/// locks the same byte, and a process holds at most 66 descriptors per directory (the directory, `stores.lock` and its
/// stripes), not one per bot (a process of 10,000 bots already spends its open-file limit on sockets and open
/// stores). The kernel walks a file's locks at each new one, so spreading them over 64 files keeps that walk short
/// with thousands of bots.
///
/// Builds that locked every store's byte in `stores.lock` itself must not run beside this one on a directory. A
/// process here holds a read lock over the whole of `stores.lock` while it holds locks in the stripes, which refuses
/// every store to such a build. When such a build holds bytes of `stores.lock` already, this process locks its bytes
/// there too, as that build does, until it holds nothing in the directory; so does every process that starts while
/// one does, and the stripes come back once every process on the directory has stopped.
///
/// On Linux the locks are open-file-description locks: a child process inheriting the descriptors keeps the locks
/// only until its exec closes them, and nothing it does releases the parent's. Within the process, a table of the
/// names held refuses a second open, which the kernel would grant to the same descriptor. Two names sharing one
/// offset (a chance of about one in 10^11 among 10,000 bots) would refuse each other in one process, never run
/// together.
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

    /// The name of the lock file each directory of stores gets; its stripes add `.<n>`.
    static let fileName = "stores.lock"

    /// How many stripe files a directory's locks are spread over.
    static let stripeCount = 64

    /// The name of the stripe file holding the byte of the store named `name`.
    static func stripeFileName(of name: String) -> String {
        stripeFileName(stripe(of: offset(of: name)))
    }

    private static func stripeFileName(_ stripe: Int) -> String { "\(fileName).\(stripe)" }

    /// The stripe of the byte at `offset`.
    private static func stripe(of offset: Int64) -> Int { Int(offset % Int64(stripeCount)) }

    /// The device and inode of the store's directory: its entry in the process's table.
    private let identity: FileIdentity
    private let directory: String
    private let name: String

    /// The store file's path through the directory the lock is in, resolved when the directory's entry was made:
    /// where the store must be opened, and opened again after going dormant, so that a symbolic link on its path
    /// pointed elsewhere meanwhile cannot take it to another directory than its lock's.
    var storePath: String { directory == "/" ? "/" + name : directory + "/" + name }
    private let released = Atomic<Bool>(false)

    private init(identity: FileIdentity, directory: String, name: String) {
        self.identity = identity
        self.directory = directory
        self.name = name
    }

    deinit {
        release()
    }

    /// Takes the lock of the store file at `path`, or says why not at once (it never waits).
    static func acquire(storePath path: String) throws(Refusal) -> StoreLock {
        let name = DatabaseFile.fileName(of: path)
        let parent = DatabaseFile.parentDirectory(of: path)
        // One entry per directory, found by its device and inode (one `stat`) however the path spells it (relative,
        // through a symbolic link); a directory made again where a held one was is another, with lock files of its own.
        let identity: FileIdentity
        switch FileIdentity.of(parent) {
        case .success(let found): identity = found
        case .failure(let code): throw .unavailable(failure(directory: parent, file: fileName, errno: code.code.rawValue))
        }
        // The entry's resolved path, while it still leads there; resolved again once the directory has been moved, and
        // refused if it moved meanwhile, so that a store never opens in another directory than its lock's.
        let known = table.withLock { $0[identity]?.path }
        let resolved: String
        if let known, (try? FileIdentity.of(known).get()) == identity {
            resolved = known
        } else {
            resolved = Self.resolved(parent)
            guard (try? FileIdentity.of(resolved).get()) == identity else { throw .unavailable(movedMeanwhile(parent)) }
        }
        let directory = try table.withLock { directories throws(Refusal) -> String in
            // A refusal in `stores.lock` with nothing held may be a process of this build whose read lock came
            // after this one looked: one more look finds its stripes.
            var looks = 0
            while true {
                looks += 1
                if directories[identity] == nil {
                    directories[identity] = try Directory(locking: resolved, identity: identity, spelled: parent)
                } else if known != resolved {
                    directories[identity]?.path = resolved
                }
                do throws(Refusal) {
                    // In place: a copy of the entry would copy its table of names, one per open store.
                    try directories[identity]?.take(name, at: offset(of: name), spelled: parent)
                    return directories[identity]?.path ?? resolved
                } catch {
                    guard let entry = directories[identity], entry.names.isEmpty else { throw error }
                    entry.closeAll()
                    directories[identity] = nil
                    guard case .held(inThisProcess: false) = error, !entry.isStriped, looks == 1 else { throw error }
                }
            }
        }
        return StoreLock(identity: identity, directory: directory, name: name)
    }

    /// Lets the lock go (once; later calls do nothing). The directory's descriptors close with its last lock.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.table.withLock { directories in
            let offset = Self.offset(of: name)
            guard directories[identity]?.names[offset] == name else { return }
            // In place, as in `acquire`.
            directories[identity]?.drop(offset)
            if let entry = directories[identity], entry.names.isEmpty {
                entry.closeAll()
                directories[identity] = nil
            }
        }
    }

    // MARK: - The process's table

    /// What this process holds in one directory: bytes in the stripes or in `stores.lock`, never both. A read lock
    /// taken on the descriptor that holds bytes of `stores.lock` would turn them into read locks, so the choice is
    /// made once, when the entry is made, and kept until it holds no name.
    private struct Directory {
        /// The directory, resolved when the entry was made or last found moved: where its stores open.
        var path: String
        /// The directory itself, open while the entry lives: its lock files are opened in it wherever it is moved.
        let directoryDescriptor: Int32
        /// The descriptor of the directory's `stores.lock`, open while this process holds a lock in the directory.
        let descriptor: Int32
        /// The descriptors of the stripe files opened so far, by stripe (-1: not opened); empty when the bytes go in
        /// `stores.lock` itself, beside a build that puts them there.
        var stripes: [Int32]
        /// The store names held, by their offsets.
        var names: [Int64: String] = [:]

        var isStriped: Bool { !stripes.isEmpty }

        /// Opens `directory`, the one `identity` names, and its lock file, and takes the lock file's read lock, or
        /// finds an older build's bytes there.
        init(locking directory: String, identity: FileIdentity, spelled parent: String) throws(Refusal) {
            let directoryDescriptor = open(directory, StoreLock.directoryOpenFlags)
            guard directoryDescriptor >= 0 else { throw .unavailable(failure(directory: parent, file: fileName, errno: errno)) }
            guard FileIdentity(descriptor: directoryDescriptor) == identity else {
                close(directoryDescriptor)
                throw .unavailable(StoreLock.movedMeanwhile(parent))
            }
            let descriptor = StoreLock.openLockFile(named: fileName, in: directoryDescriptor)
            guard descriptor >= 0 else {
                let code = errno
                close(directoryDescriptor)
                throw .unavailable(failure(directory: parent, file: fileName, errno: code))
            }
            switch StoreLock.setLock(descriptor, offset: 0, length: 0, type: F_RDLCK) {
            case 0:
                stripes = Array(repeating: -1, count: stripeCount)
            case EAGAIN, EACCES:
                stripes = []
            case let code:
                close(descriptor)
                close(directoryDescriptor)
                throw .unavailable(failure(directory: parent, file: fileName, errno: code))
            }
            self.path = directory
            self.directoryDescriptor = directoryDescriptor
            self.descriptor = descriptor
        }

        /// Locks the byte at `offset` for `name`, or says why not (about the directory as `parent` spells it).
        mutating func take(_ name: String, at offset: Int64, spelled parent: String) throws(Refusal) {
            guard names[offset] == nil else { throw .held(inThisProcess: true) }
            let file = try descriptor(for: offset, spelled: parent)
            let code = StoreLock.setLock(file, offset: offset, length: 1, type: F_WRLCK)
            guard code == 0 else {
                if code == EAGAIN || code == EACCES { throw .held(inThisProcess: false) }
                let name = isStriped ? StoreLock.stripeFileName(StoreLock.stripe(of: offset)) : fileName
                throw .unavailable(StoreLock.failure(directory: parent, file: name, errno: code))
            }
            names[offset] = name
        }

        /// Unlocks the byte at `offset` and forgets its name.
        mutating func drop(_ offset: Int64) {
            let file = isStriped ? stripes[StoreLock.stripe(of: offset)] : descriptor
            _ = StoreLock.setLock(file, offset: offset, length: 1, type: F_UNLCK)
            names[offset] = nil
        }

        /// Closes every descriptor, which lets every lock of this process in the directory go.
        func closeAll() {
            for stripe in stripes where stripe >= 0 { close(stripe) }
            close(descriptor)
            close(directoryDescriptor)
        }

        /// The descriptor holding the byte at `offset`: its stripe's, opened now if it is the first.
        private mutating func descriptor(for offset: Int64, spelled parent: String) throws(Refusal) -> Int32 {
            guard isStriped else { return descriptor }
            let stripe = StoreLock.stripe(of: offset)
            if stripes[stripe] < 0 {
                let name = StoreLock.stripeFileName(stripe)
                let file = StoreLock.openLockFile(named: name, in: directoryDescriptor)
                guard file >= 0 else { throw .unavailable(StoreLock.failure(directory: parent, file: name, errno: errno)) }
                stripes[stripe] = file
            }
            return stripes[stripe]
        }
    }

    private static let table = Mutex<[FileIdentity: Directory]>([:])

    /// How a directory is opened to hold it and make its lock files in it. On Linux, `O_PATH` needs no permission to
    /// read the directory (one that is only writable and searchable still takes stores), as the paths did.
    #if os(Linux)
    // 0o10_000_000 is O_PATH, which Glibc declares only with _GNU_SOURCE.
    private static let directoryOpenFlags: Int32 = 0o10_000_000 | O_DIRECTORY | O_CLOEXEC
    #else
    private static let directoryOpenFlags: Int32 = O_RDONLY | O_DIRECTORY | O_CLOEXEC
    #endif

    /// Why a lock was not taken in a directory moved or replaced while it was being taken.
    fileprivate static func movedMeanwhile(_ directory: String) -> DatabaseError.OpenFailure {
        .other("\(directory) was moved or replaced while the store's lock was being taken: open the store again")
    }

    /// `directory` with symbolic links, `.` and `..` resolved, or as it is when it cannot be (it does not exist).
    private static func resolved(_ directory: String) -> String {
        realpath(directory, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? directory
    }

    /// The byte of `name`: FNV-1a (64 bits) of its UTF-8, shifted to 62 bits so that the byte and its end fit `off_t`.
    static func offset(of name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(hash >> 2)
    }

    /// Why the lock file `file` of `directory` cannot be used, from the errno of opening or locking it.
    fileprivate static func failure(directory: String, file: String, errno code: Int32) -> DatabaseError.OpenFailure {
        switch code {
        case ENOENT, ENOTDIR: DatabaseFile.directoryFailure(directory) ?? .missingDirectory(directory)
        case EACCES, EPERM, EROFS: .directoryNotWritable(directory)
        default: .other("the lock file \(file) in \(directory) cannot be used: \(String(cString: strerror(code)))")
        }
    }

    /// Opens (creating it, readable by the owner only) the lock file `name` of the directory open as `directory`; -1
    /// with errno set.
    fileprivate static func openLockFile(named name: String, in directory: Int32) -> Int32 {
        openat(directory, name, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    }

    /// Sets a lock of `type` (`F_WRLCK`, `F_RDLCK` or `F_UNLCK`) on `length` bytes at `offset` (0: to the end of
    /// any file); 0 or the errno.
    static func setLock(_ descriptor: Int32, offset: Int64, length: Int64, type: Int32) -> Int32 {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = off_t(length)
        #if os(Linux)
        let command: Int32 = 37  // F_OFD_SETLK, which Glibc declares only with _GNU_SOURCE.
        #else
        let command = F_SETLK
        #endif
        return fcntl(descriptor, command, &lock) == 0 ? 0 : errno
    }
}
