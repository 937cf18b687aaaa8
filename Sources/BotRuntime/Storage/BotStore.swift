import ChatterBots
import Foundation
import SQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable memory of one bot: its device session, conversation cursors, seen messages, outbox,
/// state, schedules and dialogs, in one SQLite file of its own (WAL, mode 0600).
///
/// Every operation is awaited on the database's own serial queue; what may block (opening, checkpoints, the
/// commit that starts a new log) runs on its worker thread, while a short call finding the store idle runs at
/// once on the calling task (`runsUncontendedWorkInline`: a commit with WAL and `synchronous=NORMAL` is a write
/// to the page cache). The hot path (admitting incoming messages, committing handler units, recording acks) goes
/// through the store's one ``StoreWriter``: writes that arrive while a transaction runs are committed together in
/// the next one, so a single awaited write is shared by every message ready at once.
///
/// ## Durability: WAL with `synchronous = NORMAL`
///
/// A commit appends its pages to the write-ahead log with `write(2)` before `COMMIT` returns; the log is
/// fsynced only at checkpoints. So:
/// - A crash of the process (SIGKILL, a trap, the OOM killer) loses NO committed transaction: the log is in the
///   operating system's page cache and the next open replays it. A transaction in progress is rolled back whole.
/// - A power loss or kernel crash can lose the newest commits since the last checkpoint, always a suffix in
///   commit order, each one whole: never half a unit, never a hole before a surviving commit. The file is never
///   corrupted. What that costs is bounded by the design, not by luck: a lost handler unit means its message is
///   handled again after the restart and its sends get the same derived clientMessageIds, so the service returns
///   the replies it already created instead of new ones; a lost ack means the entry is resent with the same
///   clientMessageId and acknowledged again. `docs/storage.md` lists every case.
/// `FULL` would fsync the log at every (group) commit to close that window; pass `synchronous: .full` where
/// a power loss must not even repeat work.
package final class BotStore: Sendable {
    /// The path of the store's database file.
    public let path: String
    let queue: DatabaseQueue
    /// Keeps the store to this object until ``close()`` (or its end), dormant or not.
    private let lock: StoreLock
    /// Whether the outbox sends on a live connection now: commits made meanwhile record their entries' first send.
    let outboxLiveness = OutboxLiveness()
    let clock: any ChatterClock
    let memory = CursorMemory()
    /// Failures tests inject (none otherwise).
    let faults: StoreFaults
    /// The one writer of the hot path, handler lanes included.
    let writer: StoreWriter
    /// How the runtime derives the clientMessageIds of this store's bot: recorded in the file by its first version
    /// with time-ordered keys, read once at open and never changed.
    public let clientMessageIDDerivation: ClientMessageIDDerivation
    /// Whether opening wrote the store's file, from ``BotStoreSchema/newStoreImage``: it held nothing at the open.
    let isNew: Bool

    /// The migrations every store file goes through, in order.
    public static var migrationNames: [String] { BotStoreSchema.migrator.migrationNames }

    /// Opens (creating if needed) the store at `path`, applies pending migrations, makes the file and its
    /// `-wal` companion readable by the owner only, and puts back on the schedule any job occurrence that was
    /// running when the process last stopped.
    ///
    /// The file is opened in exclusive locking mode: a store belongs to one bot in one process, so its connection
    /// keeps the file's lock (and WAL keeps its index in memory, with no `-shm` file: an open store holds two file
    /// descriptors). Other SQLite connections (`sqlite3` in another process) find the file locked; a program that
    /// opens it while the store is dormant fails at the bot's next use with `.lockedByAnotherConnection`.
    ///
    /// Before the file is opened, the store's ``StoreLock`` is taken and kept until ``close()``, dormant or not: a store
    /// open elsewhere, another process running the same bot or this process having opened it already, is refused
    /// with ``BotStoreError/inUse(path:inThisProcess:)`` before anything is read or written. A store exported to
    /// another place (``StoreTransfer``) is refused with ``BotStoreError/moved(path:file:movedAt:)``.
    ///
    /// - Parameters:
    ///   - clock: the time written into records (`createdAt`, `handledAt`, `ackedAt`, …).
    ///   - synchronous: `.normal` (the default) or `.full`; see the type's documentation.
    ///   - dormancy: when the store closes its connection while the bot is idle (it reopens on the next use,
    ///     and the exclusive lock is let go meanwhile); nil keeps it open until ``close()``.
    ///   - workers: the threads the store's SQLite work runs on, shared with other stores; nil gives the store a
    ///     thread of its own while it works.
    ///   - admitsMovedStore: opens a store marked as moved too (what exporting and importing do).
    public static func open(
        path: String, clock: any ChatterClock = SystemClock(), synchronous: SynchronousMode = .normal,
        dormancy: DatabaseDormancy? = nil, workers: DatabaseWorkers? = nil, faults: StoreFaults? = nil,
        admitsMovedStore: Bool = false
    ) async throws(BotStoreError) -> BotStore {
        let lock: StoreLock
        do {
            lock = try StoreLock.acquire(storePath: path)
        } catch {
            throw error.storeError(path: path)
        }
        // Checkpoint at SQLite's 1000 log pages (2 MiB in a new store, 4 MiB in one made with 4 KiB pages). The
        // checkpoint runs on the store's queue, so every operation of the bot waits for it: at 8192 pages each one
        // held the queue ~25 ms and set the p99 of a reply at 1,000 msg/s (at 1000 pages, 3 ms).
        // After a checkpoint the log is truncated to 64 MiB at most. Both are set again whenever a dormant store
        // reopens, with the rest of the configuration.
        // A dormant store closes and reopens often: its emptied -wal file stays, rather than a file deleted and
        // created each time (with 10,000 bots, ext4's inode allocation was the fleet's top cost in a reconnect storm),
        // and a log of up to 128 pages (256 KiB) stays uncheckpointed at close: a store closed after a reconnect's
        // few writes no longer copies them into the file and syncs it (~10 % of the fleet's CPU in that storm).
        // A start-up runs ~40 statements once and a live bot ~10 again and again: caching only what repeats keeps
        // the one-off ones (~4 KiB each) from piling up while 1,000 bots start together.
        var configuration = DatabaseConfiguration(
            synchronous: synchronous, createsOwnerOnlyFile: true, statementCacheCapacity: 96,
            statementCacheAdmission: .repeatedUse, lockingMode: .exclusive,
            walAutoCheckpointPages: 1000, journalSizeLimit: 67_108_864, keepsWriteAheadLogFile: true,
            maxLogPagesLeftOnClose: 128,
            runsUncontendedWorkInline: true, pageSize: BotStoreSchema.pageSize)
        // A new store starts as the image of a migrated one: making the schema in the file (parsing each table's SQL
        // again and again, committing it through a new log, switching the file to WAL) was a third of a thousand
        // bots' start-up CPU. Where the file system cannot, opening creates an empty file and the migrations run.
        configuration.newFileImage = BotStoreSchema.newStoreImage
        let queue: DatabaseQueue
        let derivation: ClientMessageIDDerivation
        let isNew: Bool
        var opened: DatabaseQueue?
        do {
            queue = try await DatabaseQueue(
                path: lock.storePath, configuration: configuration, dormancy: dormancy, workers: workers)
            opened = queue
            isNew = queue.createdFileFromImage
            // A store this open made from the image has every migration, owner-only files, no move recorded and no
            // job left running: only what it derives client message ids from is read.
            if !isNew {
                try await BotStoreSchema.migrator.migrate(queue)
            }
            derivation = try await queue.writeWithoutTransaction { db in
                if !isNew {
                    Self.restrictToOwner(path: lock.storePath)
                    if !admitsMovedStore, let move = try StoreMove.recorded(in: db) {
                        throw BotStoreError.moved(path: path, file: move.file, movedAt: move.movedAt)
                    }
                    try db.execute(sql: "UPDATE scheduled_jobs SET status = 'scheduled' WHERE status = 'running'")
                }
                return try Self.clientMessageIDDerivation(in: db)
            }
        } catch {
            await opened?.close()
            lock.release()
            throw BotStoreError(error, during: "open the store at \(path)")
        }
        return BotStore(
            path: path, queue: queue, lock: lock, clock: clock, clientMessageIDDerivation: derivation, isNew: isNew,
            faults: faults ?? StoreFaults())
    }

    /// Whether the store's database connection is open now: false while the store is dormant (see
    /// `dormancy` in ``open(path:clock:synchronous:dormancy:)``) and after ``close()``.
    public var isConnectionOpen: Bool {
        get async { await queue.isConnectionOpen }
    }

    /// Makes the store dormant now if nothing is queued on it and no transaction is open, as its idle timeout would;
    /// returns whether it did. Only with a `dormancy` policy.
    @discardableResult
    package func releaseConnectionIfIdle() async -> Bool {
        await queue.releaseConnectionIfIdle()
    }

    private init(
        path: String, queue: DatabaseQueue, lock: StoreLock, clock: any ChatterClock,
        clientMessageIDDerivation: ClientMessageIDDerivation, isNew: Bool, faults: StoreFaults
    ) {
        self.isNew = isNew
        self.lock = lock
        self.path = path
        self.faults = faults
        self.queue = queue
        self.clock = clock
        self.clientMessageIDDerivation = clientMessageIDDerivation
        self.writer = StoreWriter(
            queue: queue, clock: clock, memory: memory, outboxLiveness: outboxLiveness, faults: faults)
    }

    /// The derivation the migrations recorded in `db`; name-based for every trigger if the record is missing (only a
    /// damaged or hand-edited file lacks it): the keys an older version derived, the safe guess for an upgraded
    /// store, though a fresh store that lost the record would then key its newer messages differently.
    private static func clientMessageIDDerivation(in db: Database) throws -> ClientMessageIDDerivation {
        let since = try db.fetchOne(
            Int64.self, sql: "SELECT value FROM store_metadata WHERE key = ?",
            arguments: [BotStoreSchema.timeOrderedClientMessageIDsSinceKey])
        return since.map(ClientMessageIDDerivation.init(timeOrderedSinceMilliseconds:)) ?? .nameBased
    }

    /// Frees the statements and cache pages the connection kept from its last burst of work (a start-up's sign-in
    /// and synchronization, a pruning pass), after the work already queued. Later operations prepare what they
    /// need again; a dormant store stays closed.
    public func releaseMemory() async {
        await queue.releaseMemory()
    }

    /// Closes the database after the work already queued, then lets the store's lock go; later operations fail with a
    /// storage error.
    public func close() async {
        await queue.close()
        lock.release()
    }

    /// Clears group and other permission bits of the store's files, so that tokens and messages stay private
    /// even in a file created by an older version or copied in. Runs on the database queue.
    private static func restrictToOwner(path: String) {
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            if stat(file, &status) == 0, status.st_mode & 0o077 != 0 {
                _ = chmod(file, status.st_mode & 0o700)
            }
        }
    }

    // MARK: - Running work on the database queue

    /// Runs `body` in a read-only transaction.
    func read<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(BotStoreError) -> T {
        do {
            return try await queue.read(body)
        } catch {
            throw BotStoreError(error, during: operation)
        }
    }

    /// Runs `body` in one write transaction.
    func write<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(BotStoreError) -> T {
        do {
            return try await queue.write(body)
        } catch {
            throw BotStoreError(error, during: operation)
        }
    }

    /// Runs `body` in one write transaction with a cursor workspace: cursors are written before the commit,
    /// and handed-out marks are published after it.
    func writeWithCursors<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (CursorWorkspace) throws -> T
    ) async throws(BotStoreError) -> T {
        do {
            return try await queue.writeWithoutTransaction { db in
                try CursorWorkspace.run(db, now: self.clock.now, memory: self.memory, body)
            }
        } catch {
            throw BotStoreError(error, during: operation)
        }
    }

    /// Submits a hot-path write to the store's writer; its own result once its transaction committed.
    func submit<Output>(_ write: StoreWrite<Output>, _ operation: String) async throws(BotStoreError) -> Output {
        do {
            return try await writer.submit(write)
        } catch {
            throw BotStoreError(error, during: operation)
        }
    }

    /// Commits a hot-path write at once on the caller's thread when the writer and the connection are free (see
    /// ``StoreWriter/writeInline(_:)``); nil, with nothing written, when it must wait its turn.
    func writeInline<Output>(_ write: StoreWrite<Output>, _ operation: String) -> Result<Output, BotStoreError>? {
        writer.writeInline(write)?.mapError { BotStoreError($0, during: operation) }
    }
}
