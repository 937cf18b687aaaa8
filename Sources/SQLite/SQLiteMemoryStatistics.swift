import CSQLite
import Synchronization

/// SQLite's own count of the memory it holds, process-wide (`sqlite3_memory_used`): page caches, schemas,
/// prepared statements.
///
/// Off unless enabled: SQLite keeps the count under a process-wide mutex taken around every allocation it makes,
/// which cost ~3 % of a busy bot's CPU, on its store's queue. A process that reports SQLite's share of its memory
/// enables it before its first database opens; once SQLite is initialized the choice holds for the process.
public enum SQLiteMemoryStatistics {
    private struct State {
        var isRequested = false
        /// Set when the first database opened: whether SQLite counts.
        var isApplied: Bool?
    }

    private static let state = Mutex(State())

    /// Asks SQLite to count its memory. Returns false when it is too late (a database opened already without it).
    @discardableResult
    public static func enable() -> Bool {
        state.withLock { state in
            if let applied = state.isApplied { return applied }
            state.isRequested = true
            return true
        }
    }

    /// The bytes SQLite holds, or nil when it does not count them (``enable()`` was not called in time).
    public static var bytesInUse: Int? {
        guard state.withLock({ $0.isApplied ?? $0.isRequested }) else { return nil }
        return Int(sqlite3_memory_used())
    }

    /// Configures SQLite as requested; called once, before the process's first connection opens.
    static func applyBeforeInitialization() {
        let counts = state.withLock { state -> Bool in
            state.isApplied = state.isRequested
            return state.isRequested
        }
        if !counts { _ = csqlite_disable_memory_statistics() }
    }
}
