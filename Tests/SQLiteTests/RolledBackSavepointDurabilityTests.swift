import Foundation
import SQLite
import Testing
import TestSupport

/// A savepoint rolled back after its transaction's pages were written to the log early (SQLite does so when they
/// outgrow the cache, and writes a page again when it changes again): SQLite 3.40's recovery of that log, what the
/// next open runs after a kill, stops before commits that had returned, or reads a malformed database. The
/// connection keeps a transaction's pages in memory instead.
@Suite struct RolledBackSavepointDurabilityTests {
    struct Refused: Error {}

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Replaces up to `count` of 400 rows with blobs of 100, 1,000 or 3,000 bytes.
    static func write(_ database: Database, count: Int, using random: inout SeededGenerator) throws {
        for _ in 0..<count {
            try database.execute(
                sql: "INSERT OR REPLACE INTO notes (id, body) VALUES (?, zeroblob(?))",
                arguments: [Int.random(in: 0..<400, using: &random), [100, 1_000, 3_000].randomElement(using: &random) ?? 100])
        }
    }

    @Test(arguments: [LockingMode.normal, .exclusive])
    func everyCommitAfterARolledBackSavepointSurvivesAKill(lockingMode: LockingMode) throws {
        let path = directory.file("kept.sqlite")
        let database = try Database(path: path, configuration: DatabaseConfiguration(lockingMode: lockingMode))
        defer { database.close() }
        // A cache of 10 pages: with SQLite's default, most of these transactions would write pages to the log early.
        try database.execute(sql: "PRAGMA cache_size = 10")
        try database.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        try database.execute(sql: "CREATE TABLE progress (id INTEGER PRIMARY KEY, commits INTEGER NOT NULL)")
        try database.execute(sql: "INSERT INTO progress (id, commits) VALUES (1, 0)")
        var random = SeededGenerator(seed: 7)
        var lost: [String] = []
        for commit in 1...60 {
            try database.transaction(.immediate) { db in
                try Self.write(db, count: Int.random(in: 0...30, using: &random), using: &random)
                if Double.random(in: 0..<1, using: &random) < 0.6 {
                    let refuses = Bool.random(using: &random)
                    do {
                        try db.transaction { inner in
                            try Self.write(inner, count: Int.random(in: 0...60, using: &random), using: &random)
                            if refuses { throw Refused() }
                        }
                    } catch is Refused {}
                }
                try db.execute(sql: "UPDATE progress SET commits = ? WHERE id = 1", arguments: [commit])
            }
            // Every tenth commit empties the log into the database, as the queue's checkpoints do.
            if commit % 10 == 0 { try database.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            // What a process killed right now would leave: the files as they are, copied while the connection is open.
            let copy = directory.file("killed-\(commit).sqlite")
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
            }
            let recovered = try Database(path: copy)
            let found = try? recovered.fetchOne(Int.self, sql: "SELECT commits FROM progress WHERE id = 1")
            let check = try? recovered.fetchOne(String.self, sql: "PRAGMA integrity_check")
            recovered.close()
            if found != commit || check != "ok" { lost.append("commit \(commit): found \(String(describing: found)), \(String(describing: check))") }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        }
        #expect(lost.isEmpty, "\(lost)")
    }
}
