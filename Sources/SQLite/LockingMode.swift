/// How a connection holds the database file's locks (`PRAGMA locking_mode`).
public enum LockingMode: String, Sendable, Hashable {
    /// Locks are taken for each transaction and released after it: several connections and processes may share
    /// the file. In WAL mode the log's index lives in a shared-memory `-shm` file mapped by every connection.
    case normal = "NORMAL"
    /// The first access takes the file's lock and keeps it until the connection closes: no other connection, in
    /// this process or another, can read or write the file meanwhile (opening it fails with
    /// ``DatabaseError/OpenFailure/lockedByAnotherConnection``). In WAL mode the log's index lives in the
    /// connection's heap instead of a `-shm` file, so an open database holds two file descriptors (the file and
    /// its `-wal`) instead of three, and maps no shared memory. For a file only ever used by one connection.
    case exclusive = "EXCLUSIVE"
}
