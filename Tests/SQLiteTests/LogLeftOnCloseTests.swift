import Foundation
import SQLite
import Testing

/// `maxLogPagesLeftOnClose`: closing leaves a short write-ahead log for the next open to read back, and still
/// checkpoints a long one.
@Suite struct LogLeftOnCloseTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func queue(_ name: String) async throws -> DatabaseQueue {
        let configuration = DatabaseConfiguration(
            lockingMode: .exclusive, journalSizeLimit: 0, keepsWriteAheadLogFile: true, maxLogPagesLeftOnClose: 16,
            runsUncontendedWorkInline: true)
        return try await DatabaseQueue(path: directory.file(name), configuration: configuration)
    }

    /// As the stores of bots: checkpoints after a few pages, the log file kept at its size between checkpoints.
    private func checkpointingQueue(_ name: String) async throws -> DatabaseQueue {
        let configuration = DatabaseConfiguration(
            lockingMode: .exclusive, walAutoCheckpointPages: 8, journalSizeLimit: 67_108_864, keepsWriteAheadLogFile: true,
            maxLogPagesLeftOnClose: 16, runsUncontendedWorkInline: true, pageSize: 4096)
        return try await DatabaseQueue(path: directory.file(name), configuration: configuration)
    }

    private func logSize(_ name: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: directory.file(name + "-wal"))[.size] as? Int ?? -1
    }

    @Test func aShortLogStaysAtCloseAndTheNextOpenReadsItBack() async throws {
        let first = try await queue("short.sqlite")
        try await first.write { db in try db.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)") }
        try await first.write { db in try db.execute(sql: "INSERT INTO note VALUES ('kept in the log')") }
        await first.close()
        #expect(try logSize("short.sqlite") > 0)
        let second = try await queue("short.sqlite")
        #expect(try await second.read { db in try db.fetchOne(String.self, sql: "SELECT body FROM note") } == "kept in the log")
        await second.close()
    }

    @Test func aLongLogIsCheckpointedAtClose() async throws {
        let first = try await queue("long.sqlite")
        try await first.write { db in try db.execute(sql: "CREATE TABLE blob (data BLOB NOT NULL)") }
        try await first.write { db in
            try db.execute(sql: "INSERT INTO blob VALUES (?)", arguments: [Data(repeating: 7, count: 200_000)])
        }
        await first.close()
        #expect(try logSize("long.sqlite") == 0)
        let second = try await queue("long.sqlite")
        #expect(try await second.read { db in try db.fetchOne(Int.self, sql: "SELECT length(data) FROM blob") } == 200_000)
        await second.close()
    }

    @Test func aLogACheckpointCopiedIsEmptiedAtClose() async throws {
        let first = try await checkpointingQueue("copied.sqlite")
        try await first.write { db in try db.execute(sql: "CREATE TABLE blob (data BLOB NOT NULL)") }
        // About 10 pages: past the checkpoint's 8, within the 16 that closing may leave.
        try await first.write { db in
            try db.execute(sql: "INSERT INTO blob VALUES (?)", arguments: [Data(repeating: 7, count: 40_000)])
        }
        await first.close()  // after the checkpoint that commit queued
        #expect(try logSize("copied.sqlite") == 0)
        let second = try await checkpointingQueue("copied.sqlite")
        #expect(try await second.read { db in try db.fetchOne(Int.self, sql: "SELECT length(data) FROM blob") } == 40_000)
        await second.close()
    }

    @Test func aShortLogLeftAtCloseKeepsOnlyItsOwnFramesInTheFile() async throws {
        let first = try await checkpointingQueue("restarted.sqlite")
        try await first.write { db in try db.execute(sql: "CREATE TABLE note (body BLOB NOT NULL)") }
        try await first.write { db in
            try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: [Data(repeating: 7, count: 100_000)])
        }
        _ = await first.isConnectionOpen  // after the checkpoint that commit queued
        let highWater = try logSize("restarted.sqlite")
        try await first.write { db in try db.execute(sql: "INSERT INTO note VALUES ('kept in the log')") }
        await first.close()
        #expect(highWater > 32 + 16 * (24 + 4096))
        #expect(try logSize("restarted.sqlite") <= 32 + 16 * (24 + 4096))
        let second = try await checkpointingQueue("restarted.sqlite")
        #expect(try await second.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") } == 2)
        await second.close()
    }
}
