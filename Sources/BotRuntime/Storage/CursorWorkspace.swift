import ChatterBots
import Foundation
import SQLite

/// The conversation cursors of one write transaction: each read once (from the store's memory, else from
/// SQLite), changed in memory, written once before the commit. Used only on the database queue, inside the
/// transaction.
///
/// This is where the seq rules live. A conversation's contiguous seq advances over a message only when it
/// is handled, and over the bot's own messages (seen through an ack or a sync) as soon as it reaches them;
/// own messages ahead of it are kept as markers in `parked_messages` and passed over when reached ("swept").
/// A refused unit is undone here too (an undo log alongside the unit's savepoint).
final class CursorWorkspace {
    struct Cursor: Sendable {
        var contiguous: Int
        var lastSeq: Int
        /// The first parked row above `contiguous` (a message or an own marker), if any.
        var firstParked: (seq: Int, own: Bool)?
        var isDirty = false
    }

    let db: Database
    let now: Date
    private let memory: CursorMemory
    /// Loaded cursors; a nil value is a conversation known to have no cursor.
    private var cursors: [Conversation.ID: Cursor?] = [:]
    /// Hand-out marks decided in this transaction, published after the commit.
    private var handedOutChanges: [Conversation.ID: Int] = [:]
    /// Values to restore if the running unit is refused; nil outside a unit.
    private var undoLog: [(Conversation.ID, Cursor??, Int?)]?

    init(db: Database, now: Date, memory: CursorMemory) {
        self.db = db
        self.now = now
        self.memory = memory
    }

    /// Runs `body` in an immediate transaction with a workspace, writes the changed cursors before the commit,
    /// and publishes the cursors and hand-out marks to the store's memory after it (not when it fails).
    static func run<T>(_ db: Database, now: Date, memory: CursorMemory, _ body: (CursorWorkspace) throws -> T) throws -> T {
        let workspace = CursorWorkspace(db: db, now: now, memory: memory)
        let result = try db.transaction(.immediate) { _ in
            let result = try body(workspace)
            try workspace.flush()
            return result
        }
        workspace.publish()
        return result
    }

    // MARK: - Statements

    /// The statements of the hot path, each taken from the connection's cache once per transaction instead of
    /// being looked up by its SQL text at every row.
    enum HotStatement: Int, CaseIterable {
        case selectCursor, upsertCursor, selectFirstParked, selectParkedExists, deleteParked, insertOwnMarker
        case selectSeenExists, insertSeen, insertOutbox, acknowledgeOutbox, selectOutboxExists

        var sql: String {
            switch self {
            case .selectCursor: CursorWorkspace.selectCursor
            case .upsertCursor: CursorWorkspace.upsertCursor
            case .selectFirstParked: CursorWorkspace.selectFirstParked
            case .selectParkedExists: CursorWorkspace.selectParkedExists
            case .deleteParked: CursorWorkspace.deleteParked
            case .insertOwnMarker: CursorWorkspace.insertOwnMarker
            case .selectSeenExists: CursorWorkspace.selectSeenExists
            case .insertSeen: CursorWorkspace.insertSeen
            case .insertOutbox: OutboxSQL.insert
            case .acknowledgeOutbox: OutboxSQL.acknowledge
            case .selectOutboxExists: OutboxSQL.selectExists
            }
        }
    }

    private var statements = [Statement?](repeating: nil, count: HotStatement.allCases.count)

    func statement(_ hot: HotStatement) throws -> Statement {
        if let statement = statements[hot.rawValue] { return statement }
        let statement = try db.cachedStatement(sql: hot.sql)
        statements[hot.rawValue] = statement
        return statement
    }

    // MARK: - Units

    /// Runs `body` as one unit: in a savepoint, with cursor changes undone if it throws.
    ///
    /// - Throws: the unit's error; or ``TransactionLost`` when SQLite rolled back the whole transaction
    ///   (some I/O, disk-full and out-of-memory errors do): then no later unit may run, since each of its
    ///   statements would commit on its own.
    func unit<T>(_ body: () throws -> T) throws -> T {
        undoLog = []
        defer { undoLog = nil }
        do {
            return try db.transaction { _ in try body() }
        } catch {
            guard db.isInTransaction else { throw TransactionLost(underlying: error) }
            for (conversation, cursor, handedOut) in (undoLog ?? []).reversed() {
                cursors[conversation] = cursor
                handedOutChanges[conversation] = handedOut
            }
            throw error
        }
    }

    /// SQLite rolled back the whole transaction while a unit ran; `underlying` is why.
    struct TransactionLost: Error, CustomStringConvertible {
        var underlying: any Error
        var description: String { "SQLite rolled back the whole transaction: \(underlying)" }
    }

    // MARK: - Cursors

    /// The cursor of `conversation`, or nil when it has none.
    func cursor(_ conversation: Conversation.ID) throws -> Cursor? {
        if let known = cursors[conversation] { return known }
        if let cached = memory.cursor(conversation) {
            cursors[conversation] = .some(cached)
            return cached
        }
        var cursor: Cursor?
        if let row = try statement(.selectCursor).fetchOne(arguments: [conversation.rawValue]) {
            let contiguous: Int = try row[0]
            cursor = Cursor(contiguous: contiguous, lastSeq: try row[1], firstParked: try firstParked(conversation, after: contiguous))
        }
        cursors[conversation] = .some(cursor)
        return cursor
    }

    /// Stores `cursor` as the new state of `conversation` (written at the end of the transaction).
    func setCursor(_ cursor: Cursor, for conversation: Conversation.ID) {
        rememberForUndo(conversation)
        var cursor = cursor
        cursor.isDirty = true
        cursors[conversation] = .some(cursor)
    }

    /// Creates or replaces the cursor of `conversation` with exactly these values.
    func resetCursor(_ conversation: Conversation.ID, contiguous: Int, lastSeq: Int) throws {
        try db.execute(sql: Self.deleteParkedThrough, arguments: [conversation.rawValue, contiguous])
        var cursor = Cursor(contiguous: contiguous, lastSeq: max(lastSeq, contiguous), firstParked: try firstParked(conversation, after: contiguous))
        try sweep(conversation, &cursor)
        setCursor(cursor, for: conversation)
    }

    /// The highest seq handed out or handled in `conversation`: the next deliverable message follows it.
    func expectedThrough(_ conversation: Conversation.ID, _ cursor: Cursor) -> Int {
        max(cursor.contiguous, handedOut(conversation) ?? 0)
    }

    func handedOut(_ conversation: Conversation.ID) -> Int? {
        if let staged = handedOutChanges[conversation] { return staged }
        return memory.handedOut(in: conversation)
    }

    func setHandedOut(_ seq: Int, in conversation: Conversation.ID) {
        rememberForUndo(conversation)
        handedOutChanges[conversation] = seq
    }

    private func rememberForUndo(_ conversation: Conversation.ID) {
        guard undoLog != nil else { return }
        undoLog?.append((conversation, cursors[conversation], handedOutChanges[conversation]))
    }

    /// Passes over the own markers right after the contiguous seq.
    func sweep(_ conversation: Conversation.ID, _ cursor: inout Cursor) throws {
        while let first = cursor.firstParked, first.seq == cursor.contiguous + 1, first.own {
            try statement(.deleteParked).execute(arguments: [conversation.rawValue, first.seq])
            cursor.contiguous = first.seq
            cursor.firstParked = try firstParked(conversation, after: first.seq)
        }
    }

    private func firstParked(_ conversation: Conversation.ID, after seq: Int) throws -> (seq: Int, own: Bool)? {
        guard let row = try statement(.selectFirstParked).fetchOne(arguments: [conversation.rawValue, seq]) else { return nil }
        return (try row[0], try row[1])
    }

    // MARK: - The seq rules

    /// Marks `message` handled: it must be the next message of its conversation. Returns the contiguous seq after it.
    func markHandled(_ message: Message) throws -> Int {
        let conversation = message.conversationId
        guard var cursor = try cursor(conversation) else { throw BotStoreError.unknownConversation(conversation) }
        guard message.seq > cursor.contiguous else {
            throw BotStoreError.alreadyHandled(message.id, conversation: conversation, seq: message.seq)
        }
        try sweep(conversation, &cursor)
        guard message.seq == cursor.contiguous + 1 else {
            throw BotStoreError.outOfOrder(message.id, conversation: conversation, seq: message.seq, expectedSeq: cursor.contiguous + 1)
        }
        try statement(.insertSeen).execute(arguments: [message.id.rawValue, conversation.rawValue, message.seq, now])
        guard db.changes > 0 else {
            throw BotStoreError.alreadyHandled(message.id, conversation: conversation, seq: message.seq)
        }
        if let first = cursor.firstParked, first.seq == message.seq {
            try statement(.deleteParked).execute(arguments: [conversation.rawValue, message.seq])
            cursor.firstParked = try firstParked(conversation, after: message.seq)
        }
        cursor.contiguous = message.seq
        cursor.lastSeq = max(cursor.lastSeq, message.seq)
        try sweep(conversation, &cursor)
        setCursor(cursor, for: conversation)
        return cursor.contiguous
    }

    /// Records that the bot's own message `messageId` sits at `seq`: the cursor passes over it at once when it
    /// is next, or when it is reached later (a marker). Conversations without a cursor keep the marker for
    /// when they are recorded.
    func passOwn(_ conversation: Conversation.ID, seq: Int, messageId: Message.ID) throws {
        guard var cursor = try cursor(conversation) else {
            try statement(.insertOwnMarker).execute(arguments: [conversation.rawValue, seq, messageId.rawValue, now])
            return
        }
        cursor.lastSeq = max(cursor.lastSeq, seq)
        if seq > cursor.contiguous {
            let expected = expectedThrough(conversation, cursor)
            try sweep(conversation, &cursor)
            if seq == cursor.contiguous + 1 {
                if let first = cursor.firstParked, first.seq == seq {
                    try statement(.deleteParked).execute(arguments: [conversation.rawValue, seq])
                    cursor.firstParked = try firstParked(conversation, after: seq)
                }
                cursor.contiguous = seq
                try sweep(conversation, &cursor)
            } else {
                try statement(.insertOwnMarker).execute(arguments: [conversation.rawValue, seq, messageId.rawValue, now])
                if cursor.firstParked.map({ seq < $0.seq }) ?? true {
                    cursor.firstParked = (seq, true)
                }
                if seq == expected + 1 { setHandedOut(seq, in: conversation) }
            }
        }
        setCursor(cursor, for: conversation)
    }

    /// Decides what to do with incoming messages (see ``MessageAdmission``), parking those ahead of a gap.
    func admit(_ messages: [Message], bot: User.ID) throws -> [MessageAdmission] {
        var admissions = [MessageAdmission](repeating: .duplicate, count: messages.count)
        // Per conversation in seq order, so that a batch holding 41, 42, 43 delivers all three.
        let order = messages.indices.sorted {
            (messages[$0].conversationId, messages[$0].seq) < (messages[$1].conversationId, messages[$1].seq)
        }
        for index in order {
            admissions[index] = try admit(messages[index], bot: bot)
        }
        return admissions
    }

    private func admit(_ message: Message, bot: User.ID) throws -> MessageAdmission {
        let conversation = message.conversationId
        guard var cursor = try cursor(conversation) else { return .unknownConversation }
        let expected = expectedThrough(conversation, cursor)
        guard message.seq > expected else { return .duplicate }
        if let first = cursor.firstParked, message.seq >= first.seq,
            try statement(.selectParkedExists).fetchOne(Int.self, arguments: [conversation.rawValue, message.seq]) != nil
        {
            // Parked already. If nothing before it is missing any more, this copy is the one to handle.
            guard message.seq == expected + 1, message.senderId != bot else { return .duplicate }
            setHandedOut(message.seq, in: conversation)
            return .deliver
        }
        if try statement(.selectSeenExists).fetchOne(Int.self, arguments: [message.id.rawValue]) != nil {
            return .duplicate
        }
        if message.senderId == bot {
            if let clientMessageId = message.clientMessageId {
                try statement(.acknowledgeOutbox).execute(
                    arguments: [message.id.rawValue, message.seq, message.createdAt.millisecondsSince1970, now, clientMessageId.rawValue])
            }
            try passOwn(conversation, seq: message.seq, messageId: message.id)
            return .own
        }
        cursor.lastSeq = max(cursor.lastSeq, message.seq)
        if message.seq == expected + 1 {
            setCursor(cursor, for: conversation)
            setHandedOut(message.seq, in: conversation)
            return .deliver
        }
        try db.execute(
            sql: Self.insertParkedMessage,
            arguments: [conversation.rawValue, message.seq, message.id.rawValue, try Self.encode(message), now])
        if cursor.firstParked.map({ message.seq < $0.seq }) ?? true {
            cursor.firstParked = (message.seq, false)
        }
        setCursor(cursor, for: conversation)
        return .parked
    }

    /// Hands out the parked messages that follow what is handled or handed out, in seq order, passing over
    /// own markers; at most `limit`.
    func handOutParked(in conversation: Conversation.ID, limit: Int) throws -> [Message] {
        guard limit > 0, let cursor = try cursor(conversation), cursor.firstParked != nil else { return [] }
        var next = expectedThrough(conversation, cursor) + 1
        var messages: [Message] = []
        let rows = try db.fetchAll(sql: Self.selectParkedFrom, arguments: [conversation.rawValue, next])
        for row in rows {
            let seq: Int = try row["seq"]
            guard seq == next else { break }
            next += 1
            if try row["own"] as Bool { continue }
            let json: String = try row["message"]
            do {
                messages.append(try JSONDecoder().decode(Message.self, from: Data(json.utf8)))
            } catch {
                throw BotStoreError.corruptRecord(table: "parked_messages", key: "\(conversation) seq \(seq)", reason: "\(error)")
            }
            if messages.count == limit { break }
        }
        if next - 1 > expectedThrough(conversation, cursor) {
            setHandedOut(next - 1, in: conversation)
        }
        return messages
    }

    /// Hands out the parked messages that are now next in `conversation` (none while a gap remains).
    func release(_ conversation: Conversation.ID) throws -> [Message] {
        guard let cursor = try cursor(conversation), let first = cursor.firstParked,
            first.seq <= expectedThrough(conversation, cursor) + 1
        else { return [] }
        return try handOutParked(in: conversation, limit: Self.releaseLimit)
    }

    /// At most this many parked messages are handed out at once; the rest follow with the next release.
    static let releaseLimit = 256

    // MARK: - Writing

    /// Writes the changed cursors. Called once, before the commit.
    func flush() throws {
        for (conversation, cursor) in cursors {
            guard let cursor, cursor.isDirty else { continue }
            try statement(.upsertCursor).execute(arguments: [conversation.rawValue, cursor.contiguous, cursor.lastSeq])
        }
    }

    /// Publishes the transaction's cursors and hand-out marks to the store's memory; called after the commit.
    func publish() {
        var committed: [Conversation.ID: Cursor] = [:]
        for (conversation, cursor) in cursors {
            if let cursor { committed[conversation] = cursor }
        }
        if !handedOutChanges.isEmpty || !committed.isEmpty {
            memory.publish(cursors: committed, handedOut: handedOutChanges)
        }
    }

    static func encode(_ message: Message) throws -> String {
        String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    }

    // MARK: - SQL

    static let selectCursor = "SELECT contiguous_seq, last_seq FROM conversations WHERE id = ?"
    static let upsertCursor = """
        INSERT INTO conversations (id, contiguous_seq, last_seq) VALUES (?1, ?2, ?3)
        ON CONFLICT (id) DO UPDATE SET contiguous_seq = excluded.contiguous_seq, last_seq = max(last_seq, excluded.last_seq)
        """
    static let selectFirstParked = """
        SELECT seq, own FROM parked_messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT 1
        """
    static let selectParkedFrom = """
        SELECT seq, own, message FROM parked_messages WHERE conversation_id = ? AND seq >= ? ORDER BY seq LIMIT 1000
        """
    static let selectParkedExists = "SELECT 1 FROM parked_messages WHERE conversation_id = ? AND seq = ?"
    static let deleteParked = "DELETE FROM parked_messages WHERE conversation_id = ? AND seq = ?"
    static let deleteParkedThrough = "DELETE FROM parked_messages WHERE conversation_id = ? AND seq <= ?"
    static let insertOwnMarker = """
        INSERT OR IGNORE INTO parked_messages (conversation_id, seq, message_id, own, message, parked_at)
        VALUES (?, ?, ?, 1, NULL, ?)
        """
    static let insertParkedMessage = """
        INSERT OR IGNORE INTO parked_messages (conversation_id, seq, message_id, own, message, parked_at)
        VALUES (?, ?, ?, 0, ?, ?)
        """
    static let selectSeenExists = "SELECT 1 FROM seen_messages WHERE message_id = ?"
    static let insertSeen = """
        INSERT OR IGNORE INTO seen_messages (message_id, conversation_id, seq, handled_at) VALUES (?, ?, ?, ?)
        """
}
