import Foundation
@testable import SQLite
import Synchronization
import Testing
import TestSupport

/// Dormant queues: a connection unused for the idle timeout is closed and reopened on the next use with its data
/// and settings; a connection with queued work or an open transaction is never released; a connection budget
/// evicts the least recently used idle queue and makes the others wait, never exceeding its limit.
@Suite struct DormancyTests {
    let directory: TemporaryDirectory
    let configuration = DatabaseConfiguration(lockingMode: .exclusive, walAutoCheckpointPages: 250, journalSizeLimit: 1 << 20)

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func notesQueue(_ name: String, dormancy: DatabaseDormancy) async throws -> DatabaseQueue {
        let queue = try await DatabaseQueue(path: directory.file(name), configuration: configuration, dormancy: dormancy)
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS note (body TEXT NOT NULL)")
        }
        return queue
    }

    private static func add(_ body: String, to queue: DatabaseQueue) async throws {
        try await queue.write { db in try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: [body]) }
    }

    private static func notes(_ queue: DatabaseQueue) async throws -> [String] {
        try await queue.read { db in try db.fetchAll(String.self, sql: "SELECT body FROM note ORDER BY rowid") }
    }

    private var manual: DatabaseDormancy { DatabaseDormancy(idleTimeout: .seconds(3600)) }

    @Test func idleConnectionIsClosedAfterTheTimeoutAndReopensWithItsData() async throws {
        let queue = try await notesQueue("idle.sqlite", dormancy: DatabaseDormancy(idleTimeout: .milliseconds(50)))
        try await Self.add("before", to: queue)
        #expect(await eventually { await !queue.isConnectionOpen })
        let released = queue.releaseCount
        #expect(released >= 1)
        #expect(!FileManager.default.fileExists(atPath: directory.file("idle.sqlite-wal")))
        #expect(try await Self.notes(queue) == ["before"])
        // Released again: the read reopened it. (Whether it is still open depends on how soon this task runs.)
        #expect(await eventually { queue.releaseCount > released })
    }

    @Test func aKeptWriteAheadLogFileStaysEmptyWhileDormantAndTheDataSurvives() async throws {
        var kept = configuration
        kept.keepsWriteAheadLogFile = true
        let path = directory.file("kept-wal.sqlite")
        let queue = try await DatabaseQueue(path: path, configuration: kept, dormancy: manual)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)") }
        try await Self.add("kept", to: queue)

        #expect(await queue.releaseConnectionIfIdle())

        let attributes = try FileManager.default.attributesOfItem(atPath: path + "-wal")
        #expect((attributes[.size] as? Int) == 0)
        #expect(try await Self.notes(queue) == ["kept"])
    }

    /// Moves the database at `path` (with its log, if any) to `destination`.
    private static func move(_ path: String, to destination: String) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: destination + suffix)
        }
    }

    /// Whether `error` reports the file at `path` moved, replaced or deleted.
    private static func reportsFileGone(_ error: any Error, path: String) -> Bool {
        guard case DatabaseError.cannotOpen(path, .other(let reason), _) = error else { return false }
        return reason.contains("moved, replaced or deleted")
    }

    /// A dormant queue in `lockingMode` whose file `name`, noted "kept", has been moved to `moved.sqlite`.
    private func dormantQueueMovedAway(
        from name: String, _ lockingMode: LockingMode
    ) async throws -> (queue: DatabaseQueue, path: String, configuration: DatabaseConfiguration) {
        var configuration = configuration
        configuration.lockingMode = lockingMode
        let path = directory.file(name)
        let queue = try await DatabaseQueue(path: path, configuration: configuration, dormancy: manual)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)") }
        try await Self.add("kept", to: queue)
        #expect(await queue.releaseConnectionIfIdle())
        try Self.move(path, to: directory.file("moved.sqlite"))
        return (queue, path, configuration)
    }

    @Test(arguments: [LockingMode.exclusive, .normal])
    func aDormantFileMovedAwayIsReportedAtTheNextUseAndNotMadeAgain(_ lockingMode: LockingMode) async throws {
        let (queue, path, configuration) = try await dormantQueueMovedAway(from: "dormant.sqlite", lockingMode)

        await #expect { try await Self.notes(queue) } throws: { Self.reportsFileGone($0, path: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
        let moved = try await DatabaseQueue(path: directory.file("moved.sqlite"), configuration: configuration)
        #expect(try await Self.notes(moved) == ["kept"])
    }

    @Test(arguments: [LockingMode.exclusive, .normal])
    func anotherFileMovedToADormantFilesPathIsNotTakenForItNorTouched(_ lockingMode: LockingMode) async throws {
        let (queue, path, _) = try await dormantQueueMovedAway(from: "replaced.sqlite", lockingMode)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))

        await #expect { try await Self.notes(queue) } throws: { Self.reportsFileGone($0, path: path) }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 0, "the other file is left as it was")
    }

    @Test func releasedConnectionTakesTheNextWriteWithItsSettingsReapplied() async throws {
        let queue = try await notesQueue("write.sqlite", dormancy: manual)
        #expect(await queue.releaseConnectionIfIdle())
        try await Self.add("after release", to: queue)
        let settings = try await queue.writeWithoutTransaction { db in
            [try db.fetchOne(String.self, sql: "PRAGMA locking_mode"), try db.fetchOne(String.self, sql: "PRAGMA journal_mode"),
             try db.fetchOne(Int.self, sql: "PRAGMA wal_autocheckpoint").map(String.init),
             try db.fetchOne(Int.self, sql: "PRAGMA journal_size_limit").map(String.init)]
        }
        #expect(settings == ["exclusive", "wal", "250", "1048576"])
        #expect(try await Self.notes(queue) == ["after release"])
    }

    @Test func connectionInsideATransactionIsNotReleased() async throws {
        let queue = try await notesQueue("transaction.sqlite", dormancy: manual)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO note VALUES ('pending')")
        }
        #expect(await !queue.releaseConnectionIfIdle())
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        #expect(await queue.releaseConnectionIfIdle())
        #expect(try await Self.notes(queue) == ["pending"])
    }

    @Test func releasingMemoryKeepsTheConnectionOpenAndItsStatementsGo() async throws {
        let queue = try await notesQueue("trim.sqlite", dormancy: manual)
        try await Self.add("before", to: queue)
        #expect(try await queue.writeWithoutTransaction { $0.cachedStatementCount } > 0)

        await queue.releaseMemory()

        #expect(await queue.isConnectionOpen)
        #expect(queue.releaseCount == 0)
        #expect(try await queue.writeWithoutTransaction { $0.cachedStatementCount } == 0)
        try await Self.add("after", to: queue)
        #expect(try await Self.notes(queue) == ["before", "after"])
    }

    @Test func aConnectionUnusedForTheMemoryReleaseDelayFreesItsStatementsAndStaysOpen() async throws {
        let queue = try await notesQueue(
            "memory-delay.sqlite", dormancy: DatabaseDormancy(idleTimeout: .seconds(3600), memoryReleaseDelay: .milliseconds(50)))
        try await Self.add("kept", to: queue)

        // Watched without using the connection: each use would start the delay again.
        #expect(await eventually { queue.activity.withLock { $0.memoryReleases } >= 1 })
        #expect(try await queue.writeWithoutTransaction { $0.cachedStatementCount } == 0)
        #expect(await queue.isConnectionOpen)
        #expect(queue.releaseCount == 0)
        #expect(try await Self.notes(queue) == ["kept"])
    }

    @Test func aConnectionInUseKeepsItsStatementsPastTheMemoryReleaseDelay() async throws {
        let queue = try await notesQueue(
            "memory-busy.sqlite", dormancy: DatabaseDormancy(idleTimeout: .seconds(3600), memoryReleaseDelay: .milliseconds(200)))
        // A transaction left open by hand counts as use, however long it lasts.
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO note VALUES ('pending')")
        }
        #expect(
            await eventually { queue.activity.withLock { $0.memoryKeptInUse } >= 1 },
            "a check found the connection unused for the delay")

        #expect(try await queue.writeWithoutTransaction { $0.cachedStatementCount } > 0)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        #expect(try await Self.notes(queue) == ["pending"])
    }

    @Test func releasingMemoryNeverReopensADormantConnection() async throws {
        let queue = try await notesQueue("trim-dormant.sqlite", dormancy: manual)
        #expect(await queue.releaseConnectionIfIdle())

        await queue.releaseMemory()

        #expect(await !queue.isConnectionOpen)
        #expect(try await Self.notes(queue) == [])
    }

    @Test func closedQueueRefusesWorkInsteadOfReopening() async throws {
        let queue = try await notesQueue("closed.sqlite", dormancy: manual)
        await queue.close()
        await #expect(throws: DatabaseError.self) { try await Self.notes(queue) }
        #expect(await !queue.isConnectionOpen)
    }

    @Test func dormantExclusiveDatabaseStillRefusesASecondOpenerWhileOpen() async throws {
        let queue = try await notesQueue("owned.sqlite", dormancy: manual)
        let error = await #expect(throws: DatabaseError.self) {
            _ = try await DatabaseQueue(path: directory.file("owned.sqlite"), configuration: configuration, dormancy: manual)
        }
        guard case .cannotOpen(_, .lockedByAnotherConnection, _)? = error else {
            Issue.record("expected lockedByAnotherConnection, got \(String(describing: error))")
            return
        }
        #expect(try await Self.notes(queue) == [])
    }

    @Test func fullBudgetEvictsTheLeastRecentlyUsedIdleQueue() async throws {
        let budget = ConnectionBudget(limit: 2)
        let dormancy = DatabaseDormancy(idleTimeout: .seconds(3600), budget: budget)
        let first = try await notesQueue("first.sqlite", dormancy: dormancy)
        let second = try await notesQueue("second.sqlite", dormancy: dormancy)
        try await Self.add("first's", to: first)
        try await Self.add("second's", to: second)
        try await Self.add("first's again", to: first)  // second is now the least recently used

        let third = try await notesQueue("third.sqlite", dormancy: dormancy)
        #expect(await !second.isConnectionOpen)
        #expect(await first.isConnectionOpen)
        #expect(await third.isConnectionOpen)
        #expect(budget.openCount == 2)

        #expect(try await Self.notes(second) == ["second's"])  // reopens, evicting first (least recent now)
        #expect(await !first.isConnectionOpen)
        #expect(budget.openCount == 2)
        #expect(budget.evictionCount == 2)
    }

    @Test func budgetNeverEvictsAQueueInsideATransactionAndHandsItsSlotOverAfterTheCommit() async throws {
        let budget = ConnectionBudget(limit: 1)
        let dormancy = DatabaseDormancy(idleTimeout: .seconds(3600), budget: budget)
        let holder = try await notesQueue("holder.sqlite", dormancy: dormancy)
        try await holder.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO note VALUES ('in transaction')")
        }
        let path = directory.file("waiter.sqlite")
        let configuration = self.configuration
        let waiter = Task { try await DatabaseQueue(path: path, configuration: configuration, dormancy: dormancy) }
        #expect(await eventually { budget.waitingCount == 1 }, "the new queue waits for the slot")
        #expect(await holder.isConnectionOpen)
        #expect(budget.openCount == 1)

        try await holder.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        let opened = try await waiter.value
        #expect(await opened.isConnectionOpen)
        #expect(await !holder.isConnectionOpen)
        #expect(try await Self.notes(holder) == ["in transaction"])
    }

    @Test func aWaitingQueueThatFailsToOpenAndIsDroppedLeavesTheOthersWaitingSafely() async throws {
        // The budget's list of waiters used to hold the last reference to a queue that had been served and then
        // dropped; compacting the list ran the queue's deinit under the budget's lock, which crashed the process.
        let budget = ConnectionBudget(limit: 2)
        let dormancy = DatabaseDormancy(idleTimeout: .seconds(600), budget: budget)
        let first = try await notesQueue("first.sqlite", dormancy: dormancy)
        let second = try await notesQueue("second.sqlite", dormancy: dormancy)
        // Both slots stay busy until the test lets them go, so that the three openers queue in this order.
        let started = StartedWork()
        let (firstGate, secondGate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        // A failure on the way must not leave the two queues' threads blocked (a signal too many is harmless).
        defer {
            firstGate.signal()
            secondGate.signal()
        }
        let firstBusy = Task { try await first.writeWithoutTransaction { _ in started.count.add(1, ordering: .relaxed); firstGate.wait() } }
        let secondBusy = Task { try await second.writeWithoutTransaction { _ in started.count.add(1, ordering: .relaxed); secondGate.wait() } }
        #expect(await eventually { started.count.load(ordering: .relaxed) == 2 })
        let configuration = configuration
        let (unopenable, thirdPath, fourthPath) = (
            directory.file("missing-folder/never.sqlite"), directory.file("third.sqlite"), directory.file("fourth.sqlite"))
        let failing = Task { () -> Bool in
            (try? await DatabaseQueue(path: unopenable, configuration: configuration, dormancy: dormancy)) != nil
        }
        #expect(await eventually { budget.waitingCount == 1 })
        let third = Task { try await DatabaseQueue(path: thirdPath, configuration: configuration, dormancy: dormancy) }
        #expect(await eventually { budget.waitingCount == 2 })
        let fourth = Task { try await DatabaseQueue(path: fourthPath, configuration: configuration, dormancy: dormancy) }
        #expect(await eventually { budget.waitingCount == 3 })
        firstGate.signal()

        #expect(try await withDeadline(.hangGuard, "the failing opener to be served") { await failing.value } == false)
        secondGate.signal()
        let (thirdQueue, fourthQueue) = try await withDeadline(.hangGuard, "the other openers to be served") {
            try await (third.value, fourth.value)
        }
        for queue in [thirdQueue, fourthQueue] {
            try await queue.write { db in try db.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)") }
            try await Self.add("kept", to: queue)
        }
        _ = try await (firstBusy.value, secondBusy.value)
        #expect(try await Self.notes(thirdQueue) == ["kept"])
        #expect(try await Self.notes(fourthQueue) == ["kept"])
        #expect(budget.openCount <= 2)
    }

    @Test func manyQueuesSharingOneSlotAllFinishTheirWork() async throws {
        let budget = ConnectionBudget(limit: 1)
        let dormancy = DatabaseDormancy(idleTimeout: .milliseconds(20), budget: budget)
        var queues: [DatabaseQueue] = []
        for index in 0..<5 { queues.append(try await notesQueue("shared-\(index).sqlite", dormancy: dormancy)) }
        let all = queues
        try await withThrowingTaskGroup(of: Void.self) { group in
            for queue in all {
                for index in 0..<20 {
                    group.addTask { try await Self.add("note \(index)", to: queue) }
                }
            }
            try await group.waitForAll()
        }
        for queue in queues {
            #expect(try await Self.notes(queue).count == 20)
        }
        #expect(budget.openCount <= 1)
    }
}

/// How many pieces of work have started, counted from the threads they run on.
private final class StartedWork: Sendable {
    let count = Atomic(0)
}
