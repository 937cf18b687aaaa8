import Foundation
@testable import SQLite
import Testing

/// New database files started from an image built in memory: the image's schema and rows at once, in WAL mode; a
/// creation cut short leaves no file, or the image's database without its log.
@Suite struct DatabaseImageTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func notesImage() throws -> DatabaseImage {
        try DatabaseImage { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.execute(sql: "CREATE INDEX notes_body ON notes (body)")
            try db.execute(sql: "INSERT INTO notes (body) VALUES ('first')")
        }
    }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func tables(in database: Database) throws -> [String] {
        try database.fetchAll(String.self, sql: "SELECT name FROM sqlite_master ORDER BY name")
    }

    @Test func aFileCreatedFromAnImageOpensInWALModeWithTheImagesSchemaAndRows() throws {
        let path = directory.file("notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try database.fetchOne(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(try tables(in: database) == ["notes", "notes_body"])
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first"])
        try database.execute(sql: "INSERT INTO notes (body) VALUES ('second')")
        #expect(try database.fetchOne(Int.self, sql: "SELECT count(*) FROM notes") == 2)
        #expect(try database.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func aFileFromAnImageOfSmallPagesKeepsThemAndGrowsPastTheImage() throws {
        let path = directory.file("notes.sqlite")
        let image = try DatabaseImage(pageSize: 1024) { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        #expect(image.database.count == 2 * 1024)
        #expect(image.log.count == 32 + 24 + 1024)
        #expect(image.createFileIfMissing(at: path))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try database.fetchOne(Int.self, sql: "PRAGMA page_size") == 1024)
        for _ in 0..<50 { try database.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: [String(repeating: "n", count: 500)]) }
        try database.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try database.fetchOne(Int.self, sql: "SELECT count(*) FROM notes") == 50)
        #expect(try database.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func anImageWhosePagesDifferFromTheConfiguredSizeIsRefusedBeforeAnythingIsCreated() throws {
        let path = directory.file("notes.sqlite")
        var configuration = DatabaseConfiguration(pageSize: 1024)
        configuration.newFileImage = try notesImage()
        let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path, configuration: configuration) }
        #expect(error?.description.contains("the new-file image has 4096-byte pages and the configuration asks for 1024") == true)
        #expect(try entries().isEmpty)
    }

    @Test func whatIsWrittenToAFileFromAnImageSurvivesACheckpointAndAReopening() throws {
        let path = directory.file("notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path))
        let database = try Database(path: path)
        try database.execute(sql: "INSERT INTO notes (body) VALUES ('second')")
        try database.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        database.close()
        let reopened = try Database(path: path)
        defer { reopened.close() }
        #expect(try reopened.fetchAll(String.self, sql: "SELECT body FROM notes ORDER BY id") == ["first", "second"])
        #expect(try reopened.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func anExclusiveConnectionThatMakesItsFileFromTheImageWritesAheadInItsLogWithTheSettingsAsked() throws {
        let path = directory.file("notes.sqlite")
        var configuration = DatabaseConfiguration(lockingMode: .exclusive)
        configuration.newFileImage = try notesImage()
        configuration.synchronous = .full
        configuration.journalSizeLimit = 65_536
        let database = try Database(path: path, configuration: configuration)
        defer { database.close() }
        #expect(database.createdFromImage)
        #expect(try database.fetchOne(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(try database.fetchOne(Int.self, sql: "PRAGMA synchronous") == 2)
        #expect(try database.fetchOne(Int.self, sql: "PRAGMA journal_size_limit") == 65_536)
        let writesBefore = try #require(database.writeAheadLogWrites)
        try database.execute(sql: "INSERT INTO notes (body) VALUES ('second')")
        #expect(try #require(database.writeAheadLogWrites) == writesBefore + 1)
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes ORDER BY id") == ["first", "second"])
    }

    @Test func aFileCreatedFromAnImageAndItsLogAreReadableByTheOwnerOnly() throws {
        let path = directory.file("notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path))
        #expect(try permissions(of: path) == 0o600)
        #expect(try permissions(of: path + "-wal") == 0o600)
    }

    @Test func anImageNeverReplacesAnExistingFileNorGivesItALog() throws {
        let path = directory.file("notes.sqlite")
        try Data("not mine".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try notesImage().createFileIfMissing(at: path) == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("not mine".utf8))
        #expect(try entries() == ["notes.sqlite"])
    }

    @Test func aLogLeftWithoutItsDatabaseIsDroppedNotTakenForTheNewFilesLog() throws {
        let path = directory.file("notes.sqlite")
        let image = try notesImage()
        try Data(image.log).write(to: URL(fileURLWithPath: path + "-wal"))
        #expect(image.createFileIfMissing(at: path) == false)
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try tables(in: database) == [])
        #expect(try database.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func aRollbackJournalLeftWithoutItsDatabaseIsDroppedNotPlayedIntoTheNewFile() throws {
        let path = directory.file("notes.sqlite")
        try Data(repeating: 0xd9, count: 512).write(to: URL(fileURLWithPath: path + "-journal"))
        #expect(try notesImage().createFileIfMissing(at: path) == false)
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try tables(in: database) == [])
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }

    @Test func aDatabaseFileCutShortLeavesNoFile() throws {
        let path = directory.file("notes.sqlite")
        let image = try notesImage()
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: path, holding: image.database, syncs: true, stopsAfterBytes: 100) == false)
        #expect(try entries() == [])
        #expect(image.createFileIfMissing(at: path))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first"])
    }

    @Test func aFileWhoseLogNeverCameOpensInWALModeWithTheImagesSchemaAndRows() throws {
        let path = directory.file("notes.sqlite")
        let image = try notesImage()
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: path, holding: image.database, syncs: true))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try database.fetchOne(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(try tables(in: database) == ["notes", "notes_body"])
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first"])
        #expect(try database.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func aFileWhoseLogWasTornOpensWithTheImagesSchemaAndRows() throws {
        let path = directory.file("notes.sqlite")
        let image = try notesImage()
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: path, holding: image.database, syncs: true))
        // The frame cut short: what a power loss can leave of a log never synced.
        let torn = Array(image.log.dropLast(100))
        try Data(torn).write(to: URL(fileURLWithPath: path + "-wal"))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try tables(in: database) == ["notes", "notes_body"])
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first"])
        #expect(try database.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func theFirstCommitToAFileFromAnImageAppendsToItsLogOfOneFrame() throws {
        let path = directory.file("notes.sqlite")
        let image = try notesImage()
        #expect(image.createFileIfMissing(at: path))
        let header = try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).prefix(32)
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute(sql: "INSERT INTO notes (body) VALUES ('second')")
        let log = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        // The same header (a new one would have new salts, and SQLite syncs a new log's header), and frames after the
        // image's one.
        #expect(log.prefix(32) == header)
        #expect(log.count > image.log.count)
        #expect((log.count - 32) % (24 + image.pageSize) == 0)
    }

    @Test func anImageCreatesNothingInAMissingDirectory() throws {
        let path = directory.file("missing/notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path) == false)
        #expect(try entries() == [])
    }
}
