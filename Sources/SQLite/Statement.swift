import CSQLite
import Foundation

/// A prepared statement: compiled once, then bound and run any number of times.
///
/// Get one from ``Database/cachedStatement(sql:)`` (compiled once per connection, the fast path for
/// statements that run often) or ``Database/makeStatement(sql:)``. Each run binds every parameter afresh and
/// resets the statement when it finishes, so a statement never holds a read lock between runs.
/// Statements are not `Sendable`: they belong to their database's queue.
public final class Statement {
    /// The SQL of this statement.
    public let sql: String
    let handle: OpaquePointer
    let connection: Connection
    /// Parameter names without prefix, by index (0-based); nil for `?` and `?NNN` parameters.
    private let parameterNames: [String?]
    private var layout: RowLayout
    private var layoutPrepareCount: Int32
    private(set) var isRunning = false
    /// When the statement cache last handed out this statement, for least-recently-used eviction.
    var lastCacheUse: UInt64 = 0

    init(handle: OpaquePointer, connection: Connection) {
        self.handle = handle
        self.connection = connection
        self.sql = sqlite3_sql(handle).map { String(cString: $0) } ?? ""
        let count = sqlite3_bind_parameter_count(handle)
        self.parameterNames = count == 0 ? [] : (1...count).map { index in
            guard let name = sqlite3_bind_parameter_name(handle, index) else { return nil }
            let text = String(cString: name)
            return text.hasPrefix("?") ? nil : String(text.dropFirst())
        }
        self.layoutPrepareCount = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        self.layout = Self.makeLayout(handle: handle, sql: sql)
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The names of the result columns (empty for statements that return no rows).
    public var columnNames: [String] {
        currentLayout().names
    }

    /// The number of parameters (`?`, `?NNN`, `:name`...), which is the highest parameter index.
    public var parameterCount: Int {
        parameterNames.count
    }

    /// Whether the statement leaves the database unchanged.
    public var isReadOnly: Bool {
        sqlite3_stmt_readonly(handle) != 0
    }

    /// How many times SQLite has recompiled this statement since it was prepared: after a schema change, or
    /// when something expired the connection's statements. Stays 0 on a healthy hot path.
    public var recompilationCount: Int {
        Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0))
    }

    /// Runs the statement to completion, discarding any rows.
    public func execute(arguments: StatementArguments = []) throws {
        try run(arguments) {
            while try step() {}
        }
    }

    /// All rows.
    public func fetchAll(arguments: StatementArguments = []) throws -> [Row] {
        try run(arguments) {
            var rows: [Row] = []
            while try step() {
                rows.append(makeRow())
            }
            return rows
        }
    }

    /// The first row, or nil when there is none.
    public func fetchOne(arguments: StatementArguments = []) throws -> Row? {
        try run(arguments) {
            try step() ? makeRow() : nil
        }
    }

    /// The first column of every row, read as `T`.
    public func fetchAll<T: DatabaseValueConvertible>(_ type: T.Type, arguments: StatementArguments = []) throws -> [T] {
        try run(arguments) {
            var values: [T] = []
            while try step() {
                values.append(try firstColumn(as: type))
            }
            return values
        }
    }

    /// The first column of the first row read as `T`, or nil when there is no row.
    public func fetchOne<T: DatabaseValueConvertible>(_ type: T.Type, arguments: StatementArguments = []) throws -> T? {
        try run(arguments) {
            try step() ? try firstColumn(as: type) : nil
        }
    }

    /// Every row as a record.
    public func fetchAll<R: FetchableRecord>(_ type: R.Type, arguments: StatementArguments = []) throws -> [R] {
        try run(arguments) {
            var records: [R] = []
            while try step() {
                records.append(try R(row: makeRow()))
            }
            return records
        }
    }

    /// The first row as a record, or nil when there is none.
    public func fetchOne<R: FetchableRecord>(_ type: R.Type, arguments: StatementArguments = []) throws -> R? {
        try run(arguments) {
            try step() ? try R(row: makeRow()) : nil
        }
    }

    /// Calls `body` with each row in turn without collecting them; throwing from `body` stops the iteration.
    public func forEachRow(arguments: StatementArguments = [], _ body: (Row) throws -> Void) throws {
        try run(arguments) {
            while try step() {
                try body(makeRow())
            }
        }
    }

    // MARK: - Running

    /// Binds `arguments`, runs `body`, and always resets the statement and clears its bindings afterwards.
    private func run<Result>(_ arguments: StatementArguments, _ body: () throws -> Result) throws -> Result {
        guard !connection.isClosed else { throw DatabaseError.closed }
        guard !isRunning else { throw DatabaseError.statementInUse(sql: sql) }
        if connection.refusesWrites && !isReadOnly {
            throw SQLiteError(extendedCode: .readOnly, message: "attempt to write a readonly database", sql: sql)
        }
        isRunning = true
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            isRunning = false
        }
        try bind(arguments)
        return try body()
    }

    /// Advances to the next row; false when the statement is done.
    private func step() throws -> Bool {
        let resultCode = sqlite3_step(handle)
        switch resultCode {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(resultCode: resultCode, sql: sql)
        }
    }

    private func currentLayout() -> RowLayout {
        let prepareCount = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        if prepareCount != layoutPrepareCount {
            // SQLite recompiled the statement after a schema change: `SELECT *` may have new columns.
            layoutPrepareCount = prepareCount
            layout = Self.makeLayout(handle: handle, sql: sql)
        }
        return layout
    }

    private static func makeLayout(handle: OpaquePointer, sql: String) -> RowLayout {
        let count = sqlite3_column_count(handle)
        let names = (0..<count).map { index in
            sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "column\(index + 1)"
        }
        return RowLayout(sql: sql, names: names)
    }

    private func makeRow() -> Row {
        let layout = currentLayout()
        var values: [DatabaseValue] = []
        values.reserveCapacity(layout.names.count)
        for index in 0..<Int32(layout.names.count) {
            values.append(columnValue(index))
        }
        return Row(layout: layout, values: values)
    }

    private func firstColumn<T: DatabaseValueConvertible>(as type: T.Type) throws -> T {
        let layout = currentLayout()
        guard !layout.names.isEmpty else {
            throw DatabaseError.columnIndexOutOfRange(0, count: 0, sql: sql)
        }
        let value = columnValue(0)
        guard let decoded = T.fromDatabaseValue(value) else {
            throw DatabaseError.typeMismatch(column: layout.names[0], expected: "\(T.self)", found: value.storageClass, sql: sql)
        }
        return decoded
    }

    private func columnValue(_ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index))))
        default:
            return .null
        }
    }

    // MARK: - Binding

    private func bind(_ arguments: StatementArguments) throws {
        if arguments.named.isEmpty {
            guard arguments.positional.count == parameterNames.count else {
                throw DatabaseError.argumentCountMismatch(
                    expected: parameterNames.count, given: arguments.positional.count, sql: sql)
            }
            for (offset, value) in arguments.positional.enumerated() {
                try bind(value, at: Int32(offset + 1))
            }
            return
        }
        var unused = Set(arguments.named.keys)
        for (offset, name) in parameterNames.enumerated() {
            guard let name else {
                throw DatabaseError.positionalParameterWithNamedArguments(sql: sql)
            }
            guard let value = arguments.named[name] else {
                throw DatabaseError.missingArgument(name: name, sql: sql)
            }
            unused.remove(name)
            try bind(value, at: Int32(offset + 1))
        }
        if !unused.isEmpty {
            throw DatabaseError.unusedArguments(names: unused.sorted(), sql: sql)
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let resultCode: Int32
        switch value {
        case .null:
            resultCode = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            resultCode = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            resultCode = sqlite3_bind_double(handle, index, real)
        case .text(var text):
            resultCode = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    // A null pointer would bind NULL: bind a static empty string instead.
                    return sqlite3_bind_text(handle, index, "", 0, nil)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                    sqlite3_bind_text64(
                        handle, index, characters, sqlite3_uint64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            resultCode = data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    // A null pointer would bind NULL: an empty blob is a zero-length zeroblob.
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), csqlite_transient())
            }
        }
        guard resultCode == SQLITE_OK else {
            throw connection.error(resultCode: resultCode, sql: sql)
        }
    }
}

@available(*, unavailable, message: "A statement is used only on its database's queue.")
extension Statement: Sendable {}
