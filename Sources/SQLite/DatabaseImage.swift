import CSQLite

/// The bytes of a database built once in memory, to start new files from: a file created from an image holds the
/// image's schema and rows at once, in WAL mode, with no statement compiled, nothing committed and no journal.
///
/// For a program that creates many databases with the same schema (one per bot): building a schema statement by
/// statement parses each `CREATE` several times and commits it through the write-ahead log; writing the image is one
/// write and one sync. A database opened on a file made from an image is an ordinary one.
package struct DatabaseImage: Sendable {
    /// The database's pages, page 1 first, marked for WAL.
    let bytes: [UInt8]

    /// Runs `build` on a new in-memory database (a ``DatabaseMigrator``'s `migrate`, typically) and keeps its pages.
    package init(building build: (Database) throws -> Void) throws {
        let database = try Database.inMemory()
        defer { database.close() }
        try build(database)
        guard !database.isClosed else { throw DatabaseError.closed }
        var size: sqlite3_int64 = 0
        // SQLite returns no copy only when it cannot allocate one; a database holds at least its 100-byte header.
        guard let pages = sqlite3_serialize(database.connection.handle, "main", &size, 0), size >= 100 else {
            throw SQLiteError(extendedCode: ResultCode(rawValue: SQLITE_NOMEM), message: String(cString: sqlite3_errstr(SQLITE_NOMEM)))
        }
        defer { sqlite3_free(pages) }
        var bytes = Array(UnsafeBufferPointer(start: pages, count: Int(size)))
        // The header's file format write and read versions (bytes 18 and 19): 2 is WAL, what `PRAGMA journal_mode =
        // WAL` writes there, so that opening the file changes nothing in it.
        bytes[18] = 2
        bytes[19] = 2
        self.bytes = bytes
    }

    /// Creates the file at `path` (mode 0600) holding the image unless something already exists there, and returns
    /// whether it did; the file appears complete or not at all (see `DatabaseFile`). False also where the file
    /// system cannot do that: then open the database as usual, which creates an empty file.
    package func createFileIfMissing(at path: String) -> Bool {
        DatabaseFile.createOwnerOnlyIfMissing(at: path, holding: bytes)
    }
}
