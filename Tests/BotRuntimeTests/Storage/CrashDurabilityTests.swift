import BotRuntime
import ChatterBots
import ChildProcesses
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// WAL with `synchronous = NORMAL`: what a process that dies abruptly leaves on disk is every committed
/// transaction and nothing of an uncommitted one.
@Suite("BotStore crash durability")
struct CrashDurabilityTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    /// The files a process killed right now would leave: the database and its log as they are in the page
    /// cache, copied while the store is still open (so no checkpoint or clean close happened), without the
    /// `-shm` index, which the next opener rebuilds from the log as after a crash.
    func crashImage(of name: String, as copy: String, includingLog: Bool = true) throws {
        let manager = FileManager.default
        try manager.copyItem(atPath: directory.file(name), toPath: directory.file(copy))
        if includingLog {
            try manager.copyItem(atPath: directory.file(name + "-wal"), toPath: directory.file(copy + "-wal"))
        }
    }

    @Test func committedUnitsSurviveAnAbruptEndWithoutCheckpoint() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        var replies: [ClientMessageID] = []
        for seq in 1...3 {
            var unit = UnitOfWork(handling: Fixture.message(seq: seq), bot: Fixture.bot)
            replies.append(unit.send(.text("reply \(seq)"), to: Fixture.direct))
            try unit.setValue(seq, forKey: "handled", in: .global)
            try await store.commit(unit)
        }
        _ = try await store.markAcked(Fixture.ack(replies[0], seq: 10))
        // A unit that is refused is not part of the image.
        await #expect(throws: BotStoreError.self) {
            _ = try await store.commit(UnitOfWork(handling: Fixture.message(seq: 9), bot: Fixture.bot))
        }
        try crashImage(of: "bot.sqlite", as: "crashed.sqlite")
        try crashImage(of: "bot.sqlite", as: "without-log.sqlite", includingLog: false)

        // Another process (the sqlite3 shell) recovers the committed rows from the log alone...
        let counts = try await sqlite3(
            directory.file("crashed.sqlite"),
            "SELECT count(*) FROM outbox; SELECT count(*) FROM outbox WHERE status = 'pending'; SELECT contiguous_seq FROM conversations;")
        #expect(counts.split(separator: "\n") == ["3", "2", "3"])
        // ...which is where they are: without checkpoint, the database file holds the new store's schema and none
        // of the rows.
        let withoutLog = try await sqlite3(
            directory.file("without-log.sqlite"),
            "SELECT count(*) FROM sqlite_master WHERE name = 'outbox'; SELECT count(*) FROM outbox; SELECT count(*) FROM conversations;")
        #expect(withoutLog.split(separator: "\n") == ["1", "0", "0"])

        // And the store reopened from the image resumes exactly where the committed units left it.
        let recovered = try await openStore(in: directory, name: "crashed.sqlite", clock: clock)
        #expect(try await recovered.pendingOutbox().map(\.id) == Array(replies[1...]))
        #expect(try await recovered.syncPositions() == [Fixture.direct: 3])
        #expect(try await recovered.value(Int.self, forKey: "handled", in: .global) == 3)
        #expect(try await recovered.isSeen(Fixture.message(seq: 3)))
        await store.close()
    }

    @Test func aWriterKilledAfterItsCommitKeepsTheCommitAndLosesItsOpenTransaction() async throws {
        let store = try await openStore(in: directory, clock: clock)
        await store.close()
        let path = directory.file("bot.sqlite")
        let committed = Fixture.send("committed before the kill", id: "cm-committed")
        let uncommitted = Fixture.send("in the open transaction", id: "cm-uncommitted")
        func insert(_ send: MessageSend) throws -> String {
            let payload = String(decoding: try JSONEncoder().encode(send), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
            return """
                INSERT INTO outbox (client_message_id, conversation_id, payload, created_at, status, origin_kind)
                VALUES ('\(send.clientMessageId)', '\(send.conversationId)', '\(payload)', 0, 'pending', 'direct');
                """
        }
        let script = """
            PRAGMA synchronous = NORMAL;
            BEGIN IMMEDIATE; \(try insert(committed)) COMMIT;
            BEGIN IMMEDIATE; \(try insert(uncommitted))
            .print ready
            """
        let killed = try await runAndKill(sqlite3At: path, script: script, after: "ready")
        #expect(killed)

        let reopened = try await openStore(in: directory, clock: clock)
        #expect(try await reopened.pendingOutbox().map(\.id) == ["cm-committed"])
        #expect(try await reopened.pendingOutbox().first?.message == committed)
    }

    /// Starts `sqlite3` on `path`, feeds it `script`, and once it printed `marker` (its transaction still
    /// open, stdin still open) kills it with SIGKILL. Returns whether it died of that signal.
    func runAndKill(sqlite3At path: String, script: String, after marker: String) async throws -> Bool {
        let child = try ChildProcess([try TestPeer.command("sqlite3"), "-batch", path])
        // Stdin stays open: at its end sqlite3 would exit by itself and roll the open transaction back.
        child.send(Data((script + "\n").utf8), closingInput: false)
        var seen = ""
        while !seen.contains(marker), let line = try await child.nextLine(timeout: .hangGuard) {
            seen += line + "\n"
        }
        child.kill(SIGKILL)
        let termination = await child.termination(timeout: .hangGuard)
        return termination == .signalled(SIGKILL)
    }
}
