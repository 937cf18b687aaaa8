import Foundation
import Synchronization
@testable import SQLite
import TestSupport
import Testing

/// With `runsUncontendedWorkInline`, a call that finds the connection open and idle runs on the caller's task
/// instead of the queue's thread; whatever may block (opening, checkpoints) still runs on the queue's thread.
@Suite struct InlineWorkTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func queue(
        _ name: String = "inline.sqlite", inline: Bool = true, synchronous: SynchronousMode = .normal,
        lockingMode: LockingMode = .exclusive, checkpointPages: Int? = nil, dormancy: DatabaseDormancy? = nil
    ) async throws -> DatabaseQueue {
        let configuration = DatabaseConfiguration(
            synchronous: synchronous, lockingMode: lockingMode, walAutoCheckpointPages: checkpointPages,
            runsUncontendedWorkInline: inline)
        let queue = try await DatabaseQueue(path: directory.file(name), configuration: configuration, dormancy: dormancy)
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS counter (n INTEGER NOT NULL)")
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS blobs (data BLOB NOT NULL)")
            if try db.fetchOne(Int.self, sql: "SELECT count(*) FROM counter") == 0 {
                try db.execute(sql: "INSERT INTO counter VALUES (0)")
            }
        }
        return queue
    }

    /// Whether the closure ran on the calling task (inline) rather than on the queue's dispatch thread.
    @Sendable private static func runsOnATask(_ db: Database) -> Bool {
        withUnsafeCurrentTask { $0 != nil }
    }

    @Sendable private static func increment(_ db: Database) throws {
        let n = try db.fetchOne(Int.self, sql: "SELECT n FROM counter") ?? 0
        try db.execute(sql: "UPDATE counter SET n = ?", arguments: [n + 1])
    }

    @Test func anUncontendedCallRunsOnTheCallersTask() async throws {
        let queue = try await queue()
        #expect(try await queue.write(Self.runsOnATask))
        #expect(try await queue.read(Self.runsOnATask))
    }

    @Test func withoutTheOptionEveryCallRunsOnTheQueuesThread() async throws {
        let queue = try await queue(inline: false)
        #expect(try await queue.write(Self.runsOnATask) == false)
    }

    @Test(arguments: [SynchronousMode.full, .extra])
    func commitsThatFsyncRunOnTheQueuesThreadEvenWithTheOption(synchronous: SynchronousMode) async throws {
        let queue = try await queue(synchronous: synchronous)
        #expect(try await queue.write(Self.runsOnATask) == false)
    }

    @Test func sharedLockingRunsEveryCallOnTheQueuesThreadEvenWithTheOption() async throws {
        let queue = try await queue(lockingMode: .normal)
        #expect(try await queue.write(Self.runsOnATask) == false)
    }

    @Test func aDormantConnectionReopensAndStartsItsLogOnTheQueuesThreadThenRunsInline() async throws {
        let queue = try await queue(dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        #expect(await queue.releaseConnectionIfIdle())
        #expect(try await queue.write(Self.runsOnATask) == false, "reopening")
        let firstCommitInline = try await queue.write { db in
            try Self.increment(db)
            return Self.runsOnATask(db)
        }
        #expect(firstCommitInline == false, "the first commit starts a new log, whose header is synced")
        #expect(try await queue.write(Self.runsOnATask))
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 1)
    }

    @Test func aFileJustMadeFromAnImageRunsItsFirstCommitInlineAppendingToTheImagesLog() async throws {
        var configuration = DatabaseConfiguration(lockingMode: .exclusive, runsUncontendedWorkInline: true)
        configuration.newFileImage = try DatabaseImage { db in try db.execute(sql: "CREATE TABLE counter (n INTEGER NOT NULL)") }
        let path = directory.file("from-image.sqlite")
        let queue = try await DatabaseQueue(path: path, configuration: configuration)
        #expect(queue.createdFileFromImage)
        let header = try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).prefix(32)
        let firstCommitInline = try await queue.write { db in
            try db.execute(sql: "INSERT INTO counter VALUES (1)")
            return Self.runsOnATask(db)
        }
        #expect(firstCommitInline, "the image's log has a frame: the commit appends to it and syncs nothing")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).prefix(32) == header)
        await queue.close()
    }

    @Test func concurrentCallsInlineAndQueuedNeverOverlap() async throws {
        let queue = try await queue()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<300 {
                group.addTask { try await queue.write(Self.increment) }
            }
            try await group.waitForAll()
        }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 300)
    }

    @Test func commitsLeaveTheCheckpointToTheQueueWhichRunsIt() async throws {
        let queue = try await queue(checkpointPages: 16)
        let blob = [UInt8](repeating: 7, count: 8_192)
        var mostFramesSeen: Int32 = 0
        for _ in 0..<40 {
            let frames = try await queue.write { db in
                try db.execute(sql: "INSERT INTO blobs VALUES (?)", arguments: [blob])
                return db.logFrames
            }
            mostFramesSeen = max(mostFramesSeen, frames)
        }
        // A call through the dispatch queue runs after every checkpoint scheduled before it.
        await queue.releaseMemory()
        let due = try await queue.read { db in db.isCheckpointDue }
        #expect(!due, "40 commits of two or more pages each would leave 80+ frames unless checkpointed")
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM blobs") } == 40)
        #expect(mostFramesSeen > 0, "the log's frames are counted")
    }

    @Test func theCommitAfterACheckpointStartsTheLogOnTheQueuesThread() async throws {
        let queue = try await queue(checkpointPages: 4)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO blobs VALUES (?)", arguments: [[UInt8](repeating: 1, count: 32_768)])
        }
        await queue.releaseMemory()  // after the checkpoint that write made due
        let afterCheckpoint = try await queue.write { db in
            try Self.increment(db)
            return Self.runsOnATask(db)
        }
        #expect(afterCheckpoint == false, "it syncs the new log's header")
        #expect(try await queue.write(Self.runsOnATask))
    }

    @Test func zeroCheckpointPagesNeverCheckpointsAsSQLiteReadsIt() async throws {
        let queue = try await queue(checkpointPages: 0)
        let blob = [UInt8](repeating: 7, count: 8_192)
        for _ in 0..<40 {
            try await queue.write { db in try db.execute(sql: "INSERT INTO blobs VALUES (?)", arguments: [blob]) }
        }
        await queue.releaseMemory()
        let (due, frames) = try await queue.read { db in (db.isCheckpointDue, db.logFrames) }
        #expect(!due)
        #expect(frames >= 80, "every commit's frames are still in the log")
    }

    // MARK: - Passes

    @Test func passesRunAgainWhileTheyReturnTrueAndAllOnTheQueuesThread() async throws {
        let queue = try await queue()
        let onTasks = Mutex<[Bool]>([])
        try await queue.writePasses { db in
            try Self.increment(db)
            onTasks.withLock { $0.append(Self.runsOnATask(db)) }
            return try db.fetchOne(Int.self, sql: "SELECT n FROM counter") ?? 0 < 5
        }
        #expect(onTasks.withLock { $0 } == [false, false, false, false, false])
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 5)
    }

    /// Runs passes on `queue` until `isDone` holds (or a hang guard has passed), calling `start` in the first one;
    /// returns how many passes ran.
    private static func passes(
        on queue: DatabaseQueue, starting start: @escaping @Sendable () -> Void,
        until isDone: @escaping @Sendable (Database) throws -> Bool
    ) async throws -> Int {
        let passes = Mutex(0)
        let deadline = ContinuousClock.now + .hangGuard
        try await queue.writePasses { db in
            let count = passes.withLock { passes in
                passes += 1
                return passes
            }
            if count == 1 { start() }
            return try !isDone(db) && ContinuousClock.now < deadline
        }
        return passes.withLock { $0 }
    }

    @Test func aCallMadeWhilePassesRunIsServedBetweenTwoPasses() async throws {
        let queue = try await queue()
        let passes = try await Self.passes(on: queue, starting: { Task { try await queue.write(Self.increment) } }) { db in
            try db.fetchOne(Int.self, sql: "SELECT n FROM counter") == 1
        }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 1)
        #expect(passes > 1, "the call came after the first pass")
    }

    /// Two databases on one shared worker: the passes of one must not keep the worker from the other.
    @Test func passesLeaveASharedWorkerToItsOtherDatabasesBetweenThem() async throws {
        let workers = DatabaseWorkers(count: 1)
        let flooded = try await DatabaseQueue(path: directory.file("flooded.sqlite"), workers: workers)
        let other = try await DatabaseQueue(path: directory.file("other.sqlite"), workers: workers)
        let served = Flag()
        let start: @Sendable () -> Void = {
            Task {
                try await other.write { db in try db.execute(sql: "CREATE TABLE served (n INTEGER)") }
                served.raise()
            }
        }
        _ = try await Self.passes(on: flooded, starting: start) { _ in served.isRaised }
        #expect(served.isRaised, "the other database's call waited for the passes to end")
    }

    @Test func aPassThatThrowsEndsThePassesWithItsError() async throws {
        let queue = try await queue()
        let passes = Mutex(0)
        await #expect(throws: SQLiteError.self) {
            try await queue.writePasses { db in
                passes.withLock { $0 += 1 }
                try db.execute(sql: "INSERT INTO missing VALUES (1)")
                return true
            }
        }
        #expect(passes.withLock { $0 } == 1)
        #expect(try await queue.write(Self.runsOnATask), "calls run inline again afterwards")
    }

    @Test func aCheckpointThePassesMadeDueRunsBeforeTheNextPass() async throws {
        let queue = try await queue(checkpointPages: 16)
        let blob = [UInt8](repeating: 7, count: 8_192)
        let dueAtStart = Mutex<[Bool]>([])
        try await queue.writePasses { db in
            let count = dueAtStart.withLock { seen in
                seen.append(db.isCheckpointDue)
                return seen.count
            }
            try db.execute(sql: "INSERT INTO blobs VALUES (?)", arguments: [blob])
            return count < 40
        }
        #expect(dueAtStart.withLock { $0 }.allSatisfy { !$0 }, "40 commits of two or more pages would leave 80+ frames")
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM blobs") } == 40)
    }

    // MARK: - writeInlineIfFree

    @Test(arguments: [false, true])
    func writeInlineIfFreeRunsAtOnceAndReturnsTheResult(dormant: Bool) async throws {
        let queue = try await queue(dormancy: dormant ? DatabaseDormancy(idleTimeout: .seconds(3600)) : nil)
        let result = queue.writeInlineIfFree { db in
            try Self.increment(db)
            return try db.fetchOne(Int.self, sql: "SELECT n FROM counter")
        }
        #expect(try result?.get() == 1)
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 1)
    }

    @Test func writeInlineIfFreeReturnsTheBodysErrorAsAFailure() async throws {
        let queue = try await queue()
        struct Refused: Error {}
        let result = queue.writeInlineIfFree { _ -> Int in throw Refused() }
        guard case .failure(let error)? = result else {
            Issue.record("expected a failure, got \(String(describing: result))")
            return
        }
        #expect(error is Refused)
        #expect(try await queue.write(Self.runsOnATask), "the connection is free again")
    }

    @Test func writeInlineIfFreeRunsNothingWhileTheConnectionIsInUse() async throws {
        let queue = try await queue()
        let innerRan = Flag()
        let outer = queue.writeInlineIfFree { _ -> Bool in
            queue.writeInlineIfFree { _ in innerRan.raise() } == nil
        }
        #expect(try outer?.get() == true, "the outer call ran; the inner one found the connection taken")
        #expect(!innerRan.isRaised)
    }

    @Test func aDormantQueueWhoseConnectionWasTakenCanStillGoDormant() async throws {
        let queue = try await queue(dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        let outer = queue.writeInlineIfFree { _ -> Bool in
            queue.writeInlineIfFree { _ in } == nil
        }
        #expect(try outer?.get() == true, "the inner call found the connection taken")
        #expect(await queue.releaseConnectionIfIdle(), "no work is left counted as pending")
    }

    @Test func aTransactionAnInlineWriteLeftOpenKeepsTheConnectionUntilItEnds() async throws {
        let queue = try await queue(dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        struct Refused: Error {}
        let result = queue.writeInlineIfFree { db -> Void in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try Self.increment(db)
            throw Refused()
        }
        #expect(result.map { if case .failure = $0 { true } else { false } } == true)
        #expect(await queue.releaseConnectionIfIdle() == false, "a connection in a transaction is not let go")
        #expect(try queue.writeInlineIfFree { db in try db.execute(sql: "COMMIT") }?.get() != nil)
        #expect(await queue.releaseConnectionIfIdle())
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 1)
    }

    @Test func writeInlineIfFreeRunsNothingOnADormantConnection() async throws {
        let queue = try await queue(dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        #expect(await queue.releaseConnectionIfIdle())
        let ran = Flag()
        #expect(queue.writeInlineIfFree { _ in ran.raise() } == nil)
        #expect(!ran.isRaised, "opening may block: it is left to the queue's thread")
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT n FROM counter") } == 0)
    }

    @Test func aCheckpointAnInlineWriteMadeDueRunsOnTheQueue() async throws {
        let queue = try await queue(checkpointPages: 16)
        let blob = [UInt8](repeating: 7, count: 8_192)
        var ranInline = 0
        for _ in 0..<40 {
            // A write through the queue lets any checkpoint already due run first, as a caller that finds the
            // connection taken would.
            if queue.writeInlineIfFree({ db in try db.execute(sql: "INSERT INTO blobs VALUES (?)", arguments: [blob]) }) == nil {
                try await queue.write { db in try db.execute(sql: "INSERT INTO blobs VALUES (?)", arguments: [blob]) }
            } else {
                ranInline += 1
            }
        }
        await queue.releaseMemory()
        #expect(try await queue.read { db in db.isCheckpointDue } == false)
        #expect(try await queue.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM blobs") } == 40)
        #expect(ranInline > 0)
    }
}

/// A flag one task raises and others read.
private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)
    var isRaised: Bool { raised.load(ordering: .acquiring) }
    func raise() { raised.store(true, ordering: .releasing) }
}
