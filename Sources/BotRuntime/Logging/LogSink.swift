import ChatterBots
import Foundation

/// Where log records go: a level filter, then redaction of secrets, then a writer. The standard writer formats
/// records as logfmt (`LogfmtFormatter`) onto standard error. Cheap to copy; copies share the writer and the
/// registered secrets, so a token registered by one bot's session is masked in every line of the process.
///
/// ```swift
/// let log = LogSink(minimumLevel: .info)            // logfmt on standard error
/// log.registerSecret(password)
/// log.log(.info, "connected", bot: "reminder", ["deviceId": deviceId])
/// let logger = log.botLogger(bot: "reminder")       // a BotLogger for bot code, into the same sink
/// ```
///
/// The runtime checks `accepts(_:)` before it builds a record, so a disabled level costs almost nothing. Writers
/// must not block (they run on the caller's task): the standard one queues lines for a thread of its own.
public struct LogSink: Sendable {
    /// Records below this level are dropped.
    public var minimumLevel: LogLevel
    /// Masks registered secrets and recognizable credentials in every record before the writer sees it.
    public let redactor: LogRedactor
    private var writer: @Sendable (LogRecord) -> Void
    private let flusher: @Sendable () async -> Void

    /// A sink that hands every record at or above `minimumLevel`, redacted, to `write`.
    public init(
        minimumLevel: LogLevel = .info, redactor: LogRedactor = LogRedactor(),
        write: @escaping @Sendable (LogRecord) -> Void
    ) {
        self.minimumLevel = minimumLevel
        self.redactor = redactor
        self.writer = write
        self.flusher = {}
    }

    /// A sink that writes logfmt lines to `output` (standard error by default).
    public init(
        minimumLevel: LogLevel = .info, output: any LogOutput = FileDescriptorLogOutput.standardError,
        formatter: LogfmtFormatter = LogfmtFormatter(), redactor: LogRedactor = LogRedactor()
    ) {
        self.minimumLevel = minimumLevel
        self.redactor = redactor
        self.writer = { record in output.write(line: formatter.format(record)) }
        self.flusher = { await output.flush() }
    }

    /// A sink that drops everything.
    public static var discarding: LogSink {
        LogSink(minimumLevel: .critical) { _ in }
    }

    /// Whether a record of `level` would be written.
    public func accepts(_ level: LogLevel) -> Bool {
        level >= minimumLevel
    }

    /// Redacts `record` and writes it, if its level passes.
    public func write(_ record: LogRecord) {
        guard accepts(record.level) else { return }
        writer(redactor.redact(record))
    }

    /// Writes a record built from the arguments, stamped now; `message` is only built when `level` passes.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, bot: String? = nil, trace: String? = nil,
        _ fields: [String: String] = [:]
    ) {
        guard accepts(level) else { return }
        write(LogRecord(time: Date(), level: level, bot: bot, trace: trace, message: message(), fields: fields))
    }

    /// A copy of this sink that also hands each record it writes, redacted, to `observe` (the console's log tail).
    package func teeing(_ observe: @escaping @Sendable (LogRecord) -> Void) -> LogSink {
        var copy = self
        let writer = self.writer
        copy.writer = { record in
            writer(record)
            observe(record)
        }
        return copy
    }

    /// Masks `secret` (a password, an access or refresh token) in every record written from now on.
    public func registerSecret(_ secret: String) {
        redactor.register(secret)
    }

    /// Waits until every record written so far has reached its destination (for the standard writer: the file).
    public func flush() async {
        await flusher()
    }

    /// A `BotLogger` for bot code writing into this sink: its label becomes `bot=`, a `trace` field becomes
    /// `trace=`, and its level follows this sink's.
    public func botLogger(bot: String, fields: [String: String] = [:]) -> BotLogger {
        let sink = self
        return BotLogger(label: bot, minimumLevel: minimumLevel.botLoggerLevel, fields: fields) { record in
            var fields = record.fields
            let trace = fields.removeValue(forKey: "trace")
            sink.write(LogRecord(
                time: Date(), level: LogLevel(record.level), bot: record.label, trace: trace, message: record.message,
                fields: fields))
        }
    }
}
