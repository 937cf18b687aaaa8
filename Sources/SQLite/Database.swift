import CSQLite
import CStoreVFS
import Foundation

/// One SQLite connection: a file in WAL mode, or an in-memory database.
///
/// A `Database` is not `Sendable`: it is used from one thread at a time, normally inside the closures of a
/// ``DatabaseQueue``, which owns it and serialises every access. Use `Database` directly
/// only from synchronous code that owns it (a command-line tool, a benchmark).
///
/// Opening a file sets WAL journaling, the configured `synchronous` level, the busy timeout and foreign
/// keys, and reads the schema at once, so that a file that is not a database, a damaged one, a missing or
/// read-only directory fail here with ``DatabaseError/cannotOpen(path:reason:underlying:)`` instead of at
/// the first query. An existing file is never truncated or rewritten by opening it.
public final class Database {
    /// The path of the database file, or `:memory:`.
    public let path: String
    /// The configuration the connection was opened with.
    public let configuration: DatabaseConfiguration
    let connection: Connection
    private var statementCache: [String: Statement] = [:]
    /// With `.repeatedUse` admission: the SQL run once and not cached yet, by hash (a collision only caches a
    /// statement one use early). Cleared when it reaches `seenOnceLimit`, so generated SQL cannot grow it forever.
    private var seenOnce: Set<Int> = []
    private static let seenOnceLimit = 512
    private var cacheClock: UInt64 = 0
    /// The statements of ``keptStatement(_:sql:)``, by their callers' indexes; emptied with the cache.
    private var keptStatements: [Statement?] = []
    var savepointDepth = 0
    /// Whether commits leave checkpoints to the owning ``DatabaseQueue`` (see
    /// ``DatabaseConfiguration/runsUncontendedWorkInline``) instead of checkpointing by themselves.
    let leavesCheckpointsToQueue: Bool
    /// Frames in the write-ahead log after the latest commit, counted where commits leave checkpoints to the
    /// queue; see ``checkpointIfDue()``.
    private(set) var logFrames: Int32 = 0
    /// Whether a checkpoint has run since opening. With ``logFrames`` at 0, no commit followed the latest one: every
    /// frame still in the log is in the database too.
    private var hasCheckpointed = false
    /// Whether the next commit may sync: it starts the write-ahead log afresh (after opening or a checkpoint), and
    /// SQLite syncs a new log's header even at `synchronous=NORMAL`. Cleared by that commit.
    private(set) var nextCommitMaySync = true
    /// Whether opening created the file from ``DatabaseConfiguration/newFileImage``.
    package let createdFromImage: Bool

    /// Opens (creating if needed) the database file at `path`.
    public convenience init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        try self.init(path: path, configuration: configuration, leavesCheckpointsToQueue: false)
    }

    /// Opens the file for a ``DatabaseQueue``: with `leavesCheckpointsToQueue` (and a configuration that allows
    /// inline work), commits only count the log's frames and the queue checkpoints. Opened `.again`, the file creates
    /// none and takes no other than the one it had open: one moved, replaced or deleted meanwhile is reported before
    /// it is locked or read, not replaced by an empty one.
    convenience init(
        path: String, configuration: DatabaseConfiguration, leavesCheckpointsToQueue: Bool, opening: FileOpening = .first
    ) throws {
        if let size = configuration.pageSize {
            // Either would be ignored silently (SQLite drops a size it cannot use; a file from the image has the
            // image's), so both are refused before anything is created.
            guard DatabaseConfiguration.validPageSizes.contains(size) else {
                throw DatabaseError.cannotOpen(
                    path: path, reason: .other("page size \(size) is not a power of two from 512 to 65,536: choose one that is"),
                    underlying: nil)
            }
            if let image = configuration.newFileImage, image.pageSize != size {
                throw DatabaseError.cannotOpen(
                    path: path,
                    reason: .other("the new-file image has \(image.pageSize)-byte pages and the configuration asks for \(size): make them agree"),
                    underlying: nil)
            }
        }
        let isInMemory = path.isEmpty || path == ":memory:"
        let expectedFile: FileIdentity?
        let creates: Bool
        switch opening {
        case .first: (expectedFile, creates) = (nil, true)
        case .again(let file): (expectedFile, creates) = (file, isInMemory)
        }
        let createdFromImage = creates && !isInMemory && (configuration.newFileImage?.createFileIfMissing(at: path) ?? false)
        if creates && configuration.createsOwnerOnlyFile && !isInMemory && !createdFromImage {
            try DatabaseFile.createOwnerOnlyIfMissing(at: path)
        }
        let connection = try Self.openConnection(
            path: path, creates: creates, expectedFile: expectedFile,
            locksFileItself: !isInMemory && configuration.lockingMode == .exclusive,
            lockGrace: min(configuration.busyTimeout, Self.exclusiveLockGrace))
        self.init(
            connection: connection, path: path, configuration: configuration,
            leavesCheckpointsToQueue: leavesCheckpointsToQueue && configuration.allowsInlineWork, createdFromImage: createdFromImage)
        try setUpConnection()
    }

    /// Opens a new, empty in-memory database, private to this connection.
    public static func inMemory(configuration: DatabaseConfiguration = DatabaseConfiguration()) throws -> Database {
        try Database(path: ":memory:", configuration: configuration)
    }

    private init(
        connection: Connection, path: String, configuration: DatabaseConfiguration, leavesCheckpointsToQueue: Bool = false,
        createdFromImage: Bool = false
    ) {
        self.leavesCheckpointsToQueue = leavesCheckpointsToQueue
        self.createdFromImage = createdFromImage
        self.connection = connection
        self.path = path
        self.configuration = configuration
    }

    deinit {
        close()
    }

    /// Closes the connection. Later uses throw ``DatabaseError/closed``. Closing twice does nothing.
    public func close() {
        statementCache.removeAll()
        keptStatements.removeAll()
        // A log a checkpoint copied whole is left to closing's own checkpoint, which copies and syncs nothing and
        // empties the file; left as it is, it would be read back and copied again after the next open.
        if leavesCheckpointsToQueue, !connection.isClosed, !(hasCheckpointed && logFrames == 0),
            logFrames <= Int32(clamping: configuration.maxLogPagesLeftOnClose)
        {
            // A short log stays for the next open to read back: cheaper than copying it now and syncing the file.
            csqlite_set_checkpoint_on_close(connection.handle, 0)
            // Its file keeps only its frames, not those of the logs before it, as closing's checkpoint would empty it.
            if logFrames > 0, configuration.journalSizeLimit != nil {
                _ = csqlite_truncate_log_after(connection.handle, sqlite3_int64(logFrames))
            }
        }
        connection.close()
    }

    /// How many compiled statements the statement cache holds now.
    public var cachedStatementCount: Int {
        statementCache.count
    }

    /// Frees what the connection keeps only to go faster, its cached statements and the cache pages no statement
    /// is using, and keeps it open. The next statements compile again and read their pages back.
    ///
    /// For a connection that finished a burst of work (a start-up, a maintenance pass) and will idle: what the
    /// burst prepared and read would otherwise stay in memory until the connection closes.
    public func releaseMemory() {
        statementCache.removeAll()
        keptStatements.removeAll()
        guard !connection.isClosed else { return }
        sqlite3_db_release_memory(connection.handle)
    }

    /// Whether commits have grown the write-ahead log past ``DatabaseConfiguration/walAutoCheckpointPages`` since
    /// its last checkpoint, on a connection whose commits leave checkpoints to its ``DatabaseQueue``.
    var isCheckpointDue: Bool {
        let pages = configuration.walAutoCheckpointPages ?? 1000
        return pages > 0 && logFrames >= Int32(clamping: pages)
    }

    /// The write-ahead log's path as SQLite resolved it when opening (symbolic links followed, made absolute),
    /// whether or not the log exists now; nil for a database without a file.
    var writeAheadLogPath: String? {
        guard !connection.isClosed, let name = sqlite3_db_filename(connection.handle, "main"), name.pointee != 0,
            let log = sqlite3_filename_wal(name)
        else { return nil }
        return String(cString: log)
    }

    /// How many writes reached the write-ahead log since it was opened, where the connection locks its file itself
    /// (its log writes each frame in one call); nil otherwise.
    var writeAheadLogWrites: Int? {
        guard !connection.isClosed else { return nil }
        let writes = chatter_store_vfs_log_writes(connection.handle)
        return writes < 0 ? nil : writes
    }

    /// Copies the write-ahead log into the database (a passive checkpoint, as SQLite's automatic one) if it is
    /// due; a failure leaves it due, to be tried after a later commit, and loses nothing.
    func checkpointIfDue() {
        guard isCheckpointDue, !connection.isClosed else { return }
        if sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
            logFrames = 0
            nextCommitMaySync = true
            hasCheckpointed = true
        }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool {
        connection.isClosed
    }

    // MARK: - Executing

    /// Runs `sql`: one statement with `arguments`, or, without arguments, several statements separated by
    /// semicolons (a migration's DDL, for instance).
    ///
    /// A single statement is compiled once and then reused from the statement cache, so calling this
    /// repeatedly with the same SQL costs no compilation.
    public func execute(sql: String, arguments: StatementArguments = []) throws {
        if let cached = cachedStatementIfPresent(sql), !cached.isRunning {
            return try cached.execute(arguments: arguments)
        }
        guard !connection.isClosed else { throw DatabaseError.closed }
        try sql.withCString { start in
            var cursor = start
            var isFirst = true
            while true {
                var handle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let resultCode = sqlite3_prepare_v2(connection.handle, cursor, -1, &handle, &tail)
                guard resultCode == SQLITE_OK else {
                    throw connection.error(resultCode: resultCode, sql: sql)
                }
                guard let handle else { return }  // only whitespace or comments remain
                let statement = Statement(handle: handle, connection: connection)
                let rest = tail ?? cursor
                if isFirst && Self.isBlank(rest) {
                    if admitsToCache(sql) { cache(statement, for: sql) }
                    return try statement.execute(arguments: arguments)
                }
                guard arguments.isEmpty else { throw DatabaseError.multipleStatements(sql: sql) }
                try statement.execute()
                isFirst = false
                cursor = rest
            }
        }
    }

    /// The statement for `sql`, compiled on first use and then kept for this connection.
    ///
    /// This is the fast path for statements that run often. Do not start a cached statement again while it
    /// is being iterated (``Statement/forEachRow(arguments:_:)``): that throws
    /// ``DatabaseError/statementInUse(sql:)``. The fetch and execute methods of `Database` handle that case.
    public func cachedStatement(sql: String) throws -> Statement {
        if let cached = cachedStatementIfPresent(sql) { return cached }
        let statement = try makeStatement(sql: sql)
        cache(statement, for: sql)
        return statement
    }

    /// ``cachedStatement(sql:)`` for a caller's hot path, found again by `index` instead of by its SQL: no SQL text
    /// is hashed and compared at each use (a few hundred bytes for an outbox insert). `index` is a small number the
    /// caller gives each of its statements (0, 1, 2…) and must always come with the same `sql`. The statement is
    /// kept until the statement cache is emptied (``releaseMemory()``, ``close()``).
    package func keptStatement(_ index: Int, sql: String) throws -> Statement {
        if index < keptStatements.count, let kept = keptStatements[index] {
            // Still the most recently used, for the cache's eviction, as if looked up there.
            cacheClock &+= 1
            kept.lastCacheUse = cacheClock
            return kept
        }
        let statement = try cachedStatement(sql: sql)
        if index >= keptStatements.count {
            keptStatements.append(contentsOf: repeatElement(nil, count: index + 1 - keptStatements.count))
        }
        keptStatements[index] = statement
        return statement
    }

    /// A new statement for `sql`, which must hold exactly one statement; not cached.
    public func makeStatement(sql: String) throws -> Statement {
        guard !connection.isClosed else { throw DatabaseError.closed }
        return try sql.withCString { start in
            var handle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let resultCode = sqlite3_prepare_v2(connection.handle, start, -1, &handle, &tail)
            guard resultCode == SQLITE_OK else {
                throw connection.error(resultCode: resultCode, sql: sql)
            }
            guard let handle else { throw DatabaseError.noStatement(sql: sql) }
            let statement = Statement(handle: handle, connection: connection)
            if let tail, !Self.isBlank(tail) {
                throw DatabaseError.multipleStatements(sql: sql)
            }
            return statement
        }
    }

    // MARK: - Fetching

    /// All rows of the query.
    public func fetchAll(sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try statementToRun(sql).fetchAll(arguments: arguments)
    }

    /// The first row of the query, or nil when there is none.
    public func fetchOne(sql: String, arguments: StatementArguments = []) throws -> Row? {
        try statementToRun(sql).fetchOne(arguments: arguments)
    }

    /// The first column of every row, read as `T`.
    public func fetchAll<T: DatabaseValueConvertible>(
        _ type: T.Type, sql: String, arguments: StatementArguments = []
    ) throws -> [T] {
        try statementToRun(sql).fetchAll(type, arguments: arguments)
    }

    /// The first column of the first row read as `T`, or nil when there is no row.
    public func fetchOne<T: DatabaseValueConvertible>(
        _ type: T.Type, sql: String, arguments: StatementArguments = []
    ) throws -> T? {
        try statementToRun(sql).fetchOne(type, arguments: arguments)
    }

    /// Every row as a record.
    public func fetchAll<R: FetchableRecord>(
        _ type: R.Type, sql: String, arguments: StatementArguments = []
    ) throws -> [R] {
        try statementToRun(sql).fetchAll(type, arguments: arguments)
    }

    /// The first row as a record, or nil when there is none.
    public func fetchOne<R: FetchableRecord>(
        _ type: R.Type, sql: String, arguments: StatementArguments = []
    ) throws -> R? {
        try statementToRun(sql).fetchOne(type, arguments: arguments)
    }

    // MARK: - Connection state

    /// The rowid of the latest successful INSERT on this connection (0 when there was none).
    public var lastInsertRowID: Int64 {
        connection.isClosed ? 0 : sqlite3_last_insert_rowid(connection.handle)
    }

    /// The number of rows changed by the latest INSERT, UPDATE or DELETE.
    public var changes: Int {
        connection.isClosed ? 0 : Int(sqlite3_changes(connection.handle))
    }

    /// The number of rows changed since the connection was opened.
    public var totalChanges: Int {
        connection.isClosed ? 0 : Int(sqlite3_total_changes(connection.handle))
    }

    /// Whether a transaction is open.
    public var isInTransaction: Bool {
        !connection.isClosed && sqlite3_get_autocommit(connection.handle) == 0
    }

    // MARK: - Internals

    /// The cached statement for `sql`, or a fresh one when the cached statement is already running
    /// (a query nested inside an iteration of the same query).
    private func statementToRun(_ sql: String) throws -> Statement {
        if let cached = cachedStatementIfPresent(sql) {
            return cached.isRunning ? try makeStatement(sql: sql) : cached
        }
        return admitsToCache(sql) ? try cachedStatement(sql: sql) : try makeStatement(sql: sql)
    }

    private func cachedStatementIfPresent(_ sql: String) -> Statement? {
        guard let statement = statementCache[sql] else { return nil }
        cacheClock &+= 1
        statement.lastCacheUse = cacheClock
        return statement
    }

    /// Whether `sql`, not in the cache, goes into it now, under the configuration's admission policy.
    private func admitsToCache(_ sql: String) -> Bool {
        guard configuration.statementCacheAdmission == .repeatedUse else { return true }
        let key = sql.hashValue
        if seenOnce.remove(key) != nil { return true }
        if seenOnce.count >= Self.seenOnceLimit { seenOnce.removeAll(keepingCapacity: true) }
        seenOnce.insert(key)
        return false
    }

    /// Adds `statement` to the cache, evicting the least recently used one when the cache is full.
    private func cache(_ statement: Statement, for sql: String) {
        guard configuration.statementCacheCapacity > 0 else { return }
        if statementCache[sql] == nil, statementCache.count >= configuration.statementCacheCapacity,
            let oldest = statementCache.min(by: { $0.value.lastCacheUse < $1.value.lastCacheUse })?.key
        {
            statementCache[oldest] = nil
        }
        cacheClock &+= 1
        statement.lastCacheUse = cacheClock
        statementCache[sql] = statement
    }

    /// Whether the SQL text at `text` holds no statement: only whitespace, semicolons and comments.
    private static func isBlank(_ text: UnsafePointer<CChar>) -> Bool {
        var cursor = text
        while true {
            switch UInt8(bitPattern: cursor.pointee) {
            case 0:
                return true
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C, UInt8(ascii: ";"):
                cursor += 1
            case UInt8(ascii: "-") where cursor[1] == CChar(UInt8(ascii: "-")):
                while cursor.pointee != 0 && cursor.pointee != CChar(UInt8(ascii: "\n")) { cursor += 1 }
            case UInt8(ascii: "/") where cursor[1] == CChar(UInt8(ascii: "*")):
                cursor += 2
                while cursor.pointee != 0 && !(cursor[0] == CChar(UInt8(ascii: "*")) && cursor[1] == CChar(UInt8(ascii: "/"))) {
                    cursor += 1
                }
                if cursor.pointee != 0 { cursor += 2 }
            default:
                return false
            }
        }
    }

    // MARK: - Opening

    /// Process-wide SQLite settings, applied once before the first connection opens (SQLite accepts them only
    /// before it initializes): no page-cache preallocation, so that each connection holds only the pages it read;
    /// no memory statistics unless ``SQLiteMemoryStatistics/enable()`` asked for them.
    private static let processConfiguration: Void = {
        _ = csqlite_disable_page_cache_preallocation()
        SQLiteMemoryStatistics.applyBeforeInitialization()
    }()

    /// The VFS of a connection that locks its file itself: SQLite's `unix-none`, which takes no locks, but trusting
    /// a plain absolute path as the file's full path where `unix-none` would look up each of its directories again
    /// at every open, and writing each frame of the write-ahead log in one call where `unix-none` makes two
    /// (`CStoreVFS`).
    private static let unlockedVFS: String = {
        _ = processConfiguration
        return chatter_store_vfs_register("unix-none").map { String(cString: $0) } ?? "unix-none"
    }()

    /// Opens the file. With `locksFileItself` (exclusive locking) on Linux, the connection's lock is an
    /// open-file-description lock on a descriptor of its own, taken before SQLite opens the file with its
    /// `unix-none` VFS: SQLite's POSIX locks must track every open file of the process in one list that each open
    /// walks, and with thousands of bot stores open that walk cost ~0.5 ms per open (5,000 files open: 765 µs
    /// per open and close, against 132 µs this way). Other connections, SQLite's in other processes included,
    /// find the file locked as before.
    /// How long an exclusive opener tries again a lock it found held before it refuses the file.
    static let exclusiveLockGrace: Duration = .milliseconds(200)

    /// Called on the opening thread each time an exclusive open finds the lock held, before it tries again within
    /// the grace. Tests let the lock go there, so the retry is exercised without racing a timer.
    @TaskLocal static var lockFoundHeld: (@Sendable (_ path: String) -> Void)?

    /// A lock found held is tried again for `lockGrace` (at most the busy timeout): a child process being spawned
    /// holds the descriptions of the lock's descriptor until its exec closes them (close-on-exec), so a file
    /// just closed by its owner can look locked for that moment. SQLite's own locks waited out the busy timeout.
    private static func openConnection(
        path: String, creates: Bool, expectedFile: FileIdentity?, locksFileItself: Bool, lockGrace: Duration
    ) throws -> Connection {
        _ = processConfiguration
        var lockDescriptor: Int32?
        #if os(Linux)
        if locksFileItself {
            let descriptor = Glibc.open(path, O_RDWR | (creates ? O_CREAT : 0) | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let code = errno
                if !creates && code == ENOENT { throw DatabaseError.cannotOpen(path: path, reason: fileGone, underlying: nil) }
                throw DatabaseError.cannotOpen(
                    path: path, reason: DatabaseFile.failureReason(path: path, errno: code) ?? .fileNotAccessible, underlying: nil)
            }
            if let expectedFile, let found = FileIdentity(descriptor: descriptor), found != expectedFile {
                Glibc.close(descriptor)
                throw DatabaseError.cannotOpen(path: path, reason: fileGone, underlying: nil)
            }
            var lockError = csqlite_lock_file_exclusively(descriptor)
            let graceEnd = ContinuousClock.now + lockGrace
            while lockError == EAGAIN || lockError == EACCES, ContinuousClock.now < graceEnd {
                lockFoundHeld?(path)
                usleep(1_000)
                lockError = csqlite_lock_file_exclusively(descriptor)
            }
            guard lockError == 0 else {
                Glibc.close(descriptor)
                guard lockError == EAGAIN || lockError == EACCES else {
                    throw DatabaseError.cannotOpen(
                        path: path, reason: DatabaseFile.failureReason(path: path, errno: lockError) ?? .fileNotAccessible,
                        underlying: nil)
                }
                // What SQLite's own lock would have reported.
                let busy = SQLiteError(extendedCode: ResultCode(rawValue: SQLITE_BUSY), message: String(cString: sqlite3_errstr(SQLITE_BUSY)))
                throw DatabaseError.cannotOpen(path: path, reason: .lockedByAnotherConnection, underlying: busy)
            }
            lockDescriptor = descriptor
        }
        #endif
        if lockDescriptor == nil, let expectedFile, let found = FileIdentity(path: path), found != expectedFile {
            throw DatabaseError.cannotOpen(path: path, reason: fileGone, underlying: nil)
        }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (creates ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let resultCode = sqlite3_open_v2(path, &handle, flags, lockDescriptor == nil ? nil : unlockedVFS)
        guard resultCode == SQLITE_OK, let handle else {
            if let lockDescriptor { Glibc.close(lockDescriptor) }
            guard let handle else {
                let error = SQLiteError(
                    extendedCode: ResultCode(rawValue: resultCode),
                    message: String(cString: sqlite3_errstr(resultCode)))
                throw openError(path: path, error: error, systemErrno: 0)
            }
            let error = SQLiteError(connection: handle, resultCode: resultCode, sql: nil)
            let systemErrno = sqlite3_system_errno(handle)
            sqlite3_close_v2(handle)
            if !creates && systemErrno == ENOENT { throw DatabaseError.cannotOpen(path: path, reason: fileGone, underlying: error) }
            throw openError(path: path, error: error, systemErrno: systemErrno)
        }
        // SQLite opened the file by its path, and reads it only later: it must still be the file locked, or the one
        // being reopened, or the file was swapped meanwhile and is left unread.
        if let wanted = lockDescriptor.flatMap(FileIdentity.init(descriptor:)) ?? expectedFile,
            FileIdentity(path: path) != wanted
        {
            sqlite3_close_v2(handle)
            if let lockDescriptor { Glibc.close(lockDescriptor) }
            let reason = expectedFile == nil ? swappedWhileOpening : fileGone
            throw DatabaseError.cannotOpen(path: path, reason: reason, underlying: nil)
        }
        return Connection(handle: handle, lockDescriptor: lockDescriptor)
    }

    /// Why a file replaced at its path while it was being opened was left alone.
    private static let swappedWhileOpening = DatabaseError.OpenFailure.other(
        "the file was replaced at its path while it was being opened: open it again")

    /// Why a file opened before cannot be opened again.
    private static let fileGone = DatabaseError.OpenFailure.other(
        "the file was moved, replaced or deleted while its connection was released: put it back, or close the database "
            + "and open it where it is now")

    /// The device and inode of the file open, nil in memory.
    var fileIdentity: FileIdentity? { connection.fileIdentity(path: path) }

    /// Applies the configuration, and reads the schema so that SQLite's lazy open fails now rather than later.
    private func setUpConnection() throws {
        let handle = connection.handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds)
        let isFileBacked = sqlite3_db_filename(handle, "main").map { $0.pointee != 0 } ?? false
        let isExclusive = isFileBacked && configuration.lockingMode == .exclusive
        do {
            if isExclusive {
                // Before the first access, so that WAL keeps its index in this connection's heap (no -shm file, no
                // shared memory) and the first read takes the file's lock. A connection holding it never lets go
                // before closing, so waiting is pointless: refuse at once.
                _ = try makeStatement(sql: "PRAGMA locking_mode = EXCLUSIVE").fetchOne(String.self)
                sqlite3_busy_timeout(handle, 0)
            }
            do {
                _ = try makeStatement(sql: "SELECT count(*) FROM sqlite_master").fetchOne(Int.self)
            } catch let error as SQLiteError where isExclusive && error.code == .busy {
                close()
                throw DatabaseError.cannotOpen(path: path, reason: .lockedByAnotherConnection, underlying: error)
            }
            if isExclusive {
                sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds)
            }
            if isFileBacked && sqlite3_db_readonly(handle, "main") == 1 {
                throw DatabaseError.cannotOpen(
                    path: path,
                    reason: DatabaseFile.failureReason(path: path, errno: EACCES) ?? .fileNotAccessible,
                    underlying: nil)
            }
            // A file made from the image holds the image's pages.
            let isEmpty = try !createdFromImage && makeStatement(sql: "PRAGMA page_count").fetchOne(Int.self) == 0
            if isEmpty, let size = configuration.pageSize {
                // Before anything writes page 1, which fixes the size for the file's life.
                try makeStatement(sql: "PRAGMA page_size = \(size)").execute()
            }
            if isExclusive, isEmpty {
                // A new, empty file that only this connection can write: turning it to WAL writes its first page,
                // and in the default rollback mode that meant creating, syncing and deleting a -journal file (3
                // fsyncs and a file's inode, slow on ext4 among many recently deleted ones when a thousand bots
                // start). There is nothing to roll back yet, so that one write is journaled in memory. A process
                // crash cannot tear it (the write completes in the kernel); a power loss during it could leave a
                // file that is not a database, where a rollback journal would have emptied it again.
                _ = try makeStatement(sql: "PRAGMA journal_mode = MEMORY").fetchOne(String.self)
            }
            // A file made from the image is marked for WAL, and SQLite opened its log at the read above.
            if !(createdFromImage && isExclusive && chatter_store_vfs_log_writes(handle) >= 0) {
                let journalMode = try makeStatement(sql: "PRAGMA journal_mode = WAL").fetchOne(String.self) ?? ""
                if isFileBacked && journalMode.lowercased() != "wal" {
                    throw DatabaseError.cannotOpen(path: path, reason: .walUnavailable(journalMode: journalMode), underlying: nil)
                }
            }
            try makeStatement(sql: "PRAGMA synchronous = \(configuration.synchronous.rawValue)").execute()
            if isFileBacked {
                // A transaction larger than the cache has its pages written to the log before its commit (a spill),
                // and a page spilled and changed again is written again. After that, rolling a savepoint back leaves
                // SQLite 3.40's log with frames its recovery (the next open after a kill) rejects: that commit and
                // every one after it until the next checkpoint are lost, or the file reads as malformed. Without
                // spills a transaction's pages stay in memory until it commits.
                try makeStatement(sql: "PRAGMA cache_spill = OFF").execute()
            }
            try makeStatement(sql: "PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")").execute()
            // The queue's log hook below replaces SQLite's automatic checkpoint, and with it this setting.
            if let pages = configuration.walAutoCheckpointPages, !(isFileBacked && leavesCheckpointsToQueue) {
                _ = try makeStatement(sql: "PRAGMA wal_autocheckpoint = \(pages)").fetchOne(Int.self)
            }
            if let bytes = configuration.journalSizeLimit {
                _ = try makeStatement(sql: "PRAGMA journal_size_limit = \(bytes)").fetchOne(Int.self)
            }
            // A file just made from the image has a log of one frame, which the first commit appends to.
            if !isFileBacked || createdFromImage { nextCommitMaySync = false }
            if isFileBacked && leavesCheckpointsToQueue {
                // Replaces SQLite's automatic checkpoint: a commit only counts the log's frames, and the queue
                // checkpoints on its own thread. The hook's context is this object, which outlives the connection.
                sqlite3_wal_hook(handle, { context, _, _, frames in
                    guard let context else { return SQLITE_OK }
                    let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
                    database.logFrames = frames
                    database.nextCommitMaySync = false
                    return SQLITE_OK
                }, Unmanaged.passUnretained(self).toOpaque())
            }
            if isFileBacked && configuration.keepsWriteAheadLogFile {
                var persist: Int32 = 1
                _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            }
        } catch let error as SQLiteError {
            let systemErrno = sqlite3_system_errno(handle)
            close()
            throw Self.openError(path: path, error: error, systemErrno: systemErrno)
        } catch {
            close()
            throw error
        }
    }

    private static func openError(path: String, error: SQLiteError, systemErrno: Int32) -> DatabaseError {
        let reason: DatabaseError.OpenFailure
        switch error.code {
        case .notADatabase:
            reason = .notADatabase
        case .corrupt:
            reason = .corrupt
        default:
            reason = DatabaseFile.failureReason(path: path, errno: systemErrno) ?? .other(error.message)
        }
        return .cannotOpen(path: path, reason: reason, underlying: error)
    }
}

@available(*, unavailable, message: "Reach a database through its DatabaseQueue, which serialises access.")
extension Database: Sendable {}
