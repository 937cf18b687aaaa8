/// Any JSON value: the `details` of an error, the `data` of a frame type this version does not know,
/// the payload of a scheduled job.
///
/// Integers are kept exact: a JSON number without a fraction that fits in 64 bits decodes as `.integer`, so an
/// id or counter above 2^53 (where a `Double` starts skipping integers) survives a decode and re-encode unchanged.
/// Other numbers are `.number`. Equality compares numbers by value: `.integer(5) == .number(5)`.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction that fits in an `Int64`, kept exact.
    case integer(Int64)
    /// Any other number (a fraction, an exponent, or an integer beyond 64 bits), as the nearest `Double`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object; member order is not kept (JSON objects are unordered).
    case object([String: JSONValue])

    /// The JSON form of an `Encodable` value (for example a job payload).
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Decodes this value as `type`, as if it were read from JSON.
    public func decode<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(self))
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array; nil for other values or an index out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, for a `.string`; nil for any other value.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }

    /// Any number as a `Double` (an integer beyond 2^53 rounds to the nearest one); nil for other values.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The exact integer of a number without a fraction that fits in an `Int64`; nil for other values.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The boolean, for a `.bool`; nil for any other value.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            // Before Double: an integer decoded as Double would lose its low digits above 2^53.
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        // An integral number is written as the exact integer it holds: a `Double` beyond 2^53 is otherwise written
        // in its shortest digits (888888888888888800 for 888888888888888832), which read back as another integer.
        case .number(let value):
            if let exact = Int64(exactly: value) { try container.encode(exact) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Numbers are equal when their values are: an `.integer` equals a `.number` holding exactly that integer.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): Int64(exactly: b) == a
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        // An integral `.number` hashes as the `.integer` it equals.
        case .integer(let value): hasher.combine(2); hasher.combine(value)
        case .number(let value):
            if let integer = Int64(exactly: value) {
                hasher.combine(2); hasher.combine(integer)
            } else {
                hasher.combine(3); hasher.combine(value)
            }
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .array(let value): hasher.combine(5); hasher.combine(value)
        case .object(let value): hasher.combine(6); hasher.combine(value)
        }
    }

    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "<not representable as JSON>" }
        return String(decoding: data, as: UTF8.self)
    }
}
