import Foundation
import SQLite
import Synchronization
import Testing

/// Databases sharing workers: at most `count` of them run work at once, each keeps its own order, and dormancy
/// still releases and reopens their connections.
@Suite struct DatabaseWorkersTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Counts the closures running at once, and the most seen.
    final class Overlap: Sendable {
        private let state = Mutex((running: 0, most: 0))
        var most: Int { state.withLock { $0.most } }

        func run(_ body: () throws -> Void) rethrows {
            state.withLock { state in
                state.running += 1
                state.most = max(state.most, state.running)
            }
            defer { state.withLock { $0.running -= 1 } }
            try body()
        }
    }

    private func listQueue(_ name: String, workers: DatabaseWorkers, dormancy: DatabaseDormancy? = nil) async throws -> DatabaseQueue {
        let queue = try await DatabaseQueue(path: directory.file(name), dormancy: dormancy, workers: workers)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE item (n INTEGER NOT NULL)") }
        return queue
    }

    @Test func databasesOnOneWorkerNeverRunAtOnce() async throws {
        let workers = DatabaseWorkers(count: 1)
        let queues = [try await listQueue("a.sqlite", workers: workers), try await listQueue("b.sqlite", workers: workers)]
        let overlap = Overlap()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for queue in queues {
                for n in 0..<5 {
                    group.addTask {
                        try await queue.write { db in
                            try overlap.run {
                                Thread.sleep(forTimeInterval: 0.005)
                                try db.execute(sql: "INSERT INTO item VALUES (?)", arguments: [n])
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }

        #expect(overlap.most == 1)
        for queue in queues {
            #expect(try await queue.read { try $0.fetchOne(Int.self, sql: "SELECT count(*) FROM item") } == 5)
        }
    }

    @Test func eachDatabaseKeepsTheOrderOfItsOwnWork() async throws {
        let workers = DatabaseWorkers(count: 2)
        let queues = [
            try await listQueue("x.sqlite", workers: workers), try await listQueue("y.sqlite", workers: workers),
            try await listQueue("z.sqlite", workers: workers),
        ]
        await withTaskGroup(of: Void.self) { group in
            for queue in queues {
                group.addTask {
                    for n in 0..<20 {
                        try? await queue.write { db in try db.execute(sql: "INSERT INTO item VALUES (?)", arguments: [n]) }
                    }
                }
            }
        }
        for queue in queues {
            #expect(try await queue.read { try $0.fetchAll(Int.self, sql: "SELECT n FROM item ORDER BY rowid") } == Array(0..<20))
        }
    }

    @Test func aDormantDatabaseOnSharedWorkersReopensWithItsData() async throws {
        let workers = DatabaseWorkers(count: 1)
        let queue = try await listQueue("dormant.sqlite", workers: workers, dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        try await queue.write { db in try db.execute(sql: "INSERT INTO item VALUES (7)") }

        #expect(await queue.releaseConnectionIfIdle())
        #expect(await !queue.isConnectionOpen)

        #expect(try await queue.read { try $0.fetchAll(Int.self, sql: "SELECT n FROM item") } == [7])
        #expect(await queue.isConnectionOpen)
    }

    @Test func workersCountAtLeastOne() {
        #expect(DatabaseWorkers(count: 0).count == 1)
        #expect(DatabaseWorkers.shared.count >= 8)
    }
}
