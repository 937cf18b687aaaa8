import Foundation

/// One row of a query result: its values, and column access by index or by name.
///
/// Typed access throws a ``DatabaseError`` naming the column when the value cannot be read as the requested
/// type, so a bad row is reported instead of crashing:
/// ```swift
/// let id: Int64 = try row["id"]
/// let note: String? = try row["note"]        // NULL reads as nil
/// let payload = try row.decodeJSON(Payload.self, "payload")
/// ```
/// Rows are values (`Sendable`), so they can leave the database queue.
public struct Row: Hashable, Sendable, CustomStringConvertible {
    let layout: RowLayout
    /// The values, in column order.
    public let databaseValues: [DatabaseValue]

    init(layout: RowLayout, values: [DatabaseValue]) {
        self.layout = layout
        self.databaseValues = values
    }

    /// The column names, in order, as the query named them.
    public var columnNames: [String] { layout.names }

    /// The number of columns.
    public var count: Int { databaseValues.count }

    /// Whether the row has a column with this name (exact, or else case-insensitive as in SQL).
    public func contains(column name: String) -> Bool {
        layout.index(of: name) != nil
    }

    /// The raw value at `index`.
    public func databaseValue(at index: Int) throws -> DatabaseValue {
        guard databaseValues.indices.contains(index) else {
            throw DatabaseError.columnIndexOutOfRange(index, count: databaseValues.count, sql: layout.sql)
        }
        return databaseValues[index]
    }

    /// The raw value of the column `name`.
    public func databaseValue(named name: String) throws -> DatabaseValue {
        databaseValues[try index(of: name)]
    }

    /// The value at `index` read as `T`.
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        get throws {
            try decode(try databaseValue(at: index), column: index)
        }
    }

    /// The value of the column `name` read as `T`.
    public subscript<T: DatabaseValueConvertible>(_ name: String) -> T {
        get throws {
            let index = try index(of: name)
            return try decode(databaseValues[index], column: index)
        }
    }

    /// The JSON text (or blob) of the column `name` decoded as `T`; pass an optional type for a nullable column.
    public func decodeJSON<T: Decodable>(
        _ type: T.Type = T.self, _ name: String, decoder: JSONDecoder = DatabaseValue.makeJSONDecoder()
    ) throws -> T {
        try decodeJSON(type, at: try index(of: name), decoder: decoder)
    }

    /// The JSON text (or blob) at `index` decoded as `T`; pass an optional type for a nullable column.
    public func decodeJSON<T: Decodable>(
        _ type: T.Type = T.self, at index: Int, decoder: JSONDecoder = DatabaseValue.makeJSONDecoder()
    ) throws -> T {
        let value = try databaseValue(at: index)
        let json: Data
        switch value {
        case .text(let text): json = Data(text.utf8)
        case .blob(let data): json = data
        case .null: json = Data("null".utf8)
        case .integer, .real:
            throw DatabaseError.typeMismatch(
                column: layout.names[index], expected: "JSON for \(T.self)", found: value.storageClass, sql: layout.sql)
        }
        do {
            return try decoder.decode(T.self, from: json)
        } catch DecodingError.valueNotFound(_, let context) where value.isNull && context.codingPath.isEmpty {
            throw DatabaseError.typeMismatch(
                column: layout.names[index], expected: "JSON for \(T.self)", found: "NULL", sql: layout.sql)
        } catch {
            throw DatabaseError.invalidJSON(
                column: layout.names[index], type: "\(T.self)", reason: "\(error)", sql: layout.sql)
        }
    }

    public var description: String {
        "[" + zip(layout.names, databaseValues).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
    }

    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.layout.names == rhs.layout.names && lhs.databaseValues == rhs.databaseValues
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(layout.names)
        hasher.combine(databaseValues)
    }

    private func index(of name: String) throws -> Int {
        guard let index = layout.index(of: name) else {
            throw DatabaseError.unknownColumn(name, available: layout.names, sql: layout.sql)
        }
        return index
    }

    private func decode<T: DatabaseValueConvertible>(_ value: DatabaseValue, column index: Int) throws -> T {
        guard let decoded = T.fromDatabaseValue(value) else {
            throw DatabaseError.typeMismatch(
                column: layout.names[index], expected: "\(T.self)", found: value.storageClass, sql: layout.sql)
        }
        return decoded
    }
}

/// The column names of a statement's rows, shared by all rows it produces so that rows stay small. Made for every
/// statement a connection prepares, so it only keeps the names: a row has few columns, and looking one up by name
/// scans them faster than building a table for it would pay back.
final class RowLayout: Sendable {
    let sql: String
    let names: [String]

    init(sql: String, names: [String]) {
        self.sql = sql
        self.names = names
    }

    /// The first column named `name`, compared exactly and then, as SQLite compares column names, ignoring case.
    func index(of name: String) -> Int? {
        if let index = names.firstIndex(of: name) { return index }
        let lowercased = name.lowercased()
        return names.firstIndex { $0.lowercased() == lowercased }
    }
}
