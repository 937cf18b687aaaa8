import CSQLite
import Dispatch
import Synchronization

/// A database reached from async code: one connection, used by one closure at a time on a serial dispatch queue
/// of its own.
///
/// Every read and write is a closure that runs on that queue, one at a time, not on Swift's cooperative
/// thread pool, so blocking SQLite calls (disk I/O, busy waits, fsync) never stall other tasks. The caller
/// suspends until its closure has run; once queued, a closure runs to completion even if the calling task
/// is cancelled, so a write is never half-done. The ``Database`` passed to a closure must not escape it.
///
/// With ``DatabaseConfiguration/runsUncontendedWorkInline`` (exclusive locking, WAL commits without fsync), a
/// call that finds the connection open and nothing queued runs its closure at once on the caller's thread, still
/// one at a time; the queue's thread keeps what may block: opening, checkpoints, the commit that starts a new
/// log, closing, and any call that finds the connection busy.
///
/// With a ``DatabaseDormancy`` policy the queue closes its connection after a while without use (or when a
/// ``ConnectionBudget`` needs the slot for another queue) and reopens it on its next use, on its own queue.
///
/// ```swift
/// let queue = try await DatabaseQueue(path: path)
/// try await migrator.migrate(queue)
/// let id = try await queue.write { db in
///     try db.execute(sql: "INSERT INTO outbox (body) VALUES (?)", arguments: [body])
///     return db.lastInsertRowID
/// }
/// ```
public final class DatabaseQueue: Sendable {
    /// The path of the database file, or `:memory:`.
    public let path: String
    /// The configuration the database was opened with.
    public let configuration: DatabaseConfiguration
    /// When the connection is released while unused; nil keeps it open until ``close()``.
    public let dormancy: DatabaseDormancy?
    private let dispatchQueue: DispatchQueue
    /// The shared worker `dispatchQueue` runs on, if any: a repeated call goes back through it between runs, so
    /// that the other databases on that worker get their turns.
    private let worker: DispatchQueue?
    /// The connection, locked by whoever uses it: a closure on the dispatch queue, or a call running inline.
    private let connection: ConnectionCell
    /// Calls sent to the dispatch queue and not finished: a call runs inline only when there are none, so that
    /// it never overtakes one queued before it.
    private let dispatchedCalls = Atomic<Int>(0)
    /// Whether a checkpoint is queued on the dispatch queue: the commits made while it waits find the log still
    /// due, and one checkpoint is enough for all of them.
    private let checkpointQueued = Atomic<Bool>(false)
    private let allowsInlineWork: Bool
    private let openingCreatedFile = Atomic<Bool>(false)
    /// What the queue is doing, readable from any thread: the idle checks and the budget decide with it.
    let activity: Mutex<Activity>

    /// The queue's use of its connection, as seen from outside the dispatch queue.
    struct Activity {
        /// Calls between their start and their end (waiting for a budget slot, queued, or running).
        var pendingWork = 0
        /// When the latest call started or ended.
        var lastUse: ContinuousClock.Instant
        /// Whether the queue may hold an open connection: with a budget, whether it holds a slot. Cleared when
        /// the connection is released, before it is closed, so that a new call knows to ask again.
        var mayBeOpen = false
        /// Whether the connection was left inside a transaction by the latest closure (one managed by hand).
        var inTransaction = false
        /// Whether an idle check is scheduled on the dispatch queue.
        var idleCheckScheduled = false
        /// Whether the connection may hold statements and pages from a call since its memory was last released.
        var holdsMemory = false
        /// Whether a check for ``DatabaseDormancy/memoryReleaseDelay`` is scheduled on the dispatch queue.
        var memoryCheckScheduled = false
        /// How many times the connection was released while idle or evicted (for inspection and tests).
        var releases = 0
        /// How many memory checks found the connection unused for the delay but kept its statements and pages,
        /// because work was queued or a transaction open (for tests).
        var memoryKeptInUse = 0
        /// How many times the delay freed the connection's statements and pages (for inspection and tests).
        var memoryReleases = 0

        /// How long until the connection will have been unused for `limit` (all of `limit` again if it already
        /// has been: it was in use at the check).
        func remainingIdle(until limit: Duration) -> Duration {
            let idle = ContinuousClock.now - lastUse
            return idle < limit ? limit - idle : limit
        }
    }

    /// Opens (creating if needed) the database file at `path`; see ``Database/init(path:configuration:)``
    /// for the errors. With `dormancy`, the connection is released after ``DatabaseDormancy/idleTimeout``
    /// without use and reopened transparently; opening it counts against the policy's budget, if any. With
    /// `workers`, the queue's work runs on one of their threads instead of a thread of its own.
    public init(
        path: String, configuration: DatabaseConfiguration = DatabaseConfiguration(), dormancy: DatabaseDormancy? = nil,
        workers: DatabaseWorkers? = nil
    ) async throws {
        self.path = path
        self.configuration = configuration
        self.dormancy = (path.isEmpty || path == ":memory:") ? nil : dormancy
        self.worker = workers?.nextQueue()
        self.dispatchQueue = DispatchQueue(label: "SQLite \(path)", target: worker)
        self.connection = ConnectionCell()
        self.allowsInlineWork = configuration.allowsInlineWork
        self.activity = Mutex(Activity(lastUse: .now))
        let created = try await withDatabase { $0.createdFromImage }
        openingCreatedFile.store(created, ordering: .relaxed)
    }

    /// Whether the first opening created the file, from ``DatabaseConfiguration/newFileImage``.
    package var createdFileFromImage: Bool {
        openingCreatedFile.load(ordering: .relaxed)
    }

    /// Opens a new, empty in-memory database.
    public static func inMemory(configuration: DatabaseConfiguration = DatabaseConfiguration()) async throws -> DatabaseQueue {
        try await DatabaseQueue(path: ":memory:", configuration: configuration)
    }

    deinit {
        dormancy?.budget?.forget(ObjectIdentifier(self))
        // Close on the queue, after any work still queued, so that closing's checkpoint I/O blocks no caller.
        dispatchQueue.async { [connection] in
            connection.slot.withLock { _ = $0.close() }
        }
    }

    /// Runs `body` in a read-only transaction (a consistent snapshot; writes fail with
    /// ``ResultCode/readOnly``) and returns its result.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withDatabase { db in try db.readOnlyTransaction(body) }
    }

    /// Runs `body` in an immediate transaction: committed when it returns, rolled back when it throws
    /// (the error is rethrown).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withDatabase { db in try db.transaction(.immediate, body) }
    }

    /// Runs `body` outside any transaction: for statements that cannot run in one (`VACUUM`, some PRAGMAs,
    /// migrations), or to manage transactions by hand with ``Database/transaction(_:_:)``.
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withDatabase(body)
    }

    /// Runs `pass` outside any transaction on the dispatch queue, never inline, again and again while it returns
    /// true, and returns once it returns false (or throws, with its error). For a consumer of many writes that
    /// should keep the database's thread busy while its producers go on on theirs, without a hop back to its
    /// caller between batches.
    ///
    /// A checkpoint a pass left due runs right after it; calls queued meanwhile run between two passes (none runs
    /// inline until the passes end), and so do the other databases of a shared ``DatabaseWorkers`` worker. After
    /// ``close()``, the next pass is not run and this throws ``DatabaseError/closed``.
    public func writePasses(_ pass: @escaping @Sendable (Database) throws -> Bool) async throws {
        _ = try await withDatabase(inline: false, repeatingWhile: { $0 }, pass)
    }

    /// Closes the database after the work already queued. Later calls throw ``DatabaseError/closed``.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            dispatchQueue.async { [connection] in
                connection.slot.withLock { slot in
                    slot.isClosed = true
                    slot.close()
                }
                continuation.resume()
            }
        }
        if let budget = dormancy?.budget {
            budget.relinquish(self)
        } else {
            activity.withLock { $0.mayBeOpen = false }
        }
    }

    /// Frees the open connection's cached statements and unused cache pages after the work already queued (see
    /// ``Database/releaseMemory()``), keeping it open. Does nothing while it is dormant or closed: it never opens
    /// the connection to trim it.
    public func releaseMemory() async {
        // Like any short work, at once on the caller's thread when nothing (a checkpoint included) is queued and the
        // connection is free.
        if !checkpointQueued.load(ordering: .acquiring), runInlineErased({ $0.releaseMemory() }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // No `malloc_trim` here, unlike after closing a connection: what this frees is small and soon reused,
            // and a trim of a large heap after every bot's synchronization cost a reconnect storm ~3 % of its CPU.
            dispatchQueue.async { [connection] in
                connection.slot.withLock { $0.database?.releaseMemory() }
                continuation.resume()
            }
        }
    }

    /// Whether the connection is open now (false while dormant, and after ``close()``). Runs on the queue.
    public var isConnectionOpen: Bool {
        get async {
            await withCheckedContinuation { continuation in
                dispatchQueue.async { [connection] in continuation.resume(returning: connection.slot.withLock { $0.database != nil }) }
            }
        }
    }

    /// How many times the connection was released while idle or evicted by the budget.
    public var releaseCount: Int {
        activity.withLock { $0.releases }
    }

    /// Releases the connection now if nothing is queued on it and no transaction is open, as the idle timeout
    /// would; returns whether it did. The next call reopens it. Only for a queue with a ``dormancy`` policy.
    @discardableResult
    public func releaseConnectionIfIdle() async -> Bool {
        guard dormancy != nil else { return false }
        return await withCheckedContinuation { continuation in
            dispatchQueue.async { [self] in
                continuation.resume(returning: releaseIfIdle(minimumIdle: .zero))
            }
        }
    }

    // MARK: - Running work

    /// Runs `body` inline when `inline` allows it and ``runInline(_:)`` can, else on the dispatch queue, where
    /// it runs again (after whatever was queued meanwhile) as long as `repeatingWhile` holds for its result.
    private func withDatabase<T: Sendable>(
        inline: Bool = true, repeatingWhile: (@Sendable (T) -> Bool)? = nil, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        guard let dormancy else {
            if inline, let result = runInline(body) { return try result.get() }
            return try await dispatch(body, repeatingWhile: repeatingWhile).get()
        }
        let needsSlot = activity.withLock { activity -> Bool in
            activity.pendingWork += 1
            activity.lastUse = .now
            activity.holdsMemory = true
            guard !activity.mayBeOpen else { return false }
            if dormancy.budget == nil { activity.mayBeOpen = true }
            return dormancy.budget != nil
        }
        if needsSlot, let budget = dormancy.budget {
            await budget.acquire(for: self)
        }
        let tracked: @Sendable (Database) throws -> T = { [self] database in
            defer {
                let inTransaction = database.isInTransaction
                self.activity.withLock { $0.inTransaction = inTransaction }
            }
            return try body(database)
        }
        let result: Result<T, any Error>
        if inline, let ran = runInline(tracked) {
            result = ran
        } else {
            result = await dispatch(tracked, repeatingWhile: repeatingWhile)
        }
        finishWork(dormancy)
        return try result.get()
    }

    /// Runs `body` now, on the caller's thread and outside any transaction, when it can run inline: inline work is
    /// allowed, the connection is open and free, and nothing is queued before it. Nil, with nothing run, otherwise:
    /// the caller then goes through ``writeWithoutTransaction(_:)``. For a caller that has nothing to wait for but
    /// the database, this saves suspending and resuming.
    @inlinable
    public func writeInlineIfFree<T: Sendable>(_ body: @Sendable (Database) throws -> T) -> Result<T, any Error>? {
        var result: Result<T, any Error>?
        guard writeInlineIfFreeErased({ database in result = Result { try body(database) } }) else { return nil }
        return result
    }

    /// ``writeInlineIfFree(_:)`` without its result type: whether `body` ran. Not generic, and the generic part
    /// inlinable, so that a caller in another module does not look up its result's type metadata at every write.
    @usableFromInline
    func writeInlineIfFreeErased(_ body: (Database) -> Void) -> Bool {
        guard allowsInlineWork else { return false }
        guard let dormancy else { return runInlineErased(body) }
        let isOpen = activity.withLock { activity -> Bool in
            guard activity.mayBeOpen else { return false }
            activity.pendingWork += 1
            activity.lastUse = .now
            activity.holdsMemory = true
            return true
        }
        guard isOpen else { return false }
        let ran = runInlineErased { database in
            body(database)
            let inTransaction = database.isInTransaction
            self.activity.withLock { $0.inTransaction = inTransaction }
        }
        finishWork(dormancy)
        return ran
    }

    /// Runs `body` on the caller's thread if inline work is allowed, the connection is open, nothing is queued
    /// before it and no one holds the connection; nil when it must go through the dispatch queue instead.
    private func runInline<T: Sendable>(_ body: @Sendable (Database) throws -> T) -> Result<T, any Error>? {
        var result: Result<T, any Error>?
        guard runInlineErased({ database in result = Result { try body(database) } }) else { return nil }
        return result
    }

    /// ``runInline(_:)`` without its result type: whether `body` ran.
    private func runInlineErased(_ body: (Database) -> Void) -> Bool {
        guard allowsInlineWork, dispatchedCalls.load(ordering: .acquiring) == 0 else { return false }
        let checkpointDue = connection.slot.withLockIfAvailable { slot -> Bool? in
            guard !slot.isClosed, let database = slot.database, !database.nextCommitMaySync else { return nil }
            body(database)
            return database.isCheckpointDue
        }
        guard case let due?? = checkpointDue else { return false }
        if due, !checkpointQueued.exchange(true, ordering: .acquiringAndReleasing) {
            dispatchQueue.async { [self] in checkpoint() }
        }
        return true
    }

    /// Runs `body` on the dispatch queue, opening the connection first if it is not open, and again (after what was
    /// queued meanwhile, on this queue and on its shared worker) while `repeatingWhile` holds for its result. A
    /// checkpoint a run left due runs before the next run, or after the caller has its result.
    private func dispatch<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T, repeatingWhile: (@Sendable (T) -> Bool)? = nil
    ) async -> Result<T, any Error> {
        dispatchedCalls.add(1, ordering: .relaxed)
        return await withCheckedContinuation { continuation in
            dispatchRun(body, repeatingWhile: repeatingWhile, continuation: continuation)
        }
    }

    private func dispatchRun<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T, repeatingWhile: (@Sendable (T) -> Bool)?,
        continuation: CheckedContinuation<Result<T, any Error>, Never>
    ) {
        dispatchQueue.async { [self] in
            let (result, checkpointDue) = connection.slot.withLock { slot -> (Result<T, any Error>, Bool) in
                let result = Result { () throws -> T in
                    guard !slot.isClosed else { throw DatabaseError.closed }
                    if slot.database == nil {
                        let database = try Database(
                            path: self.path, configuration: self.configuration, leavesCheckpointsToQueue: true,
                            opening: slot.hasOpened ? .again(slot.openedFile) : .first)
                        if !slot.hasOpened { slot.openedFile = database.fileIdentity }
                        slot.database = database
                        slot.hasOpened = true
                    }
                    guard let database = slot.database else { throw DatabaseError.closed }
                    return try body(database)
                }
                return (result, slot.database?.isCheckpointDue ?? false)
            }
            if case .success(let value) = result, let repeatingWhile, repeatingWhile(value) {
                if checkpointDue { checkpoint() }
                // Straight back onto its own queue, a database would keep a shared worker to itself.
                if let worker {
                    worker.async { self.dispatchRun(body, repeatingWhile: repeatingWhile, continuation: continuation) }
                } else {
                    dispatchRun(body, repeatingWhile: repeatingWhile, continuation: continuation)
                }
                return
            }
            dispatchedCalls.subtract(1, ordering: .releasing)
            continuation.resume(returning: result)
            if checkpointDue { checkpoint() }
        }
    }

    /// Checkpoints the write-ahead log if it is still due, on the dispatch queue.
    ///
    /// The log is flushed to disk first WITHOUT holding the connection: a checkpoint begins by syncing the log,
    /// which is most of its time, and commits that run inline meanwhile would wait for the connection. So SQLite's own
    /// sync finds only the frames of the commits made during the flush, and inline commits wait for the copy into the
    /// database and its (short) sync only. `checkpointQueued` is cleared only once the log is no longer due, so those
    /// commits queue no second pass.
    private func checkpoint() {
        let (isDue, log) = connection.slot.withLock { slot -> (Bool, String?) in
            guard let database = slot.database, database.isCheckpointDue else {
                checkpointQueued.store(false, ordering: .releasing)
                return (false, nil)
            }
            return (true, configuration.synchronous == .off ? nil : database.writeAheadLogPath)
        }
        guard isDue else { return }
        // A failed flush changes nothing: the checkpoint syncs the log itself and reports its own errors.
        if let log { DatabaseFile.flushToDisk(at: log) }
        connection.slot.withLock { slot in
            slot.database?.checkpointIfDue()
            checkpointQueued.store(false, ordering: .releasing)
        }
    }

    /// Ends a call: schedules the idle check if none is, and offers the slot to the budget's waiters.
    private func finishWork(_ dormancy: DatabaseDormancy) {
        let (schedulesCheck, schedulesMemoryCheck, isIdle) = activity.withLock { activity -> (Bool, Bool, Bool) in
            activity.pendingWork -= 1
            activity.lastUse = .now
            let schedules = !activity.idleCheckScheduled && activity.mayBeOpen
            if schedules { activity.idleCheckScheduled = true }
            let schedulesMemory = dormancy.memoryReleaseDelay != nil && !activity.memoryCheckScheduled && activity.mayBeOpen
            if schedulesMemory { activity.memoryCheckScheduled = true }
            return (schedules, schedulesMemory, activity.pendingWork == 0)
        }
        if isIdle, let budget = dormancy.budget {
            budget.workFinished(self)
        }
        if schedulesCheck {
            scheduleIdleCheck(after: dormancy.idleTimeout)
        }
        if schedulesMemoryCheck, let delay = dormancy.memoryReleaseDelay {
            scheduleMemoryCheck(after: delay)
        }
    }

    /// After `delay`, frees the connection's statements and page cache if it has been unused for the dormancy's
    /// `memoryReleaseDelay`, nothing is queued and no transaction is open; otherwise checks again when it may be.
    private func scheduleMemoryCheck(after delay: Duration) {
        dispatchQueue.asyncAfter(deadline: .now() + .nanoseconds(Self.nanoseconds(delay))) { [weak self] in
            guard let self, let releaseDelay = self.dormancy?.memoryReleaseDelay else { return }
            let (releases, recheck) = self.activity.withLock { activity -> (Bool, Duration?) in
                activity.memoryCheckScheduled = false
                guard activity.holdsMemory, activity.mayBeOpen else { return (false, nil) }
                let unusedLongEnough = ContinuousClock.now - activity.lastUse >= releaseDelay
                if activity.pendingWork == 0, !activity.inTransaction, unusedLongEnough {
                    activity.holdsMemory = false
                    return (true, nil)
                }
                activity.memoryCheckScheduled = true
                if unusedLongEnough { activity.memoryKeptInUse += 1 }
                return (false, activity.remainingIdle(until: releaseDelay))
            }
            // On the dispatch queue, holding the connection: a call queued since the decision runs after this, and
            // one that would run inline goes to the queue instead.
            if releases {
                self.connection.slot.withLock { $0.database?.releaseMemory() }
                self.activity.withLock { $0.memoryReleases += 1 }
            }
            if let recheck { self.scheduleMemoryCheck(after: recheck) }
        }
    }

    private static func nanoseconds(_ delay: Duration) -> Int {
        max(1_000_000, Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000))
    }

    private func scheduleIdleCheck(after delay: Duration) {
        dispatchQueue.asyncAfter(deadline: .now() + .nanoseconds(Self.nanoseconds(delay))) { [weak self] in
            guard let self, let dormancy = self.dormancy else { return }
            self.activity.withLock { $0.idleCheckScheduled = false }
            if !self.releaseIfIdle(minimumIdle: dormancy.idleTimeout) {
                let recheck = self.activity.withLock { activity -> Duration? in
                    guard activity.mayBeOpen, !activity.idleCheckScheduled else { return nil }
                    activity.idleCheckScheduled = true
                    return activity.remainingIdle(until: dormancy.idleTimeout)
                }
                if let recheck { self.scheduleIdleCheck(after: recheck) }
            }
        }
    }

    /// Closes the connection if it has been unused for `minimumIdle`, nothing is queued and no transaction is
    /// open; gives its budget slot back. Runs on the dispatch queue.
    private func releaseIfIdle(minimumIdle: Duration) -> Bool {
        dispatchPrecondition(condition: .onQueue(dispatchQueue))
        // No `database` check: a queue whose reopening failed holds a slot without a connection, and gives it back
        // the same way.
        func decide(_ activity: inout Activity) -> Bool {
            guard activity.mayBeOpen, activity.pendingWork == 0, !activity.inTransaction,
                ContinuousClock.now - activity.lastUse >= minimumIdle
            else { return false }
            activity.mayBeOpen = false
            activity.releases += 1
            return true
        }
        // Deciding and closing under the connection's lock: a call that runs inline between the two would
        // otherwise lose its connection (and a transaction it opened) to the close.
        let (released, closed) = connection.slot.withLock { slot -> (Bool, Bool) in
            let released: Bool
            if let budget = dormancy?.budget {
                released = budget.release(self, decide)
            } else {
                released = activity.withLock { activity in decide(&activity) }
            }
            return (released, released && slot.close())
        }
        if closed { returnFreedMemory() }
        return released
    }

    /// Closes the connection of a queue the budget took the slot from, unless the queue got a slot back since.
    func closeEvictedConnection() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            dispatchQueue.async { [self] in
                let closed = connection.slot.withLock { slot in
                    !activity.withLock({ $0.mayBeOpen }) && slot.close()
                }
                if closed { returnFreedMemory() }
                continuation.resume()
            }
        }
    }

    private func returnFreedMemory() {
        if dormancy?.returnsFreedMemory == true {
            FreedMemory.returnSoon()
        }
    }
}

/// The lock around a queue's connection, in a class of its own so that `deinit` can hand it to the dispatch queue.
private final class ConnectionCell: Sendable {
    let slot = Mutex(ConnectionSlot())
}

/// A queue's connection, reached only under its lock. Opening and closing happen on the queue's dispatch queue.
private struct ConnectionSlot {
    var database: Database?
    var isClosed = false
    /// Whether the connection was opened once: opening it again after going dormant creates no file, and takes
    /// only the file it had open (`openedFile`), not another moved or renamed to its path meanwhile.
    var hasOpened = false
    var openedFile: FileIdentity?

    /// Closes the connection if one is open; returns whether one was.
    @discardableResult
    mutating func close() -> Bool {
        guard let database else { return false }
        database.close()
        self.database = nil
        return true
    }
}

/// Gives memory freed by released connections back to the system, at most once a second for the whole process:
/// one `malloc_trim` after a burst of releases rather than one each.
enum FreedMemory {
    private static let isScheduled = Atomic<Bool>(false)

    static func returnSoon() {
        guard isScheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .seconds(1)) {
            isScheduled.store(false, ordering: .releasing)
            _ = csqlite_return_freed_memory()
        }
    }
}
