@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import TestSupport
import Testing

/// Which clientMessageIds a store's bot derives: time-ordered for every message in a fresh store, and in a store an
/// older version wrote (`v3-time-ordered-client-message-ids` applied over data), name-based for the messages before
/// the cutover the migration recorded, so a message that version may have answered gets the same keys again.
@Suite struct ClientMessageIDCutoverTests {
    let directory: StoreDirectory
    let day: Int64 = 24 * 60 * 60 * 1000

    init() throws {
        directory = try StoreDirectory()
    }

    /// A row in one of the tables whose content makes a store one an older version used.
    static let olderVersionRows = [
        "INSERT INTO session VALUES (1, 'U_BOT', 'D1', 'access', 'refresh', 0, 0)",
        "INSERT INTO seen_messages VALUES ('M1', 'C_DIRECT', 1, 0)",
        "INSERT INTO outbox (client_message_id, conversation_id, payload, created_at, status, origin_kind) VALUES ('cm-1', 'C_DIRECT', '{}', 0, 'acked', 'direct')",
        "INSERT INTO conversations VALUES ('C_DIRECT', 1, 1, 0, NULL)",
    ]

    /// Writes a store with the schema up to `v2-outbox-first-attempt`, running `sql` on it if given.
    func writeV2Store(_ sql: String?) async throws -> String {
        let path = directory.file("bot.sqlite")
        let v2 = BotStoreSchema.migrator(through: "v2-outbox-first-attempt")
        let queue = try await DatabaseQueue(path: path)
        try await v2.migrate(queue)
        if let sql { try await queue.write { db in try db.execute(sql: sql) } }
        await queue.close()
        return path
    }

    @Test func aFreshStoreDerivesTimeOrderedKeysForEveryMessage() async throws {
        let store = try await openStore(in: directory)
        await store.close()
        #expect(store.clientMessageIDDerivation == .timeOrdered)
        let recorded = try await inspect(directory.file("bot.sqlite")) { db in
            try db.fetchOne(Int64.self, sql: "SELECT value FROM store_metadata WHERE key = 'time_ordered_client_message_ids_since'")
        }
        #expect(recorded == 0)
    }

    @Test func aStoreAnOlderVersionCreatedButNeverUsedCountsAsFresh() async throws {
        let path = try await writeV2Store(nil)
        let store = try await BotStore.open(path: path)
        await store.close()
        #expect(store.clientMessageIDDerivation == .timeOrdered)
    }

    @Test(arguments: olderVersionRows)
    func aStoreAnOlderVersionUsedTurnsTimeOrderedADayAfterTheUpgrade(row: String) async throws {
        let path = try await writeV2Store(row)
        let before = milliseconds(Date())
        let store = try await BotStore.open(path: path)
        let after = milliseconds(Date())
        await store.close()
        let since = store.clientMessageIDDerivation.timeOrderedSinceMilliseconds
        #expect((before + day...after + day).contains(since))
    }

    @Test func anUpgradedStoreKeepsNameBasedKeysForMessagesBeforeTheCutoverAndTimeOrdersLaterOnes() async throws {
        let path = try await writeV2Store(Self.olderVersionRows[0])
        let store = try await BotStore.open(path: path)
        await store.close()
        let derivation = store.clientMessageIDDerivation
        let older = Message.ID(ulid(milliseconds: UInt64(derivation.timeOrderedSinceMilliseconds - 1)))
        let newer = Message.ID(ulid(milliseconds: UInt64(derivation.timeOrderedSinceMilliseconds)))
        #expect(derivation.key(bot: Fixture.bot, handling: older, index: 0)
            == .nameBased(bot: Fixture.bot, trigger: "message:\(older.rawValue)", index: 0))
        #expect(derivation.key(bot: Fixture.bot, handling: newer, index: 0) == .derived(bot: Fixture.bot, handling: newer, index: 0))
        #expect(derivation.key(bot: Fixture.bot, handling: newer, index: 0).rawValue.dropFirst(14).first == "8")
    }

    @Test func theCutoverSurvivesCloseAndReopen() async throws {
        let path = try await writeV2Store(Self.olderVersionRows[0])
        let first = try await BotStore.open(path: path)
        await first.close()
        let second = try await BotStore.open(path: path)
        await second.close()
        #expect(second.clientMessageIDDerivation == first.clientMessageIDDerivation)
        #expect(second.clientMessageIDDerivation != .timeOrdered)
    }

    @Test func aUnitHandlingAMessageBeforeTheCutoverSendsWithTheNameBasedKey() async throws {
        let path = try await writeV2Store(Self.olderVersionRows[0])
        let store = try await BotStore.open(path: path)
        try await store.recordConversations([Fixture.conversation()])
        let older = Message(
            id: Message.ID(ulid(milliseconds: UInt64(store.clientMessageIDDerivation.timeOrderedSinceMilliseconds - day))),
            conversationId: Fixture.direct, seq: 1, senderId: Fixture.alice, clientMessageId: nil, kind: .text, body: "hi",
            createdAt: Timestamp(Fixture.start))
        var unit = UnitOfWork(handling: older, bot: Fixture.bot, derivation: store.clientMessageIDDerivation)
        let id = unit.send(.text("hello"), to: Fixture.direct)
        let receipt = try await store.commit(unit)
        await store.close()
        let nameBased = ClientMessageID.nameBased(bot: Fixture.bot, trigger: "message:\(older.id.rawValue)", index: 0)
        #expect(id == nameBased)
        #expect(receipt.createdEntries == [nameBased])
    }

    private func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
