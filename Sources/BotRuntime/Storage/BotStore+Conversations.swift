import ChatterBots
import Foundation
import SQLite

extension BotStore {
    // MARK: - Cursors

    /// Records conversations the service reported (`GET /conversations?updatedSince=`, `conversation.created`,
    /// `conversation.updated`, a look-up): new ones get a cursor starting as `newConversationsStart` says, known
    /// ones their `lastSeq` and `updatedAt` raised (never lowered) and lose their removed mark. Returns the
    /// cursors, in the order given.
    ///
    /// Only a page of `GET /conversations?updatedSince=` passes `isRefreshPage`, making its newest `updatedAt`
    /// ``conversationsUpdatedSince()``: a conversation learnt of any other way says nothing of the others that
    /// changed before it, which the next refresh must still list.
    @discardableResult
    public func recordConversations(
        _ conversations: [Conversation], newConversationsStart: ConversationStart = .firstMessage,
        isRefreshPage: Bool = false
    ) async throws(BotStoreError) -> [ConversationCursor] {
        try await recordConversations(
            conversations, newConversationsStart: newConversationsStart, isRefreshPage: isRefreshPage, startingBefore: [:])
    }

    /// ``recordConversations(_:newConversationsStart:isRefreshPage:)``, where a new conversation's cursor starts below
    /// the seq `startingBefore` gives it even after its last message (`.afterLastMessage`): the messages that made
    /// the bot look it up are counted in its `lastSeq` already, and are new to the bot.
    @discardableResult
    package func recordConversations(
        _ conversations: [Conversation], newConversationsStart: ConversationStart, isRefreshPage: Bool,
        startingBefore: [Conversation.ID: Int]
    ) async throws(BotStoreError) -> [ConversationCursor] {
        guard !conversations.isEmpty else { return [] }
        return try await writeWithCursors("record conversations") { workspace in
            let db = try workspace.db
            var cursors: [ConversationCursor] = []
            for conversation in conversations {
                var contiguous: Int
                if let cursor = try workspace.cursor(conversation.id) {
                    try workspace.raiseLastSeq(conversation.lastSeq, in: conversation.id)
                    try workspace.markPresent(conversation.id)
                    contiguous = cursor.contiguous
                } else {
                    let start = newConversationsStart == .firstMessage
                        ? 0 : max(0, min(conversation.lastSeq, (startingBefore[conversation.id] ?? .max) - 1))
                    try workspace.resetCursor(conversation.id, contiguous: start, lastSeq: conversation.lastSeq)
                    contiguous = try workspace.cursor(conversation.id)?.contiguous ?? start
                }
                try db.execute(
                    sql: ConversationSQL.record,
                    arguments: [
                        conversation.id.rawValue, contiguous, conversation.lastSeq,
                        conversation.updatedAt.millisecondsSince1970, conversation.detailsDigest,
                    ])
                if let row = try db.fetchOne(sql: ConversationSQL.selectOne, arguments: [conversation.id.rawValue]) {
                    cursors.append(try ConversationCursor(row: row))
                }
            }
            if isRefreshPage, let newest = conversations.map(\.updatedAt).max() {
                try db.execute(sql: ConversationSQL.raiseUpdatedSince, arguments: [newest.millisecondsSince1970])
            }
            return cursors
        }
    }

    /// The cursor of `conversation`, or nil when it was never recorded.
    public func conversationCursor(_ conversation: Conversation.ID) async throws(BotStoreError) -> ConversationCursor? {
        try await read("read a conversation cursor") { db in
            try db.fetchOne(sql: ConversationSQL.selectOne, arguments: [conversation.rawValue]).map(ConversationCursor.init(row:))
        }
    }

    /// Every cursor, by conversation id; removed conversations only when asked.
    public func conversationCursors(includingRemoved: Bool = false) async throws(BotStoreError) -> [ConversationCursor] {
        try await read("read the conversation cursors") { db in
            try db.fetchAll(sql: includingRemoved ? ConversationSQL.selectAll : ConversationSQL.selectActive)
                .map(ConversationCursor.init(row:))
        }
    }

    /// The `conversations` of `sync.request`: the contiguous seq of every conversation the bot is still in.
    public func syncPositions() async throws(BotStoreError) -> [Conversation.ID: Int] {
        try await read("read the sync positions") { db in
            var positions: [Conversation.ID: Int] = [:]
            for row in try db.fetchAll(sql: ConversationSQL.selectPositions) {
                let id: Conversation.ID = try row.identifier("id")
                positions[id] = try row.sequenceNumber("contiguous_seq", table: "conversations", key: id.rawValue)
            }
            return positions
        }
    }

    /// The newest conversation `updatedAt` of a recorded refresh page: where the next `GET /conversations` resumes
    /// (`ConversationListPaging`). Nil before any refresh page was recorded.
    public func conversationsUpdatedSince() async throws(BotStoreError) -> Timestamp? {
        try await read("read the conversations marker") { db in
            try db.fetchOne(Int64.self, sql: ConversationSQL.selectUpdatedSince).map(Timestamp.init(millisecondsSince1970:))
        }
    }

    /// Marks `conversation` removed (`conversation.removed`): it leaves ``syncPositions()`` and its parked
    /// messages are dropped, but its cursor stays, so a later re-add does not handle old messages again. Returns
    /// false when it was marked removed already (or never recorded).
    @discardableResult
    public func removeConversation(_ conversation: Conversation.ID) async throws(BotStoreError) -> Bool {
        let now = clock.now
        return try await write("remove a conversation") { db in
            try db.execute(sql: ConversationSQL.markRemoved, arguments: [now, conversation.rawValue])
            let changed = db.changes > 0
            try db.execute(sql: ConversationSQL.deleteParked, arguments: [conversation.rawValue])
            self.memory.forget(conversation)
            return changed
        }
    }

    /// Moves the contiguous seq of `conversation` up to `seq` without handling the messages in between (history
    /// the bot chooses not to answer); never moves it down. Parked messages at or below `seq` are dropped.
    /// Returns the parked messages that are next afterwards, now handed out.
    @discardableResult
    public func skipMessages(in conversation: Conversation.ID, through seq: Int) async throws(BotStoreError) -> [Message] {
        try await writeWithCursors("skip messages") { workspace in
            guard let cursor = try workspace.cursor(conversation) else { throw BotStoreError.unknownConversation(conversation) }
            guard seq > cursor.contiguous else { return [] }
            try workspace.resetCursor(conversation, contiguous: seq, lastSeq: cursor.lastSeq)
            return try workspace.release(conversation)
        }
    }

    // MARK: - Incoming messages

    /// Decides what to do with incoming messages (`message.new`, a `sync.response` page, a REST page): deliver
    /// the next ones, park those ahead of a gap (in memory: the contiguous seq does not pass them, so after a
    /// restart sync brings them back), drop duplicates, pass over the bot's own (durably: their outbox entries
    /// are acknowledged).
    ///
    /// "Next" counts what is handed out but not committed yet, so a message whose predecessor is still being
    /// handled is delivered rather than parked. A batch is taken per conversation in seq order. Admissions of
    /// many callers share transactions with the other hot-path writes.
    ///
    /// - Parameter bot: the bot's user id: its own messages are never delivered.
    public func admit(_ messages: [Message], bot: User.ID) async throws(BotStoreError) -> AdmissionReport {
        guard !messages.isEmpty else { return AdmissionReport(admissions: [], released: []) }
        return try await submit(.admit(messages, bot: bot), "admit messages")
    }

    /// Admits `messages` as ``admit(_:bot:)-([Message],_)`` does, but at once on the caller's thread, when nothing
    /// else is being committed and the connection is free; nil, with nothing admitted, when they must wait their turn.
    func admitInline(_ messages: [Message], bot: User.ID) -> Result<AdmissionReport, BotStoreError>? {
        writeInline(.admit(messages, bot: bot), "admit messages")
    }

    /// Admits one message; see ``admit(_:bot:)-([Message],_)``.
    public func admit(_ message: Message, bot: User.ID) async throws(BotStoreError) -> AdmissionReport {
        try await admit([message], bot: bot)
    }

    /// Hands out the parked message that is next in `conversation`, or nil while a gap remains (or nothing is
    /// parked). Call it whenever a commit or ack did not already release the message (after
    /// ``abandonDeliveries(in:)``, for instance).
    public func nextDeliverable(in conversation: Conversation.ID) async throws(BotStoreError) -> Message? {
        try await deliverableMessages(in: conversation, limit: 1).first
    }

    /// Where `update` (a `message.updated`) goes: to the bot, into the parked copy of its message (done here), or
    /// nowhere because its message has not arrived (``ConversationLedger/placeUpdate(_:bot:)``).
    func placeUpdate(_ update: Message, bot: User.ID) async throws(BotStoreError) -> ConversationLedger.UpdatePlacement {
        try await writeWithCursors("place a message update") { workspace in try workspace.placeUpdate(update, bot: bot) }
    }

    /// Hands out up to `limit` parked messages that are next in `conversation`, in seq order.
    public func deliverableMessages(in conversation: Conversation.ID, limit: Int = 256) async throws(BotStoreError) -> [Message] {
        try await writeWithCursors("hand out parked messages") { workspace in
            try workspace.handOutParked(in: conversation, limit: limit)
        }
    }

    /// The conversations whose next message is parked (and not handed out): where ``nextDeliverable(in:)``
    /// has something, for instance after ``abandonDeliveries(in:)``. Parked messages live in memory, so right
    /// after a restart there are none: they come again through sync.
    public func conversationsWithDeliverableMessages() async throws(BotStoreError) -> [Conversation.ID] {
        memory.conversationsWithDeliverableMessages()
    }

    /// Forgets that messages of `conversation` (every conversation when nil) were handed out: for a session
    /// that restarts its handling without restarting the store. Uncommitted messages are then delivered
    /// again (parked ones by ``nextDeliverable(in:)``, the others through sync).
    public func abandonDeliveries(in conversation: Conversation.ID? = nil) async throws(BotStoreError) {
        try await write("abandon deliveries") { _ in self.memory.forgetHandedOut(conversation) }
    }

    // MARK: - Dedupe

    /// Whether `message` was already handled or passed over: at or below its conversation's contiguous seq,
    /// or its id recorded as seen. Parked messages are not seen yet.
    public func isSeen(_ message: Message) async throws(BotStoreError) -> Bool {
        try await read("check a message") { db in
            if let contiguous = try db.fetchOne(Int.self, sql: ConversationSQL.selectContiguous, arguments: [message.conversationId.rawValue]),
                message.seq <= contiguous
            {
                return true
            }
            return try db.fetchOne(Int.self, sql: CursorWorkspace.selectSeenExists, arguments: [message.id.rawValue]) != nil
        }
    }

    /// Whether a message with this id was handled (recorded as seen and not pruned yet).
    public func isSeen(messageID: Message.ID) async throws(BotStoreError) -> Bool {
        try await read("check a message id") { db in
            try db.fetchOne(Int.self, sql: CursorWorkspace.selectSeenExists, arguments: [messageID.rawValue]) != nil
        }
    }

    /// Prunes the seen-message records that the contiguous seq already covers: a record at or below its
    /// conversation's contiguous seq is deleted unless it is among the `keepingNewest` newest of its
    /// conversation or was handled within `handledWithin` of now. Records above the contiguous seq are never
    /// deleted. Returns how many were deleted.
    ///
    /// Dedupe stays correct whatever is pruned: a message at or below the contiguous seq is seen by its seq.
    /// The records kept are a second line for messages the service might deliver again under another seq.
    @discardableResult
    public func pruneSeenMessages(
        keepingNewest: Int = 100, handledWithin: Duration = .seconds(600)
    ) async throws(BotStoreError) -> Int {
        let cutoff = clock.now.addingTimeInterval(-handledWithin.timeInterval)
        return try await write("prune seen messages") { db in
            try db.execute(sql: ConversationSQL.pruneSeen, arguments: [max(0, keepingNewest), cutoff])
            return db.changes
        }
    }
}

extension ConversationCursor {
    init(row: Row) throws {
        let id: Conversation.ID = try row.identifier("id")
        self.init(
            conversationId: id,
            contiguousSeq: try row.sequenceNumber("contiguous_seq", table: "conversations", key: id.rawValue),
            lastSeq: try row.sequenceNumber("last_seq", table: "conversations", key: id.rawValue),
            updatedAt: try row.timestamp("updated_at"), isRemoved: (try row["removed_at"] as Date?) != nil,
            detailsDigest: try row["details_digest"])
    }
}

enum ConversationSQL {
    static let columns = "id, contiguous_seq, last_seq, updated_at, removed_at, details_digest"
    /// Arguments: id, contiguous seq (for a new row), lastSeq, updatedAt (ms), details digest. The digest of an
    /// older state than the one recorded is not taken.
    static let record = """
        INSERT INTO conversations (id, contiguous_seq, last_seq, updated_at, details_digest) VALUES (?1, ?2, ?3, ?4, ?5)
        ON CONFLICT (id) DO UPDATE SET
            last_seq = max(last_seq, excluded.last_seq),
            details_digest = CASE WHEN updated_at IS NULL OR excluded.updated_at >= updated_at
                THEN excluded.details_digest ELSE details_digest END,
            updated_at = max(coalesce(updated_at, excluded.updated_at), excluded.updated_at),
            removed_at = NULL
        """
    static let selectOne = "SELECT \(columns) FROM conversations WHERE id = ?"
    static let selectAll = "SELECT \(columns) FROM conversations ORDER BY id"
    static let selectActive = "SELECT \(columns) FROM conversations WHERE removed_at IS NULL ORDER BY id"
    static let selectPositions = "SELECT id, contiguous_seq FROM conversations WHERE removed_at IS NULL"
    static let selectContiguous = "SELECT contiguous_seq FROM conversations WHERE id = ?"
    /// Changes no row for a conversation marked removed already, so a repeated removal is not news.
    static let markRemoved = "UPDATE conversations SET removed_at = ? WHERE id = ? AND removed_at IS NULL"
    static let deleteParked = "DELETE FROM parked_messages WHERE conversation_id = ?"
    static let selectUpdatedSince = "SELECT value FROM store_metadata WHERE key = 'conversations.updatedSince'"
    static let raiseUpdatedSince = """
        INSERT INTO store_metadata (key, value) VALUES ('conversations.updatedSince', ?1)
        ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)
        """
    /// Arguments: how many of the newest to keep per conversation, the handled-at cutoff.
    static let pruneSeen = """
        DELETE FROM seen_messages WHERE message_id IN (
            SELECT ranked.message_id FROM (
                SELECT message_id, conversation_id, seq, handled_at,
                    row_number() OVER (PARTITION BY conversation_id ORDER BY seq DESC) AS newness
                FROM seen_messages
            ) AS ranked
            JOIN conversations c ON c.id = ranked.conversation_id
            WHERE ranked.seq <= c.contiguous_seq AND ranked.newness > ?1 AND ranked.handled_at < ?2)
        """
}
