import CSQLite

/// A database built once in memory, to start new files from: a file created from an image holds the image's schema
/// and rows at once, in WAL mode, with no statement compiled and no transaction committed.
///
/// For a program that creates many databases with the same schema (one per bot): building a schema statement by
/// statement parses each `CREATE` several times and commits it through a new write-ahead log, whose header SQLite
/// syncs. A file from an image is every page of the image, synced before it has a name, and a log of one frame
/// (page 1 again, committing the whole image), not synced: SQLite appends to that log, so the first commit syncs no
/// log header, and opening the file reads one frame back rather than the whole schema. A crash or a power loss leaves
/// no file, or the image's database whether or not its log came (SQLite ignores frames whose checksums fail). A
/// database opened on such a file is an ordinary one.
package struct DatabaseImage: Sendable, Hashable {
    /// A new file's content: every page of the built database, page 1 marked for WAL.
    let database: [UInt8]
    /// A new file's write-ahead log: page 1 of ``database`` in one frame, committing all of its pages.
    let log: [UInt8]
    /// The size in bytes of the image's pages, and so of a file created from it.
    package let pageSize: Int

    /// Runs `build` on a new in-memory database (a ``DatabaseMigrator``'s `migrate`, typically) and keeps its pages,
    /// of `pageSize` bytes (see ``DatabaseConfiguration/pageSize``; nil: SQLite's default).
    package init(pageSize: Int? = nil, building build: (Database) throws -> Void) throws {
        let configuration = DatabaseConfiguration(pageSize: pageSize)
        let built = try Self.pages(configuration) { try build($0) }
        let pageSize = Self.pageSize(of: built)
        guard built.count % pageSize == 0 else {
            throw SQLiteError(extendedCode: ResultCode(rawValue: SQLITE_INTERNAL), message: "unexpected page sizes in a database image")
        }
        database = built
        self.pageSize = pageSize
        log = Self.writeAheadLog(committing: built, pageSize: pageSize)
    }

    /// Creates the file at `path` (mode 0600) from the image unless something already exists there, and returns
    /// whether it made both the file and its log of one frame. The database file appears whole or not at all (see
    /// `DatabaseFile`), and before its log. False also where the file system cannot do that (then open the database as
    /// usual, which creates an empty file), and when the log could not be made: the file then holds the whole image
    /// and opens as any existing database, whose first commit starts a new log.
    package func createFileIfMissing(at path: String) -> Bool {
        // A log or rollback journal left without its database (a store deleted but not its -wal) is no one's: SQLite
        // deletes it when it opens an empty file, where beside the image it would be replayed onto the image's pages.
        // So that way is left to it. Any other log appears only once the file below exists.
        guard !DatabaseFile.exists(path + "-wal"), !DatabaseFile.exists(path + "-journal"),
            DatabaseFile.createOwnerOnlyIfMissing(at: path, holding: database, syncs: true)
        else { return false }
        // A log already there (another process opening the new file first) is SQLite's to use: its name is not
        // taken. It was not there a moment ago, so this one is written without looking first.
        return DatabaseFile.createOwnerOnlyIfMissing(at: path + "-wal", holding: log, syncs: false, looksFirst: false)
    }

    /// The pages of a new in-memory database after `build`, page 1 marked for WAL.
    private static func pages(_ configuration: DatabaseConfiguration, _ build: (Database) throws -> Void) throws -> [UInt8] {
        let database = try Database.inMemory(configuration: configuration)
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
        // WAL` writes there.
        bytes[18] = 2
        bytes[19] = 2
        return bytes
    }

    /// The page size in the header (bytes 16 and 17, big-endian; 1 stands for 65,536).
    private static func pageSize(of database: [UInt8]) -> Int {
        let size = Int(database[16]) << 8 | Int(database[17])
        return size == 1 ? 65_536 : size
    }

    /// A write-ahead log (SQLite's file format, section 4) of one frame holding page 1 of `database` and committing a
    /// database of all its pages: a 32-byte header, a 24-byte frame header and the page. Checksums chain from the
    /// header through the frame, over little-endian words (the magic number 0x377f0682 says so).
    static func writeAheadLog(committing database: [UInt8], pageSize: Int) -> [UInt8] {
        let pageCount = UInt32(database.count / pageSize)
        let salts = (UInt32.random(in: .min ... .max), UInt32.random(in: .min ... .max))
        var log: [UInt8] = []
        log.reserveCapacity(32 + 24 + pageSize)
        for word in [0x377f_0682, 3_007_000, UInt32(pageSize), 0, salts.0, salts.1] { log.appendBigEndian(word) }
        var sum = checksum(log[0..<24], continuing: (0, 0))
        log.appendBigEndian(sum.0)
        log.appendBigEndian(sum.1)
        let page = database[0..<pageSize]
        for word in [1, pageCount, salts.0, salts.1] { log.appendBigEndian(word) }
        sum = checksum(log[32..<40], continuing: sum)
        sum = checksum(page, continuing: sum)
        log.appendBigEndian(sum.0)
        log.appendBigEndian(sum.1)
        log.append(contentsOf: page)
        return log
    }

    /// SQLite's log checksum of `bytes` (a multiple of 8 long) continuing from `sum`, over little-endian words.
    static func checksum(_ bytes: ArraySlice<UInt8>, continuing sum: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = sum
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset + 8 <= buffer.count {
                s0 = s0 &+ UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) &+ s1
                s1 = s1 &+ UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)) &+ s0
                offset += 8
            }
        }
        return (s0, s1)
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ word: UInt32) {
        append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
    }
}
