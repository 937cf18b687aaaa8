@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// The `message_actions` rows as the store reads them back.
@Suite struct MessageActionStoreTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    @Test(arguments: [Int64.max, -1])
    func aCountOfTriesNoStoreWritesIsACorruptRecord(attempts: Int64) async throws {
        let first = try await openStore(in: directory)
        let action = MessageAction(.delete, of: "M_1", in: Fixture.direct)
        let row = try await first.queue.write { db in
            try MessageActionWrites.insert([action], now: Fixture.start, db: db)[0].row
        }
        await first.close()  // the store holds its file exclusively while open
        let edit = try Database(path: directory.file("bot.sqlite"))
        try edit.execute(sql: "UPDATE message_actions SET attempts = ? WHERE id = ?", arguments: [attempts, row])
        edit.close()

        let store = try await openStore(in: directory)
        let error = await storeError { _ = try await store.pendingMessageActions() }
        guard case .corruptRecord(let table, let key, let reason)? = error else {
            Issue.record("expected a corrupt record, got \(String(describing: error))")
            return
        }
        #expect(table == "message_actions")
        #expect(key == String(row))
        #expect(reason.contains(String(attempts)))
        await store.close()
    }
}
