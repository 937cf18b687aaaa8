import Foundation

/// A value as SQLite stores it: one of its five storage classes.
public enum DatabaseValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The storage class name as SQLite spells it: NULL, INTEGER, REAL, TEXT or BLOB.
    public var storageClass: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// Whether this is SQL NULL.
    public var isNull: Bool {
        if case .null = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): String(reflecting: value)
        case .blob(let value): "<\(value.count) bytes>"
        }
    }

    /// `value` encoded as JSON text, for a TEXT column (read it back with ``Row/decodeJSON(_:_:decoder:)``).
    ///
    /// Codable values are stored as JSON text rather than as binary so that the `sqlite3` command line and
    /// SQLite's JSON functions (`json_extract`) can read them.
    public static func json<T: Encodable>(_ value: T, encoder: JSONEncoder = DatabaseValue.makeJSONEncoder()) throws -> DatabaseValue {
        .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The encoder ``json(_:encoder:)`` uses by default: sorted keys (stable text), unescaped slashes,
    /// dates as integer milliseconds since 1970 like ``Foundation/Date`` columns.
    public static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }

    /// The decoder ``Row/decodeJSON(_:_:decoder:)`` uses by default, matching ``makeJSONEncoder()``.
    public static func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
