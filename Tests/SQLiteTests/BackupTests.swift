import Foundation
import SQLite
import Testing

/// `Database.backup(to:)`: a consistent copy of the whole database in a new owner-only file, never over another.
@Suite struct BackupTests {
    let directory: TemporaryDirectory
    let exclusive = DatabaseConfiguration(lockingMode: .exclusive, keepsWriteAheadLogFile: true)

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func source() throws -> Database {
        let db = try Database(path: directory.file("source.sqlite"), configuration: exclusive)
        try db.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)")
        for index in 0..<500 { try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: ["note \(index)"]) }
        return db
    }

    @Test func theCopyHoldsEveryCommittedRowIncludingThoseOnlyInTheLog() throws {
        let db = try source()
        #expect(FileManager.default.fileExists(atPath: directory.file("source.sqlite-wal")))
        try db.backup(to: directory.file("copy.sqlite"))
        let copy = try Database(path: directory.file("copy.sqlite"))
        #expect(try copy.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 500)
        #expect(try copy.fetchOne(String.self, sql: "SELECT body FROM note ORDER BY rowid DESC LIMIT 1") == "note 499")
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 500)
    }

    @Test func theCopyIsReadableByItsOwnerOnly() throws {
        let db = try source()
        try db.backup(to: directory.file("copy.sqlite"))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("copy.sqlite"))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }

    @Test func anExistingFileIsNeitherReplacedNorRemoved() throws {
        let db = try source()
        let existing = Data("mine".utf8)
        #expect(FileManager.default.createFile(atPath: directory.file("copy.sqlite"), contents: existing))
        #expect {
            try db.backup(to: directory.file("copy.sqlite"))
        } throws: { error in
            guard case DatabaseError.cannotOpen(let path, _, _) = error else { return false }
            return path == directory.file("copy.sqlite")
        }
        #expect(FileManager.default.contents(atPath: directory.file("copy.sqlite")) == existing)
    }

    @Test func aCopyThatCannotBeWrittenLeavesNoFile() throws {
        let db = try source()
        #expect(throws: DatabaseError.self) { try db.backup(to: directory.file("absent/copy.sqlite")) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent")))
    }
}
