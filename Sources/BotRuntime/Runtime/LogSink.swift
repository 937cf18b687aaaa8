/// Where log records go: a level filter in front of a writer. Cheap to copy and shared by every bot of a process.
///
/// The runtime checks `accepts(_:)` before it builds a record, so a disabled level costs almost nothing. The
/// writer must not block for long (it runs on the caller's task); formatting, redaction and output belong to it.
public struct LogSink: Sendable {
    /// Records below this level are dropped.
    public var minimumLevel: LogLevel
    private let writer: @Sendable (LogRecord) -> Void

    /// A sink that hands every record at or above `minimumLevel` to `write`.
    public init(minimumLevel: LogLevel = .info, write: @escaping @Sendable (LogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.writer = write
    }

    /// A sink that drops everything.
    public static var discarding: LogSink {
        LogSink(minimumLevel: .critical) { _ in }
    }

    /// Whether a record of `level` would be written.
    public func accepts(_ level: LogLevel) -> Bool {
        level >= minimumLevel
    }

    /// Writes `record` if its level passes.
    public func write(_ record: LogRecord) {
        guard accepts(record.level) else { return }
        writer(record)
    }
}
