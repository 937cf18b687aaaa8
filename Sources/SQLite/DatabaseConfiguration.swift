/// How a database connection is opened and set up.
public struct DatabaseConfiguration: Sendable, Hashable {
    /// The durability of commits; see ``SynchronousMode``. Default `.normal`, the usual choice with WAL.
    public var synchronous: SynchronousMode
    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    public var busyTimeout: Duration
    /// Whether SQLite enforces foreign keys (`PRAGMA foreign_keys`). Default true.
    public var foreignKeys: Bool
    /// Whether a database file that does not exist yet is created readable and writable by its owner only
    /// (mode 0600); SQLite gives its `-wal` and `-shm` files the same mode. An existing file keeps its mode.
    /// Default true: database files hold credentials and private messages.
    public var createsOwnerOnlyFile: Bool
    /// How many statements ``Database/cachedStatement(sql:)`` keeps compiled. Default 64.
    public var statementCacheCapacity: Int
    /// Which statements run through `execute` and the fetch methods are kept compiled; see
    /// ``StatementCacheAdmission``. Default `.firstUse`.
    public var statementCacheAdmission: StatementCacheAdmission
    /// Whether the connection shares the file with others (`.normal`, the default) or holds it alone until it
    /// closes (`.exclusive`: no `-shm` file, one descriptor less, and a second opener is refused at once).
    public var lockingMode: LockingMode
    /// After how many pages in the write-ahead log a commit checkpoints it (`PRAGMA wal_autocheckpoint`);
    /// nil keeps SQLite's default (1000 pages).
    public var walAutoCheckpointPages: Int?
    /// The size in bytes the write-ahead log is truncated to after a checkpoint (`PRAGMA journal_size_limit`);
    /// nil keeps SQLite's default (no limit: the log keeps its largest size).
    public var journalSizeLimit: Int?
    /// Whether closing the connection keeps the `-wal` file (emptied, or holding only the log
    /// ``maxLogPagesLeftOnClose`` leaves, when ``journalSizeLimit`` is set) instead of deleting it
    /// (`SQLITE_FCNTL_PERSIST_WAL`). For a database closed and reopened often (a dormant one): creating and deleting a
    /// file each time is slow on a busy file system (ext4 scans its recently deleted inodes). Default false.
    public var keepsWriteAheadLogFile: Bool
    /// The most pages a write-ahead log may hold for closing to leave it as it is, for the next open to read back,
    /// instead of checkpointing it into the database (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`). For a database closed
    /// and reopened often (a dormant one), a checkpoint's writes and fsync cost far more than reading a short log
    /// back. A log a checkpoint has copied whole since its last commit is emptied at close whatever its length (that
    /// checkpoint copies nothing). Only where commits leave checkpoints to a ``DatabaseQueue``
    /// (``runsUncontendedWorkInline``), which knows the log's length; default 0: closing always checkpoints, as in
    /// SQLite.
    public var maxLogPagesLeftOnClose: Int
    /// Whether a ``DatabaseQueue`` call that finds the connection open and nothing else queued runs its closure
    /// on the caller's thread instead of hopping to the queue's thread and back (two thread wake-ups per call).
    /// Commits then never checkpoint by themselves: the queue checkpoints on its own thread after
    /// ``walAutoCheckpointPages`` (1000 when nil), since a checkpoint's fsyncs may block, and the commit that
    /// starts a new log (which syncs its header) runs there too. Only with `.exclusive` ``lockingMode`` (no other
    /// connection to wait for) and the `.off` and `.normal` ``synchronous`` levels (no fsync per commit); ignored
    /// otherwise. Default false.
    public var runsUncontendedWorkInline: Bool
    /// The page size, in bytes, of a database this connection creates (`PRAGMA page_size`): a power of two from 512
    /// to 65,536. Every commit writes whole pages to the write-ahead log, so a database of small rows that is written
    /// often writes fewer bytes with smaller pages; large rows spill into more overflow pages. nil keeps SQLite's
    /// default (4,096). A database that exists already keeps its own.
    public var pageSize: Int?
    /// What a database file that does not exist yet starts as (see ``DatabaseImage``); nil, the default, creates it
    /// empty. An existing file is opened as it is.
    package var newFileImage: DatabaseImage?

    /// A configuration; every parameter has the default documented on its property.
    public init(
        synchronous: SynchronousMode = .normal,
        busyTimeout: Duration = .seconds(5),
        foreignKeys: Bool = true,
        createsOwnerOnlyFile: Bool = true,
        statementCacheCapacity: Int = 64,
        statementCacheAdmission: StatementCacheAdmission = .firstUse,
        lockingMode: LockingMode = .normal,
        walAutoCheckpointPages: Int? = nil,
        journalSizeLimit: Int? = nil,
        keepsWriteAheadLogFile: Bool = false,
        maxLogPagesLeftOnClose: Int = 0,
        runsUncontendedWorkInline: Bool = false,
        pageSize: Int? = nil
    ) {
        self.synchronous = synchronous
        self.busyTimeout = busyTimeout
        self.foreignKeys = foreignKeys
        self.createsOwnerOnlyFile = createsOwnerOnlyFile
        self.statementCacheCapacity = statementCacheCapacity
        self.statementCacheAdmission = statementCacheAdmission
        self.lockingMode = lockingMode
        self.walAutoCheckpointPages = walAutoCheckpointPages
        self.journalSizeLimit = journalSizeLimit
        self.keepsWriteAheadLogFile = keepsWriteAheadLogFile
        self.maxLogPagesLeftOnClose = max(0, maxLogPagesLeftOnClose)
        self.runsUncontendedWorkInline = runsUncontendedWorkInline
        self.pageSize = pageSize
    }

    /// The page sizes SQLite accepts.
    static let validPageSizes: Set<Int> = Set((9...16).map { 1 << $0 })

    /// Whether work may run on the caller's thread: asked for, and commits never fsync.
    var allowsInlineWork: Bool {
        runsUncontendedWorkInline && lockingMode == .exclusive && (synchronous == .off || synchronous == .normal)
    }

    /// The busy timeout in whole milliseconds, as `sqlite3_busy_timeout` takes it.
    var busyTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow, seconds >= 0 else { return seconds < 0 ? 0 : Int32.max }
        let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}

/// When a statement run through ``Database/execute(sql:arguments:)`` or a fetch method enters the statement cache.
///
/// A cached statement costs a few KiB for as long as the connection is open. A connection that runs many
/// statements once (a start-up, a migration) and a few often keeps less with `.repeatedUse`, at the price of one
/// more compilation for each statement that does repeat.
public enum StatementCacheAdmission: Sendable, Hashable {
    /// Every statement is cached when it first runs.
    case firstUse
    /// A statement is cached when it runs for the second time; run once, it is compiled, run and finalized.
    case repeatedUse
}
