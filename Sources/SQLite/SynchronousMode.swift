/// How hard SQLite works to make a commit survive a power loss (`PRAGMA synchronous`).
///
/// The raw values are SQLite's, as `PRAGMA synchronous` reads them back.
public enum SynchronousMode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// No fsync at all: a power loss or OS crash can corrupt the database. For scratch data only.
    case off = 0
    /// With WAL, fsync at checkpoints only: commits survive a crash of the process; a power loss can undo
    /// the latest commits but never corrupts the database. Fast: the usual choice with WAL.
    case normal = 1
    /// With WAL, fsync the log at every commit: commits also survive a power loss, at the cost of an fsync each.
    case full = 2
    /// Like `full`, and also fsync the directory after unlinking a journal.
    case extra = 3

    public var description: String {
        switch self {
        case .off: "OFF"
        case .normal: "NORMAL"
        case .full: "FULL"
        case .extra: "EXTRA"
        }
    }
}
