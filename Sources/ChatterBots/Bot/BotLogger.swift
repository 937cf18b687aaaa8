/// A logger for bot code: a level, a message and key/value fields, handed to a sink (the runtime's log
/// output, or the records of `RecordingBotContext`). Cheap to copy; `with(_:)` adds fields for a scope.
public struct BotLogger: Sendable {
    /// Severity, from the most verbose.
    public enum Level: Int, Hashable, Sendable, Comparable, CaseIterable, CustomStringConvertible, Codable {
        /// From the most verbose (`trace`: every step) to the most severe (`error`: something failed and needs a look).
        case trace, debug, info, notice, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// One log entry; `fields` include the logger's own fields.
    public struct Record: Hashable, Sendable {
        /// The logger's label, usually the bot's name.
        public var label: String
        /// How severe the entry is.
        public var level: Level
        /// What happened, for people.
        public var message: String
        /// Key/value facts for filtering and search, e.g. `conversation`.
        public var fields: [String: String]

        /// A record as a sink receives it.
        public init(label: String, level: Level, message: String, fields: [String: String]) {
            self.label = label
            self.level = level
            self.message = message
            self.fields = fields
        }
    }

    /// Usually the bot's name.
    public var label: String
    /// Records below this level are dropped before the message is even built.
    public var minimumLevel: Level
    /// Fields attached to every record of this logger.
    public var fields: [String: String]
    private let sink: @Sendable (Record) -> Void

    /// - Parameter sink: receives every record at or above `minimumLevel`; it must not block for long.
    public init(label: String, minimumLevel: Level = .info, fields: [String: String] = [:], sink: @escaping @Sendable (Record) -> Void) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.fields = fields
        self.sink = sink
    }

    /// A logger that adds `fields` (overriding same-named ones) to every record.
    public func with(_ fields: [String: String]) -> BotLogger {
        var copy = self
        copy.fields.merge(fields) { _, new in new }
        return copy
    }

    /// Logs `message` at `level` with `fields` added to the logger's own; below `minimumLevel` the message is not built.
    public func log(_ level: Level, _ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        guard level >= minimumLevel else { return }
        sink(Record(label: label, level: level, message: message(), fields: self.fields.merging(fields) { _, new in new }))
    }

    /// Logs every step, for following one message through the bot.
    public func trace(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.trace, message(), fields) }
    /// Logs details that help find a bug, off by default.
    public func debug(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.debug, message(), fields) }
    /// Logs what the bot normally does, e.g. a reply sent.
    public func info(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.info, message(), fields) }
    /// Logs something normal but worth seeing, e.g. a reconnect.
    public func notice(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.notice, message(), fields) }
    /// Logs something wrong that the bot survived, e.g. a refused message.
    public func warning(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.warning, message(), fields) }
    /// Logs a failure that needs a look, e.g. a handler that threw.
    public func error(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.error, message(), fields) }
}
