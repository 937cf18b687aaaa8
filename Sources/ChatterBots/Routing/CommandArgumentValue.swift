/// A type a command argument can be read as, through `CommandArguments.value(_:as:)`.
///
/// Conform your own types to read them straight from arguments:
///
/// ```swift
/// extension Weekday: CommandArgumentValue {
///     public init?(commandArgument text: String) { self.init(rawValue: text.lowercased()) }
///     public static var argumentDescription: String { "a weekday like monday" }
/// }
/// ```
public protocol CommandArgumentValue: Sendable {
    /// The value written as `text`, or nil when `text` does not read as one.
    init?(commandArgument text: String)
    /// What a valid value looks like, for error replies: "a whole number", "a duration like 10m".
    static var argumentDescription: String { get }
}

extension String: CommandArgumentValue {
    /// The text as it was written.
    public init?(commandArgument text: String) { self = text }
    /// How an error reply names the value this type expects.
    public static var argumentDescription: String { "text" }
}

extension Int: CommandArgumentValue {
    /// A decimal integer with an optional sign, e.g. `-3`.
    public init?(commandArgument text: String) { self.init(text) }
    /// How an error reply names the value this type expects.
    public static var argumentDescription: String { "a whole number" }
}

extension Double: CommandArgumentValue {
    /// A finite decimal number, e.g. `2.5`.
    public init?(commandArgument text: String) {
        guard let value = Double(text), value.isFinite else { return nil }
        self = value
    }
    /// How an error reply names the value this type expects.
    public static var argumentDescription: String { "a number" }
}

extension Bool: CommandArgumentValue {
    /// Reads yes/no, y/n, true/false and on/off, in any case.
    public init?(commandArgument text: String) {
        switch text.lowercased() {
        case "yes", "y", "true", "on": self = true
        case "no", "n", "false", "off": self = false
        default: return nil
        }
    }
    /// How an error reply names the value this type expects.
    public static var argumentDescription: String { "yes or no" }
}

extension Duration: CommandArgumentValue {
    /// Reads compact durations: a number and a unit, repeated: `90s`, `10m`, `1h30m`, `2d`, `1.5h`.
    /// Units: s/sec/second(s), m/min/minute(s), h/hr/hour(s), d/day(s), in any case.
    public init?(commandArgument text: String) {
        var milliseconds = 0.0
        var rest = Substring(text.lowercased())
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            let unit = rest.dropFirst(number.count).prefix { $0.isLetter }
            guard !number.isEmpty, let amount = Double(number), let scale = Self.unitMilliseconds[String(unit)] else {
                return nil
            }
            milliseconds += amount * scale
            rest = rest.dropFirst(number.count + unit.count)
        }
        guard milliseconds.isFinite, milliseconds < 1e15 else { return nil }
        self = .milliseconds(Int64(milliseconds.rounded()))
    }

    /// How an error reply names the value this type expects.
    public static var argumentDescription: String { "a duration like 90s, 10m or 1h30m" }

    private static let unitMilliseconds: [String: Double] = {
        var table: [String: Double] = [:]
        for unit in ["s", "sec", "secs", "second", "seconds"] { table[unit] = 1_000 }
        for unit in ["m", "min", "mins", "minute", "minutes"] { table[unit] = 60_000 }
        for unit in ["h", "hr", "hrs", "hour", "hours"] { table[unit] = 3_600_000 }
        for unit in ["d", "day", "days"] { table[unit] = 86_400_000 }
        return table
    }()
}

extension TimeOfDay: CommandArgumentValue {
    /// Reads a 24-hour time `H:MM` or `HH:MM`: `9:05`, `18:30`.
    public init?(commandArgument text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), let time = try? TimeOfDay(hour: hour, minute: minute)
        else { return nil }
        self = time
    }

    /// How an error reply names the value this type expects.
    public static var argumentDescription: String { "a time like 18:30" }
}
