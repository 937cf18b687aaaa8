/// A logger for bot code: a level, a message and key/value fields, handed to a sink (the runtime's log
/// output, or the records of `RecordingBotContext`). Cheap to copy; `with(_:)` adds fields for a scope.
public struct BotLogger: Sendable {
    /// Severity, from the most verbose.
    public enum Level: Int, Hashable, Sendable, Comparable, CaseIterable, CustomStringConvertible, Codable {
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
        public var label: String
        public var level: Level
        public var message: String
        public var fields: [String: String]

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

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        guard level >= minimumLevel else { return }
        sink(Record(label: label, level: level, message: message(), fields: self.fields.merging(fields) { _, new in new }))
    }

    public func trace(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.trace, message(), fields) }
    public func debug(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.debug, message(), fields) }
    public func info(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.info, message(), fields) }
    public func notice(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.notice, message(), fields) }
    public func warning(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.warning, message(), fields) }
    public func error(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) { log(.error, message(), fields) }
}
