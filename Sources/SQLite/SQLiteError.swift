import CSQLite

/// An error reported by SQLite: its result codes, its message (`sqlite3_errmsg`) and the SQL that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code, e.g. ``ResultCode/constraint``.
    public let code: ResultCode
    /// The extended result code, e.g. ``ResultCode/constraintUnique``; equal to `code` when SQLite gave no detail.
    public let extendedCode: ResultCode
    /// SQLite's message, e.g. `UNIQUE constraint failed: outbox.client_message_id`.
    public let message: String
    /// The statement that failed, when the failure concerns one.
    public let sql: String?

    /// An error with this code and message; mostly for tests and fakes, since the wrapper builds its own.
    public init(extendedCode: ResultCode, message: String, sql: String? = nil) {
        self.code = extendedCode.primary
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Builds the error SQLite reports for `resultCode` on `connection`, with its current message.
    init(connection: OpaquePointer, resultCode: Int32, sql: String?) {
        let extended = sqlite3_extended_errcode(connection)
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        self.init(
            extendedCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(connection)),
            sql: sql)
    }

    /// What to do about this error.
    public var recoverySuggestion: String {
        switch code {
        case .busy, .locked:
            "Another connection holds a lock on the database: retry, or raise DatabaseConfiguration.busyTimeout."
        case .constraint:
            "The values violate a constraint of the schema (\(extendedCode)): check them before writing, or handle the conflict (e.g. INSERT ... ON CONFLICT)."
        case .corrupt:
            "The database file is damaged: stop writing to it and restore it from a backup."
        case .notADatabase:
            "The file is not an SQLite database (or is encrypted): check the path. The file was not modified."
        case .full:
            "The disk is full: free space, then retry."
        case .readOnly:
            "The database is read-only here: check the permissions of the file and its directory, and make changes inside DatabaseQueue.write."
        case .cannotOpen:
            "SQLite could not open or create a file: check that the directory exists and is writable by this process."
        case .ioError:
            "The operating system reported an I/O error: check the disk and the filesystem."
        case .permission, .authorization:
            "Access was denied: check the permissions of the database file and its directory."
        case .error:
            "Check the SQL, and that the migrations created the tables and columns it uses."
        case .tooBig:
            "A string or blob exceeds SQLite's size limit: store less in one value."
        case .mismatch:
            "A value has the wrong type for its use (e.g. a non-integer rowid): check the bound values."
        case .range:
            "A parameter index is out of range: check the statement's arguments."
        case .interrupt, .abort:
            "The operation was interrupted or aborted: retry it."
        case .schema:
            "The schema changed while the statement ran: retry it."
        case .noMemory:
            "SQLite ran out of memory: reduce the size of the query or its results."
        case .misuse:
            "The SQLite API was misused: this is a bug in the SQLite module, please report it with the SQL."
        default:
            "See SQLite's message for details."
        }
    }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)."
        if let sql { text += " SQL: \(sql)." }
        return text + " " + recoverySuggestion
    }
}
