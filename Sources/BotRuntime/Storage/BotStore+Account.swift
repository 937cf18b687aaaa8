import ChatterBots
import Foundation
import SQLite

/// What `BotStore.wipeAccountData()` deleted, for the log.
package struct AccountDataWipe: Sendable, Equatable, CustomStringConvertible {
    public var outboxEntries: Int
    public var stateValues: Int
    public var conversations: Int
    public var scheduledJobs: Int
    public var dialogs: Int

    public var description: String {
        "\(outboxEntries) outbox entries, \(stateValues) state values, \(conversations) conversation cursors, "
            + "\(scheduledJobs) scheduled jobs, \(dialogs) dialogs"
    }
}

extension BotStore {
    /// The user the store's data belongs to: the user of the device saved last; nil before the first sign-in.
    /// Kept after a revocation (the device records stay), so a sign-in can tell a re-created account.
    public func accountUserId() async throws(BotStoreError) -> User.ID? {
        try await read("read the account's user") { db in
            try db.fetchOne(
                String.self, sql: "SELECT user_id FROM devices ORDER BY first_saved_at DESC, device_id DESC LIMIT 1"
            ).map { User.ID($0) }
        }
    }

    /// Deletes everything that belongs to the bot's user rather than its device: outbox, state, conversation
    /// cursors with their parked and seen messages, scheduled jobs, dialogs, and the conversations' refresh mark.
    /// For a sign-in that returned another user than the store's (the account was deleted and re-created under
    /// the same name): nothing of the old user may be sent, handled or scheduled as the new one.
    @discardableResult
    public func wipeAccountData() async throws(BotStoreError) -> AccountDataWipe {
        let wipe = try await write("wipe the old account's data") { db -> (AccountDataWipe, [String]) in
            let conversations = try db.fetchAll(String.self, sql: "SELECT id FROM conversations")
            func delete(_ table: String) throws -> Int {
                try db.execute(sql: "DELETE FROM \(table)")
                return db.changes
            }
            let wipe = AccountDataWipe(
                outboxEntries: try delete("outbox"), stateValues: try delete("state"),
                conversations: try delete("conversations"), scheduledJobs: try delete("scheduled_jobs"),
                dialogs: try delete("dialogs"))
            _ = try delete("parked_messages")
            _ = try delete("seen_messages")
            try db.execute(sql: "DELETE FROM store_metadata WHERE key = 'conversations.updatedSince'")
            return (wipe, conversations)
        }
        for conversation in wipe.1 { memory.forget(Conversation.ID(conversation)) }
        memory.forgetHandedOut(nil)
        return wipe.0
    }
}
