@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// A cursor workspace begins its own transaction only outside a caller's: inside one it is a savepoint that commits
/// with the caller's transaction, and never commits it.
@Suite("CursorWorkspace inside a caller's transaction")
struct CursorWorkspaceSavepointTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    /// A plain connection to a new store's file, which the store let go.
    func connectionToANewStore() async throws -> DatabaseQueue {
        let store = try await openStore(in: directory)
        await store.close()
        return try await DatabaseQueue(path: store.path)
    }

    @Test func aWorkspaceInsideACallersTransactionLeavesItOpenAndCommitsWithIt() async throws {
        let queue = try await connectionToANewStore()
        let memory = CursorMemory()
        let stillOpen = try await queue.write { db in
            try CursorWorkspace.run(db, now: Date(), memory: memory) { workspace in
                try workspace.resetCursor(Fixture.direct, contiguous: 4, lastSeq: 6)
            }
            return db.isInTransaction
        }
        await queue.close()
        #expect(stillOpen)
        #expect(memory.ledger(Fixture.direct)?.cursor == ConversationLedger.Cursor(contiguous: 4, lastSeq: 6))
        let reopened = try await openStore(in: directory)
        #expect(try await reopened.conversationCursor(Fixture.direct)?.contiguousSeq == 4)
    }

    @Test func aWorkspaceWhoseCallerRollsBackLeavesTheFileAsItWas() async throws {
        let queue = try await connectionToANewStore()
        struct Undo: Error {}
        await #expect(throws: Undo.self) {
            try await queue.write { db in
                try CursorWorkspace.run(db, now: Date(), memory: CursorMemory()) { workspace in
                    try workspace.resetCursor(Fixture.direct, contiguous: 4, lastSeq: 6)
                }
                throw Undo()
            }
        }
        await queue.close()
        let reopened = try await openStore(in: directory)
        #expect(try await reopened.conversationCursor(Fixture.direct) == nil)
    }
}
