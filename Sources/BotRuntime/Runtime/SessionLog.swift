import ChatterBots
import Foundation

/// The runtime's own log lines for one bot: the bot's name on every record, the trace id of the event at hand,
/// and the message built only when its level passes.
package struct SessionLog: Sendable {
    let sink: LogSink
    let bot: String
    let clock: any ChatterClock

    package init(sink: LogSink, bot: String, clock: any ChatterClock) {
        self.sink = sink
        self.bot = bot
        self.clock = clock
    }

    func accepts(_ level: LogLevel) -> Bool { sink.accepts(level) }

    func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]
    ) {
        guard sink.accepts(level) else { return }
        sink.write(LogRecord(time: clock.now, level: level, bot: bot, trace: trace, message: message(), fields: fields()))
    }

    func trace(_ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]) {
        log(.trace, message(), trace: trace, fields())
    }

    func debug(_ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]) {
        log(.debug, message(), trace: trace, fields())
    }

    func info(_ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]) {
        log(.info, message(), trace: trace, fields())
    }

    func notice(_ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]) {
        log(.notice, message(), trace: trace, fields())
    }

    func warning(_ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]) {
        log(.warning, message(), trace: trace, fields())
    }

    func error(_ message: @autoclosure () -> String, trace: String? = nil, _ fields: @autoclosure () -> [String: String] = [:]) {
        log(.error, message(), trace: trace, fields())
    }

    /// A logger for bot code with the bot's name as label and, when given, the event's trace id as a field;
    /// its records reach the same sink.
    func botLogger(trace: String?) -> BotLogger {
        let sink = sink
        let bot = bot
        let clock = clock
        var fields: [String: String] = [:]
        if let trace { fields["trace"] = trace }
        return BotLogger(label: bot, minimumLevel: sink.minimumLevel.botLoggerLevel, fields: fields) { record in
            var fields = record.fields
            let trace = fields.removeValue(forKey: "trace")
            sink.write(LogRecord(
                time: clock.now, level: LogLevel(record.level), bot: bot, trace: trace, message: record.message, fields: fields))
        }
    }
}
