import Foundation
@testable import SQLite
import Testing

/// New database files started from an image built in memory: the image's schema and rows at once, in WAL mode, and
/// a file that is complete or absent.
@Suite struct DatabaseImageTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func notesImage() throws -> DatabaseImage {
        try DatabaseImage { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO notes (body) VALUES ('first')")
        }
    }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func aFileCreatedFromAnImageOpensInWALModeWithTheImagesSchemaAndRows() throws {
        let path = directory.file("notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try database.fetchOne(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first"])
        try database.execute(sql: "INSERT INTO notes (body) VALUES ('second')")
        #expect(try database.fetchOne(Int.self, sql: "SELECT count(*) FROM notes") == 2)
        #expect(try database.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func aFileCreatedFromAnImageIsReadableByTheOwnerOnly() throws {
        let path = directory.file("notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path))
        #expect(try permissions(of: path) == 0o600)
    }

    @Test func anImageNeverReplacesAnExistingFile() throws {
        let path = directory.file("notes.sqlite")
        try Data("not mine".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try notesImage().createFileIfMissing(at: path) == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("not mine".utf8))
        #expect(try entries() == ["notes.sqlite"])
    }

    @Test func aCreationStoppedPartwayLeavesNoFileAndTheNextOneIsComplete() throws {
        let path = directory.file("notes.sqlite")
        let image = try notesImage()
        #expect(DatabaseFile.createOwnerOnlyIfMissing(at: path, holding: image.bytes, stopsAfterBytes: 1000) == false)
        #expect(try entries() == [])
        #expect(image.createFileIfMissing(at: path))
        let database = try Database(path: path)
        defer { database.close() }
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first"])
    }

    @Test func anImageCreatesNothingInAMissingDirectory() throws {
        let path = directory.file("missing/notes.sqlite")
        #expect(try notesImage().createFileIfMissing(at: path) == false)
        #expect(try entries() == [])
    }
}
