import Foundation
@testable import SQLite
import Testing

/// The file-system work around a database: here, the flush a checkpoint runs before it takes the connection.
@Suite struct DatabaseFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func flushingAnExistingFileToDiskSucceedsAndLeavesItsContent() throws {
        let path = directory.file("log.sqlite-wal")
        try Data("frames".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DatabaseFile.flushToDisk(at: path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("frames".utf8))
    }

    @Test func flushingAMissingFileReportsFailureAndCreatesNothing() {
        let path = directory.file("missing.sqlite-wal")
        #expect(DatabaseFile.flushToDisk(at: path) == false)
        #expect(FileManager.default.fileExists(atPath: path) == false)
    }

    @Test func theWriteAheadLogPathIsTheOneSQLiteResolvedThroughASymbolicLink() throws {
        let real = directory.file("real.sqlite")
        let link = directory.file("link.sqlite")
        let database = try Database(path: real)
        database.close()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let linked = try Database(path: link)
        defer { linked.close() }
        let log = try #require(linked.writeAheadLogPath)
        #expect(URL(fileURLWithPath: log).resolvingSymlinksInPath() == URL(fileURLWithPath: real + "-wal").resolvingSymlinksInPath())
        #expect(log.hasSuffix("real.sqlite-wal"))
    }

    @Test func anExclusiveConnectionThroughASymbolicLinkKeepsItsLogBesideTheRealFile() throws {
        let real = directory.file("real.sqlite")
        let link = directory.file("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let linked = try Database(path: link, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        defer { linked.close() }
        try linked.execute(sql: "CREATE TABLE notes (body TEXT)")
        #expect(linked.writeAheadLogPath == real + "-wal")
        #expect(FileManager.default.fileExists(atPath: real + "-wal"))
        #expect(FileManager.default.fileExists(atPath: link + "-wal") == false)
    }

    @Test func anExclusiveConnectionKeepsAPlainPathAsWrittenAndResolvesOtherSpellings() throws {
        let path = directory.file("notes.sqlite")
        let plain = try Database(path: path, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        try plain.execute(sql: "CREATE TABLE notes (body TEXT)")
        #expect(plain.writeAheadLogPath == path + "-wal")
        plain.close()
        let spelled = directory.file("./sub/../notes.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: true)
        let resolved = try Database(path: spelled, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        defer { resolved.close() }
        #expect(try resolved.fetchAll(String.self, sql: "SELECT name FROM sqlite_master") == ["notes"])
        #expect(resolved.writeAheadLogPath == path + "-wal")
    }

    @Test func theFramesOfACommitReachAnExclusiveConnectionsLogInOneWrite() throws {
        let path = directory.file("frames.sqlite")
        let database = try Database(path: path, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        defer { database.close() }
        try database.execute(sql: "CREATE TABLE notes (body TEXT)")
        let pageSize = try #require(try database.fetchOne(Int.self, sql: "PRAGMA page_size"))
        let writesBefore = try #require(database.writeAheadLogWrites)
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        try database.execute(sql: "INSERT INTO notes VALUES (?)", arguments: [String(repeating: "n", count: 3 * pageSize)])
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        let frames = (sizeAfter - sizeBefore) / (24 + pageSize)
        #expect(frames >= 4, "the row's page and its three overflow pages")
        #expect(try #require(database.writeAheadLogWrites) - writesBefore == 1)
        #expect(try database.fetchOne(Int.self, sql: "SELECT length(body) FROM notes") == 3 * pageSize)
    }

    @Test func theFirstCommitToALogOpenedWithFramesReachesItInOneWrite() throws {
        let path = directory.file("written.sqlite")
        let configuration = DatabaseConfiguration(lockingMode: .exclusive)
        let first = try Database(path: path, configuration: configuration)
        defer { first.close() }
        try first.execute(sql: "CREATE TABLE notes (body TEXT)")
        try first.execute(sql: "INSERT INTO notes VALUES ('first')")
        // The files as a process killed now would leave them: the log holds both commits.
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: directory.file("copied.sqlite") + suffix)
        }
        let database = try Database(path: directory.file("copied.sqlite"), configuration: configuration)
        defer { database.close() }
        let writesBefore = try #require(database.writeAheadLogWrites)
        try database.execute(sql: "INSERT INTO notes VALUES ('second')")
        #expect(try #require(database.writeAheadLogWrites) - writesBefore == 1)
        #expect(try database.fetchAll(String.self, sql: "SELECT body FROM notes") == ["first", "second"])
    }

    @Test func aCommitLargerThanTheVFSHoldsReachesTheLogInSeveralWritesAndWhole() throws {
        let path = directory.file("large.sqlite")
        let database = try Database(path: path, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        defer { database.close() }
        try database.execute(sql: "CREATE TABLE notes (body BLOB NOT NULL)")
        let writesBefore = try #require(database.writeAheadLogWrites)
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        // 3 MiB in one commit: more than the 120 KiB of frames the VFS holds back at a time.
        try database.execute(sql: "INSERT INTO notes VALUES (zeroblob(3 * 1024 * 1024))")
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        let writes = try #require(database.writeAheadLogWrites) - writesBefore
        let pageSize = try #require(try database.fetchOne(Int.self, sql: "PRAGMA page_size"))
        let frames = (sizeAfter - sizeBefore) / (24 + pageSize)
        #expect(writes >= frames * (24 + pageSize) / (120 * 1024), "no write longer than what is held")
        #expect(writes * 10 < frames, "runs of many frames")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: directory.file("copied.sqlite") + suffix)
        }
        let recovered = try Database(path: directory.file("copied.sqlite"))
        defer { recovered.close() }
        #expect(try recovered.fetchOne(Int.self, sql: "SELECT length(body) FROM notes") == 3 * 1024 * 1024)
    }

    @Test func aCommitWhoseFramesSQLiteRewroteIsWholeInTheLogWhenItReturns() throws {
        let path = directory.file("spilled.sqlite")
        let database = try Database(path: path, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        defer { database.close() }
        // A cache of 20 pages, spilling once it is full, writes the transaction's pages to the log before it commits;
        // changing a spilled page again makes SQLite rewrite the frames' checksums at commit, the commit frame's
        // header last.
        try database.execute(sql: "PRAGMA cache_size = 20")
        try database.execute(sql: "PRAGMA cache_spill = 20")
        try database.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        let pageSize = try #require(try database.fetchOne(Int.self, sql: "PRAGMA page_size"))
        let writesBefore = try #require(database.writeAheadLogWrites)
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        try database.transaction(.immediate) { db in
            for id in 1...200 {
                try db.execute(
                    sql: "INSERT INTO notes (id, body) VALUES (?, ?)", arguments: [id, String(repeating: "n", count: 1_000)])
            }
            try db.execute(sql: "UPDATE notes SET body = 'changed' WHERE id = 1")
        }
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        let frames = (sizeAfter - sizeBefore) / (24 + pageSize)
        #expect(try #require(database.writeAheadLogWrites) - writesBefore > frames, "frames written again, checksums rewritten")
        // What a process killed right now would leave: the files as they are, copied while the connection is open.
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: directory.file("killed.sqlite") + suffix)
        }
        let recovered = try Database(path: directory.file("killed.sqlite"))
        defer { recovered.close() }
        #expect(try recovered.fetchOne(Int.self, sql: "SELECT count(*) FROM notes") == 200)
        #expect(try recovered.fetchOne(String.self, sql: "SELECT body FROM notes WHERE id = 1") == "changed")
    }

    @Test func aPlainPathThroughALinkedDirectoryIsKeptAsWritten() throws {
        try FileManager.default.createDirectory(atPath: directory.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("linked"), withDestinationPath: directory.file("real"))
        let path = directory.file("linked/notes.sqlite")
        let database = try Database(path: path, configuration: DatabaseConfiguration(lockingMode: .exclusive))
        defer { database.close() }
        try database.execute(sql: "CREATE TABLE notes (body TEXT)")
        #expect(database.writeAheadLogPath == path + "-wal")
        #expect(FileManager.default.fileExists(atPath: directory.file("real/notes.sqlite-wal")))
    }

    @Test func aConnectionThatLeavesLockingToSQLiteOpensItsLogTheUsualWay() throws {
        let database = try Database(path: directory.file("shared.sqlite"))
        defer { database.close() }
        try database.execute(sql: "CREATE TABLE notes (body TEXT)")
        #expect(database.writeAheadLogWrites == nil)
    }

    @Test func aDatabaseInMemoryHasNoWriteAheadLogPath() throws {
        let database = try Database(path: ":memory:")
        defer { database.close() }
        #expect(database.writeAheadLogPath == nil)
    }
}
