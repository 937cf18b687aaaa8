import ChatterBots
import Foundation

/// One structured log line of the runtime or of bot code: when, how severe, which bot and event, what happened,
/// and key/value details. A `LogSink` turns it into text (logfmt) and masks secrets.
public struct LogRecord: Sendable, Equatable {
    /// When it happened, on the runtime's clock.
    public var time: Date
    public var level: LogLevel
    /// The bot's configured name; nil for the process as a whole.
    public var bot: String?
    /// The trace id of the event being handled (a message id, `job:<id>#<occurrence>`, or a short random id), so
    /// that one `grep` follows an event through dedupe, handler, state and outbox.
    public var trace: String?
    public var message: String
    /// Further details, e.g. `conversation`, `seq`, `code`. Never tokens or passwords.
    public var fields: [String: String]

    public init(
        time: Date, level: LogLevel, bot: String?, trace: String? = nil, message: String, fields: [String: String] = [:]
    ) {
        self.time = time
        self.level = level
        self.bot = bot
        self.trace = trace
        self.message = message
        self.fields = fields
    }
}

extension LogLevel {
    /// The runtime level of a bot logger's level.
    init(_ level: BotLogger.Level) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        }
    }

    /// The bot logger's level that passes what this level passes.
    var botLoggerLevel: BotLogger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error, .critical: .error
        }
    }
}
