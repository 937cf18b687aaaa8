import SQLite
import Testing

/// SQLite counts its memory only in a process that asked before its first database opened (the count costs every
/// allocation a process-wide mutex). This test process never asks.
@Suite struct MemoryStatisticsTests {
    @Test func askingAfterADatabaseOpenedIsRefusedAndNothingIsCounted() async throws {
        let queue = try await DatabaseQueue.inMemory()
        try await queue.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        #expect(SQLiteMemoryStatistics.enable() == false)
        #expect(SQLiteMemoryStatistics.bytesInUse == nil)
        await queue.close()
    }
}
