import ChatterBots
import Foundation

/// Writes a `LogRecord` as one logfmt line:
/// `ts=2026-10-22T14:03:11.482Z level=info bot=reminder trace=01J9… msg="reply sent" conversation=c_1 seq=42`.
///
/// The standard keys come first in that order (`bot` and `trace` only when set), then the fields sorted by key.
/// A value is quoted when it is empty or holds a space, `=`, `"`, `\` or a control character; inside quotes `"` and
/// `\` are escaped and newlines, tabs and other control characters are written as escapes, so a record is always
/// exactly one line. Keys are reduced to letters, digits and `_ . - /` (other characters become `_`); a field
/// named like a standard key is written as `field.<key>` so it cannot be mistaken for it.
public struct LogfmtFormatter: Sendable {
    /// The keys every line starts with.
    public static let standardKeys: Set<String> = ["ts", "level", "bot", "trace", "msg"]

    /// Creates a formatter.
    public init() {}

    /// The record as one line, without the trailing newline.
    public func format(_ record: LogRecord) -> String {
        var line = "ts=" + Timestamp(record.time).iso8601
        line += " level=" + record.level.rawValue
        if let bot = record.bot { line += " bot=" + Self.value(bot) }
        if let trace = record.trace { line += " trace=" + Self.value(trace) }
        line += " msg=" + Self.value(record.message)
        for (key, value) in record.fields.sorted(by: { $0.key < $1.key }) {
            var name = Self.key(key)
            if Self.standardKeys.contains(name) { name = "field." + name }
            line += " " + name + "=" + Self.value(value)
        }
        return line
    }

    /// `key` with every character outside letters, digits and `_ . - /` replaced by `_` (`_` when empty).
    static func key(_ key: String) -> String {
        guard !key.isEmpty else { return "_" }
        var result = ""
        result.unicodeScalars.reserveCapacity(key.unicodeScalars.count)
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", ".", "-", "/": result.unicodeScalars.append(scalar)
            default: result.unicodeScalars.append("_")
            }
        }
        return result
    }

    /// `value` as written after `=`: bare when it needs no quotes, else quoted with escapes.
    static func value(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains { scalar in
            scalar == " " || scalar == "=" || scalar == "\"" || scalar == "\\" || scalar.properties.generalCategory == .control
                || scalar.properties.isWhitespace
        }
        guard needsQuotes else { return value }
        var quoted = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            default:
                if scalar.properties.generalCategory == .control
                    || (scalar.properties.isWhitespace && scalar != " ")
                {
                    quoted += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}
