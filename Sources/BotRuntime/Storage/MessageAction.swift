import ChatterBots
import Foundation
import SQLite

/// A change to a message that a handler asked for: stored with the handler's unit of work, carried out over REST
/// after the commit by `MessageActionPerformer`, and deleted once the service has answered. A crash before the
/// commit leaves none (the re-run asks again); after it, the stored row is carried out after the next start.
package struct MessageAction: Hashable, Sendable {
    package var conversationId: Conversation.ID
    package var messageId: Message.ID
    package var change: MessageChange
    /// The trace of the handler that asked for it.
    package var traceID: String?

    package init(_ change: MessageChange, of messageId: Message.ID, in conversationId: Conversation.ID, traceID: String? = nil) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.change = change
        self.traceID = traceID
    }
}

/// A message action as stored: its row, and how often it was tried.
struct StoredMessageAction: Hashable, Sendable {
    var row: Int64
    var action: MessageAction
    var attempts: Int

    /// The tries a row may record. Tries are at least a second apart, so this many takes 68 years; a number outside
    /// (a row edited by hand) is a corrupt record rather than an overflow when the next try is counted.
    static let attemptsRange = 0...Int(Int32.max)
}

/// The `message_actions` table's reads and writes.
enum MessageActionWrites {
    /// Stores `actions` (in order); returns them with their rows.
    static func insert(_ actions: [MessageAction], now: Date, db: Database) throws -> [StoredMessageAction] {
        var stored: [StoredMessageAction] = []
        for action in actions {
            let (kind, argument) = columns(of: action.change)
            try db.execute(sql: insertSQL, arguments: [
                kind, action.conversationId.rawValue, action.messageId.rawValue, argument, action.traceID, now,
            ])
            stored.append(StoredMessageAction(row: db.lastInsertRowID, action: action, attempts: 0))
        }
        return stored
    }

    static let insertSQL = """
        INSERT INTO message_actions (kind, conversation_id, message_id, argument, trace_id, created_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """
    static let selectAll = """
        SELECT id, kind, conversation_id, message_id, argument, trace_id, attempts FROM message_actions ORDER BY id
        """
    static let delete = "DELETE FROM message_actions WHERE id = ?"
    static let recordAttempt = "UPDATE message_actions SET attempts = attempts + 1, last_error = ? WHERE id = ?"

    static func columns(of change: MessageChange) -> (kind: String, argument: String?) {
        switch change {
        case .edit(let body): ("edit", body)
        case .delete: ("delete", nil)
        case .addReaction(let emoji): ("add-reaction", emoji)
        case .removeReaction(let emoji): ("remove-reaction", emoji)
        }
    }

    static func action(from row: Row) throws -> StoredMessageAction {
        let id: Int64 = try row["id"]
        let kind: String = try row["kind"]
        let argument: String? = try row["argument"]
        let change: MessageChange
        switch (kind, argument) {
        case ("edit", let body?): change = .edit(body: body)
        case ("delete", _): change = .delete
        case ("add-reaction", let emoji?): change = .addReaction(emoji)
        case ("remove-reaction", let emoji?): change = .removeReaction(emoji)
        default:
            throw BotStoreError.corruptRecord(table: "message_actions", key: String(id), reason: "kind \(kind) with argument \(argument ?? "null")")
        }
        let attempts: Int = try row["attempts"]
        guard StoredMessageAction.attemptsRange.contains(attempts) else {
            throw BotStoreError.corruptRecord(table: "message_actions", key: String(id), reason: "attempts holds \(attempts)")
        }
        let action = MessageAction(
            change, of: try row.identifier("message_id"), in: try row.identifier("conversation_id"), traceID: try row["trace_id"])
        return StoredMessageAction(row: id, action: action, attempts: attempts)
    }
}

extension BotStore {
    /// The message actions not carried out yet, oldest first.
    func pendingMessageActions() async throws(BotStoreError) -> [StoredMessageAction] {
        try await read("read the pending message actions") { db in
            try db.fetchAll(sql: MessageActionWrites.selectAll).map(MessageActionWrites.action(from:))
        }
    }

    /// Forgets the action of `row`: the service carried it out, or refused it for good.
    func finishMessageAction(_ row: Int64) async throws(BotStoreError) {
        try await write("forget a message action") { [faults] db in
            try faults.checkForgetting(messageAction: row)
            try db.execute(sql: MessageActionWrites.delete, arguments: [row])
        }
    }

    /// Counts a failed try of the action of `row`, with its error.
    func recordMessageActionAttempt(_ row: Int64, error: String) async throws(BotStoreError) {
        try await write("record a message action's attempt") { db in
            try db.execute(sql: MessageActionWrites.recordAttempt, arguments: [error, row])
        }
    }
}
