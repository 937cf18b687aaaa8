/// A problem found by this wrapper rather than by SQLite: a database that cannot be used, a value that
/// cannot be read as the requested type, arguments that do not fit a statement, a schema newer than the code.
///
/// Every case's ``description`` says what went wrong and what to do about it.
public enum DatabaseError: Error, CustomStringConvertible {
    /// Why a database file could not be opened. Nothing was written to an existing file.
    public enum OpenFailure: Sendable, Equatable, CustomStringConvertible {
        /// The directory that should contain the database does not exist (or is not a directory).
        case missingDirectory(String)
        /// The directory cannot be written, so the database, its `-wal` or its `-shm` file cannot be created.
        case directoryNotWritable(String)
        /// The file exists but this process cannot read and write it.
        case fileNotAccessible
        /// The file is not an SQLite database (for example a text file, or an encrypted database).
        case notADatabase
        /// The file is an SQLite database whose schema pages are damaged.
        case corrupt
        /// SQLite refused write-ahead logging and kept this journal mode (e.g. a filesystem without shared memory).
        case walUnavailable(journalMode: String)
        /// Another connection holds the file's lock and the configuration asks for ``LockingMode/exclusive``:
        /// usually a second process running the same program on the same file.
        case lockedByAnotherConnection
        /// Another failure, described by the operating system or SQLite.
        case other(String)

        public var description: String {
            switch self {
            case .missingDirectory(let directory):
                "the directory \(directory) does not exist: create it first"
            case .directoryNotWritable(let directory):
                "the directory \(directory) is not writable, and SQLite must create the database and its -wal and -shm files there: fix its permissions or choose another directory"
            case .fileNotAccessible:
                "the file cannot be read and written by this process: fix its owner or permissions"
            case .notADatabase:
                "the file is not an SQLite database (or it is encrypted): check the path; the file was left untouched"
            case .corrupt:
                "the database is damaged: restore it from a backup; the file was left untouched"
            case .walUnavailable(let mode):
                "SQLite could not enable WAL journaling (journal mode stayed \(mode)): put the database on a local filesystem"
            case .lockedByAnotherConnection:
                "another connection holds the file's lock (is a second process using the same file?): stop the other process, or give this one a file of its own; nothing was written"
            case .other(let reason):
                reason
            }
        }
    }

    /// The database at `path` cannot be opened; `underlying` is SQLite's own report when it gave one.
    case cannotOpen(path: String, reason: OpenFailure, underlying: SQLiteError?)
    /// The value stored in `column` has a type (`found`: NULL, INTEGER, REAL, TEXT or BLOB) that cannot be
    /// read as `expected`.
    case typeMismatch(column: String, expected: String, found: String, sql: String)
    /// The value stored in `column` is not valid JSON for `type`.
    case invalidJSON(column: String, type: String, reason: String, sql: String)
    /// A row has no column with this name.
    case unknownColumn(String, available: [String], sql: String)
    /// A row has no column at this index.
    case columnIndexOutOfRange(Int, count: Int, sql: String)
    /// The statement takes `expected` positional arguments but was given `given`.
    case argumentCountMismatch(expected: Int, given: Int, sql: String)
    /// The statement uses the named parameter `:name` but the arguments do not contain it.
    case missingArgument(name: String, sql: String)
    /// Named arguments that the statement does not use (a typo, usually).
    case unusedArguments(names: [String], sql: String)
    /// The statement has a `?` parameter but was given named arguments.
    case positionalParameterWithNamedArguments(sql: String)
    /// The SQL holds no statement (only whitespace or comments).
    case noStatement(sql: String)
    /// The SQL holds several statements where exactly one is required.
    case multipleStatements(sql: String)
    /// The statement is already running (it is being iterated) and cannot be started again until it finishes.
    case statementInUse(sql: String)
    /// The operation must run outside a transaction.
    case transactionInProgress(operation: String)
    /// The database has applied migrations that this code does not know: it was created by a newer version.
    case newerSchema(unknownMigrations: [String])
    /// Two migrations were registered with the same name.
    case duplicateMigration(String)
    /// A migration threw; its changes were rolled back and later migrations did not run.
    case migrationFailed(name: String, underlying: any Error)
    /// A migration left rows whose foreign key points to a missing parent; it was rolled back.
    case foreignKeyViolation(migration: String, table: String, rowID: Int64?, parent: String)
    /// The database was closed.
    case closed

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason, let underlying):
            var text = "Cannot open the database at \(path): \(reason)."
            if let underlying { text += " (SQLite: \(underlying.extendedCode): \(underlying.message))" }
            return text
        case .typeMismatch(let column, let expected, let found, let sql):
            return "Column \"\(column)\" holds \(found), which cannot be read as \(expected) (SQL: \(sql)). "
                + "Read it as the stored type (an optional for NULL), or fix the data or the query."
        case .invalidJSON(let column, let type, let reason, let sql):
            return "Column \"\(column)\" does not hold JSON for \(type): \(reason) (SQL: \(sql)). "
                + "Check that the column was written with DatabaseValue.json for this type."
        case .unknownColumn(let name, let available, let sql):
            return "No column named \"\(name)\"; the row has \(available) (SQL: \(sql)). "
                + "Fix the name, or alias the column in the SELECT."
        case .columnIndexOutOfRange(let index, let count, let sql):
            return "No column at index \(index); the row has \(count) columns (SQL: \(sql))."
        case .argumentCountMismatch(let expected, let given, let sql):
            return "The statement takes \(expected) arguments but was given \(given) (SQL: \(sql)). "
                + "Pass one value per parameter."
        case .missingArgument(let name, let sql):
            return "No value for the parameter :\(name) (SQL: \(sql)). Add \"\(name)\" to the arguments."
        case .unusedArguments(let names, let sql):
            return "The statement does not use the arguments \(names) (SQL: \(sql)). Check their spelling."
        case .positionalParameterWithNamedArguments(let sql):
            return "The statement has a ? parameter but was given named arguments (SQL: \(sql)). "
                + "Name every parameter (:name), or pass the arguments as an array."
        case .noStatement(let sql):
            return "The SQL contains no statement: \"\(sql)\"."
        case .multipleStatements(let sql):
            return "The SQL contains several statements where one is required (SQL: \(sql)). "
                + "Split it, or run it with Database.execute(sql:) without arguments."
        case .statementInUse(let sql):
            return "The statement is already running and cannot start again before it finishes (SQL: \(sql)). "
                + "Use a separate statement (Database.makeStatement) for the nested query."
        case .transactionInProgress(let operation):
            return "\(operation) must run outside a transaction: call it from DatabaseQueue.writeWithoutTransaction."
        case .newerSchema(let unknown):
            return "The database was migrated by a newer version of this program (unknown migrations: \(unknown)). "
                + "It was left untouched: run a version that knows these migrations."
        case .duplicateMigration(let name):
            return "The migration \"\(name)\" is registered twice: give each migration a unique name."
        case .migrationFailed(let name, let underlying):
            return "The migration \"\(name)\" failed and was rolled back: \(underlying)"
        case .foreignKeyViolation(let migration, let table, let rowID, let parent):
            return "After the migration \"\(migration)\", a row of \(table) (rowid \(rowID.map(String.init) ?? "none")) "
                + "refers to a missing row of \(parent); the migration was rolled back. Fix the migration's data changes."
        case .closed:
            return "The database is closed: open it again to use it."
        }
    }
}
