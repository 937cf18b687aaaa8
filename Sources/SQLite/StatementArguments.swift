/// The values bound to a statement's parameters: positional (`?`) from an array literal, or named
/// (`:name`, `@name`, `$name`) from a dictionary literal.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO note (id, text) VALUES (?, ?)", arguments: [1, "hello"])
/// try db.execute(sql: "UPDATE note SET text = :text WHERE id = :id", arguments: ["id": 1, "text": nil])
/// ```
/// Values are converted to ``DatabaseValue``s when the arguments are made, so arguments are `Sendable`.
public struct StatementArguments: Hashable, Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// Values for the parameters in order (`?`, `?NNN`, or named parameters taken by position).
    public private(set) var positional: [DatabaseValue]
    /// Values by parameter name, without the `:`, `@` or `$` prefix.
    public private(set) var named: [String: DatabaseValue]

    /// Positional arguments.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        positional = values.map { $0?.databaseValue ?? .null }
        named = [:]
    }

    /// Positional arguments already converted: for statements run per row on a hot path, where the array literal's
    /// boxed values and their conversion would cost more than binding them.
    public init(values: [DatabaseValue]) {
        positional = values
        named = [:]
    }

    /// Named arguments; a key may carry the parameter's prefix (`":id"`) or not (`"id"`).
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        positional = []
        named = Dictionary(
            values.map { (Self.parameterName($0.key), $0.value?.databaseValue ?? .null) },
            uniquingKeysWith: { _, last in last })
    }

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }

    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        positional = []
        named = Dictionary(
            elements.map { (Self.parameterName($0.0), $0.1?.databaseValue ?? .null) },
            uniquingKeysWith: { _, last in last })
    }

    /// Whether there are no arguments at all.
    public var isEmpty: Bool {
        positional.isEmpty && named.isEmpty
    }

    /// `name` without a leading `:`, `@` or `$`.
    static func parameterName(_ name: String) -> String {
        if let first = name.first, first == ":" || first == "@" || first == "$" {
            return String(name.dropFirst())
        }
        return name
    }
}
