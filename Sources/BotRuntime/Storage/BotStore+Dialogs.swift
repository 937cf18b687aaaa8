import ChatterBots
import Foundation
import SQLite

extension BotStore {
    /// The dialog of `user` in `conversation`, or nil when there is none or it has expired. With `unit`,
    /// the unit's own pending change wins.
    public func dialog(
        user: User.ID, conversation: Conversation.ID, overlaying unit: UnitOfWork? = nil
    ) async throws(BotStoreError) -> DialogState? {
        let now = clock.now
        if let pending = unit?.pendingDialog(user: user, conversation: conversation) {
            return pending.flatMap { $0.isExpired(at: now) ? nil : $0 }
        }
        let dialog = try await read("read a dialog") { db in
            try db.fetchOne(sql: DialogSQL.select, arguments: [user.rawValue, conversation.rawValue])
                .map { row in try DialogState(row: row, key: "\(user) in \(conversation)") }
        }
        return dialog.flatMap { $0.isExpired(at: now) ? nil : $0 }
    }

    /// Sets the dialog of `user` in `conversation`, in a transaction of its own (inside a handler, use the unit).
    public func setDialog(_ dialog: DialogState, user: User.ID, conversation: Conversation.ID) async throws(BotStoreError) {
        let now = clock.now
        try await write("write a dialog") { db in
            try DialogWrites.set(dialog, user: user, conversation: conversation, now: now, db: db)
        }
    }

    /// Ends the dialog of `user` in `conversation`; returns whether there was one.
    @discardableResult
    public func endDialog(user: User.ID, conversation: Conversation.ID) async throws(BotStoreError) -> Bool {
        try await write("end a dialog") { db in
            try db.execute(sql: DialogSQL.delete, arguments: [user.rawValue, conversation.rawValue])
            return db.changes > 0
        }
    }

    /// Deletes the dialogs that expired before now; returns how many.
    @discardableResult
    public func pruneExpiredDialogs() async throws(BotStoreError) -> Int {
        let now = clock.now
        return try await write("prune expired dialogs") { db in
            try db.execute(sql: DialogSQL.deleteExpired, arguments: [now])
            return db.changes
        }
    }
}

extension DialogState {
    init(row: Row, key: String) throws {
        self.init(
            name: try row["name"], step: try row["step"],
            data: try row.decodedJSON(JSONValue.self, "data", table: "dialogs", key: key),
            expiresAt: try row["expires_at"])
    }
}

enum DialogWrites {
    static func set(_ dialog: DialogState, user: User.ID, conversation: Conversation.ID, now: Date, db: Database) throws {
        try db.execute(
            sql: DialogSQL.upsert,
            arguments: [user.rawValue, conversation.rawValue, dialog.name, dialog.step, try StoreJSON.text(dialog.data), dialog.expiresAt, now])
    }
}

enum DialogSQL {
    static let select = "SELECT name, step, data, expires_at FROM dialogs WHERE user_id = ? AND conversation_id = ?"
    static let upsert = """
        INSERT INTO dialogs (user_id, conversation_id, name, step, data, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_id, conversation_id) DO UPDATE SET
            name = excluded.name, step = excluded.step, data = excluded.data, expires_at = excluded.expires_at,
            updated_at = excluded.updated_at
        """
    static let delete = "DELETE FROM dialogs WHERE user_id = ? AND conversation_id = ?"
    static let deleteExpired = "DELETE FROM dialogs WHERE expires_at IS NOT NULL AND expires_at <= ?"
}
