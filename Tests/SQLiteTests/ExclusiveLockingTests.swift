import CSQLite
import ChildProcesses
import Foundation
@testable import SQLite
import Synchronization
import Testing
import TestSupport

/// Exclusive locking mode: the database belongs to one connection until it closes. WAL keeps its index in that
/// connection's heap (no `-shm` file), and any other opener, in this process or another, is refused at once.
@Suite struct ExclusiveLockingTests {
    let directory: TemporaryDirectory
    let exclusive = DatabaseConfiguration(busyTimeout: .seconds(60), lockingMode: .exclusive)

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func openWithRows(_ name: String) throws -> Database {
        let db = try Database(path: directory.file(name), configuration: exclusive)
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS note (body TEXT NOT NULL)")
        try db.execute(sql: "INSERT INTO note VALUES ('kept')")
        return db
    }

    @Test func exclusiveDatabaseRunsInWALWithoutASharedMemoryFile() throws {
        let db = try openWithRows("alone.sqlite")
        #expect(try db.fetchOne(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(try db.fetchOne(String.self, sql: "PRAGMA locking_mode") == "exclusive")
        #expect(FileManager.default.fileExists(atPath: directory.file("alone.sqlite-wal")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("alone.sqlite-shm")))
    }

    @Test func existingWALDatabaseReopenedExclusivelyKeepsNoSharedMemoryFile() throws {
        do {
            let shared = try Database(path: directory.file("was-shared.sqlite"))
            try shared.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)")
        }
        let db = try Database(path: directory.file("was-shared.sqlite"), configuration: exclusive)
        try db.execute(sql: "INSERT INTO note VALUES ('x')")
        #expect(!FileManager.default.fileExists(atPath: directory.file("was-shared.sqlite-shm")))
    }

    @Test func secondOpenerInTheSameProcessIsRefusedAtOnceWithATypedError() async throws {
        let first = try openWithRows("owned.sqlite")
        // The lock is never let go before the owner closes, so the busy timeout is not waited out: given an hour, an
        // opener that waited would run into the hang guard (on a thread of its own, off the cooperative pool).
        let waitingAnHour = DatabaseConfiguration(busyTimeout: .seconds(3_600), lockingMode: .exclusive)
        let path = directory.file("owned.sqlite")
        let error = try await withDeadline(.hangGuard, "the second opener to be refused") {
            await Self.onThreadOfItsOwn { () -> (any Error)? in
                do {
                    _ = try Database(path: path, configuration: waitingAnHour)
                    return nil
                } catch {
                    return error
                }
            }
        }
        guard case .cannotOpen(_, let reason, let underlying)? = error as? DatabaseError else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(reason == .lockedByAnotherConnection)
        #expect(underlying?.code == .busy)
        #expect(try first.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 1)
    }

    /// The result of blocking `work`, run on a thread of its own so that it never holds a thread of the pool.
    private static func onThreadOfItsOwn<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    @Test func anotherProcessCannotReadTheDatabaseWhileItIsOpen() async throws {
        let db = try openWithRows("process.sqlite")
        let other = try await ChildProcess.run(
            ["sqlite3", directory.file("process.sqlite"), "SELECT count(*) FROM note"], timeout: .hangGuard)
        #expect(other.termination != .exited(0))
        #expect(other.output.contains("locked"))
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 1)
    }

    @Test func aConnectionTakingSQLitesOwnLocksInThisProcessIsRefusedToo() throws {
        let first = try openWithRows("posix.sqlite")
        let posix = DatabaseConfiguration(busyTimeout: .milliseconds(50), lockingMode: .normal)
        #expect(throws: (any Error).self) {
            let second = try Database(path: directory.file("posix.sqlite"), configuration: posix)
            _ = try second.fetchOne(Int.self, sql: "SELECT count(*) FROM note")
        }
        #expect(try first.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 1)
    }

    /// A child process being spawned holds the lock's description until its exec closes it: a lock let go after
    /// the open found it held, within the grace, is taken rather than reported as another owner.
    @Test func aLockLetGoWithinTheGraceIsTakenNotRefused() throws {
        let path = directory.file("briefly-held.sqlite")
        try openWithRows("briefly-held.sqlite").close()
        let holder = open(path, O_RDWR | O_CLOEXEC)
        try #require(holder >= 0)
        try #require(csqlite_lock_file_exclusively(holder) == 0)
        let letGo = Mutex(false)
        let second = try Database.$lockFoundHeld.withValue({ heldPath in
            guard heldPath == path else { return }
            letGo.withLock { alreadyLetGo in
                if !alreadyLetGo { _ = close(holder) }
                alreadyLetGo = true
            }
        }) {
            try Database(path: path, configuration: exclusive)
        }
        #expect(letGo.withLock { $0 })
        #expect(try second.fetchOne(String.self, sql: "SELECT body FROM note") == "kept")
    }

    @Test func theNextOpenerSucceedsOnceTheOwnerClosesAndSeesItsData() throws {
        let first = try openWithRows("handed-over.sqlite")
        first.close()
        let second = try Database(path: directory.file("handed-over.sqlite"), configuration: exclusive)
        #expect(try second.fetchOne(String.self, sql: "SELECT body FROM note") == "kept")
    }
}
