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
}
