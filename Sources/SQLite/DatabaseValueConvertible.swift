import Foundation

/// A type that can be bound to a statement parameter and read from a column.
///
/// Reading is strict about storage classes so that a wrong column or a wrong type shows up as an error
/// naming the column, not as a silently converted value: an `Int` reads INTEGER (or a REAL holding an exact
/// integer), a `String` reads TEXT, `Data` reads BLOB (or TEXT as its UTF-8 bytes), and NULL reads only into
/// an optional.
public protocol DatabaseValueConvertible {
    /// The value to store.
    var databaseValue: DatabaseValue { get }

    /// The value read from `databaseValue`, or nil when that stored value cannot represent this type.
    static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> DatabaseValue? { databaseValue }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Int64? {
        switch databaseValue {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(databaseValue).flatMap { Int(exactly: $0) }
    }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(databaseValue).flatMap { Int32(exactly: $0) }
    }
}

/// Stored as REAL. SQLite stores NaN as NULL, so a NaN reads back only into an optional, as nil.
extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Double? {
        switch databaseValue {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

/// Stored as INTEGER 0 or 1; any non-zero number reads as true.
extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Bool? {
        switch databaseValue {
        case .integer(let value): value != 0
        case .real(let value): value != 0
        default: nil
        }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> String? {
        if case .text(let value) = databaseValue { value } else { nil }
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Data? {
        switch databaseValue {
        case .blob(let value): value
        case .text(let value): Data(value.utf8)
        default: nil
        }
    }
}

/// Bytes are stored as a BLOB, like `Data`.
extension Array: DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { .blob(Data(self)) }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> [UInt8]? {
        Data.fromDatabaseValue(databaseValue).map { [UInt8]($0) }
    }
}

/// Dates are stored as INTEGER milliseconds since 1970-01-01 00:00:00 UTC.
///
/// Integers are compact, compare and sort as numbers in indexes (`WHERE due_at <= ?`), are cheap to convert
/// at tens of thousands of rows per second, and keep the millisecond precision the Chatter API uses; the
/// `sqlite3` command line shows them with `datetime(due_at / 1000, 'unixepoch')`. Sub-millisecond precision
/// is rounded away. A REAL column is read as milliseconds too.
extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        if let exact = Int64(exactly: milliseconds) {
            return .integer(exact)
        }
        return .real(milliseconds)
    }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Date? {
        switch databaseValue {
        case .integer(let milliseconds): Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        case .real(let milliseconds): Date(timeIntervalSince1970: milliseconds / 1000)
        default: nil
        }
    }
}

/// `nil` is stored as NULL, and NULL reads as `nil`.
extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: .null
        case .some(let value): value.databaseValue
        }
    }

    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Wrapped?? {
        if case .null = databaseValue { return .some(nil) }
        return Wrapped.fromDatabaseValue(databaseValue).map { .some($0) }
    }
}
