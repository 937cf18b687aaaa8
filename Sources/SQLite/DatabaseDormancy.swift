/// When a ``DatabaseQueue`` lets go of its connection while nobody uses it, to be opened again on the next use.
///
/// A process holding thousands of databases (one per bot) rarely uses most of them at any moment; an open
/// connection costs its file descriptors (the file, its `-wal`, and in normal locking mode its `-shm`), its
/// compiled statements and its page cache. A dormant queue holds none of these: its next read or write reopens
/// the file on the queue's own thread, with the same configuration, before running. Nothing changes for callers
/// but the latency of that first call (one open, a few hundred microseconds).
///
/// Before that, a connection unused for ``memoryReleaseDelay`` frees its compiled statements and page cache and
/// stays open (its lock and descriptors): the next call compiles what it runs and reads its pages back from the
/// operating system's cache, some hundred microseconds, where reopening costs an open and the schema.
///
/// A connection is never released while work is queued on it or while a transaction is open on it.
public struct DatabaseDormancy: Sendable {
    /// How long a connection stays open after its last use. The time is the process's monotonic clock, not a
    /// virtual one: this is resource management, not behaviour.
    public var idleTimeout: Duration
    /// How long a connection keeps its compiled statements and page cache after its last use
    /// (``Database/releaseMemory()``); nil keeps them until the connection is released.
    public var memoryReleaseDelay: Duration?
    /// The process-wide cap on open connections that this queue counts against, or nil for no cap.
    public var budget: ConnectionBudget?
    /// Whether the C allocator is asked to give freed memory back to the system after connections are released
    /// (`malloc_trim`, at most once a second for the whole process). Without it a closed connection's pages stay
    /// in the process's heap, resident, until the allocator reuses them.
    public var returnsFreedMemory: Bool

    /// A policy that releases a connection after `idleTimeout` without use, and its statements and page cache
    /// after `memoryReleaseDelay`.
    public init(
        idleTimeout: Duration, memoryReleaseDelay: Duration? = nil, budget: ConnectionBudget? = nil,
        returnsFreedMemory: Bool = true
    ) {
        self.idleTimeout = idleTimeout
        self.memoryReleaseDelay = memoryReleaseDelay
        self.budget = budget
        self.returnsFreedMemory = returnsFreedMemory
    }
}
