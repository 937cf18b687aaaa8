import ChatterBots
import Foundation
import SQLite

/// The conversation ledgers of one write transaction: each taken once (from the store's memory, else its cursor
/// read from SQLite), changed here, its cursor row written once before the commit, and published to the store's
/// memory after it. Used only on the database queue. The transaction begins at the first use of ``db``: a write
/// that the store's memory answers alone (admitting an ordinary message) touches no SQLite at all.
///
/// The seq rules themselves are ``ConversationLedger``'s; this type carries out their I/O (the cursor rows, the
/// `seen_messages` records, the acks of the bot's own messages) and undoes a refused unit's changes by putting
/// back the ledgers it changed, alongside the unit's savepoint.
final class CursorWorkspace {
    private let connection: Database
    /// Whether this workspace began its transaction (it commits it then); not inside a caller's transaction.
    private var began = false
    let now: Date
    /// Whether outbox entries inserted here go out at once (``OutboxLiveness``): they are then recorded as first
    /// sent at `now`.
    let outboxSendsAtCommit: Bool
    private let memory: CursorMemory
    /// The ledgers this transaction looked at, their cursors read.
    private var ledgers: [Conversation.ID: ConversationLedger] = [:]
    /// The conversations whose ledgers the running unit changed (each journals its changes); nil outside a unit.
    private var unitConversations: [Conversation.ID]?
    /// Whether this transaction read a step of the seen ids already: one is the most it reads, however many
    /// messages it admits.
    private var readSeenStep = false

    init(db: Database, now: Date, memory: CursorMemory, outboxSendsAtCommit: Bool = false) {
        self.connection = db
        self.now = now
        self.memory = memory
        self.outboxSendsAtCommit = outboxSendsAtCommit
    }

    /// Runs `body` with a workspace, in an immediate transaction begun when it first uses ``db``; writes the changed
    /// cursors before the commit, and publishes the ledgers to the store's memory after it (not when it fails).
    static func run<T>(
        _ db: Database, now: Date, memory: CursorMemory, outboxSendsAtCommit: Bool = false, _ body: (CursorWorkspace) throws -> T
    ) throws -> T {
        let workspace = CursorWorkspace(db: db, now: now, memory: memory, outboxSendsAtCommit: outboxSendsAtCommit)
        guard !db.isInTransaction else {
            // Inside a caller's transaction: a savepoint of it, published once the savepoint is released.
            let result = try db.transaction { _ in
                let result = try body(workspace)
                try workspace.flush()
                return result
            }
            workspace.publish()
            return result
        }
        do {
            let result = try body(workspace)
            try workspace.flush()
            if workspace.began { try db.execute(sql: "COMMIT") }
            workspace.publish()
            return result
        } catch {
            if db.isInTransaction {
                // The original error is what matters; a failed rollback leaves nothing more to report.
                try? db.execute(sql: "ROLLBACK")
            }
            throw error
        }
    }

    /// The connection, in the workspace's transaction: the first use begins it.
    var db: Database {
        get throws {
            if !began && !connection.isInTransaction {
                try connection.execute(sql: "BEGIN IMMEDIATE")
                began = true
            }
            return connection
        }
    }

    // MARK: - Statements

    /// The statements of the hot path, kept by the connection under their index (``Database/keptStatement(_:sql:)``)
    /// instead of being looked up by their SQL text.
    enum HotStatement: Int, CaseIterable {
        case selectCursor, upsertCursor, deleteStoredParked
        case selectSeenExists, insertSeen, insertOutbox, acknowledgeOutbox, acknowledgeOutboxRow, selectOutboxExists

        var sql: String {
            switch self {
            case .selectCursor: CursorWorkspace.selectCursor
            case .upsertCursor: CursorWorkspace.upsertCursor
            case .deleteStoredParked: CursorWorkspace.deleteStoredParked
            case .selectSeenExists: CursorWorkspace.selectSeenExists
            case .insertSeen: CursorWorkspace.insertSeen
            case .insertOutbox: OutboxSQL.insert
            case .acknowledgeOutbox: OutboxSQL.acknowledge
            case .acknowledgeOutboxRow: OutboxSQL.acknowledgeRow
            case .selectOutboxExists: OutboxSQL.selectExists
            }
        }
    }

    func statement(_ hot: HotStatement) throws -> Statement {
        try db.keptStatement(hot.rawValue, sql: hot.sql)
    }

    // MARK: - Units

    /// Runs `body` as one unit: in a savepoint, with the ledgers it changed put back if it throws.
    ///
    /// - Throws: the unit's error; or ``TransactionLost`` when SQLite rolled back the whole transaction
    ///   (some I/O, disk-full and out-of-memory errors do): then no later unit may run, since each of its
    ///   statements would commit on its own.
    func unit<T>(_ body: () throws -> T) throws -> T {
        unitConversations = []
        defer { unitConversations = nil }
        do {
            let result = try db.transaction { _ in try body() }
            for conversation in unitConversations ?? [] { ledgers[conversation]?.endUnit() }
            return result
        } catch {
            for conversation in unitConversations ?? [] { ledgers[conversation]?.rollBackUnit() }
            guard connection.isInTransaction else { throw TransactionLost(underlying: error) }
            throw error
        }
    }

    /// SQLite rolled back the whole transaction while a unit ran; `underlying` is why.
    struct TransactionLost: Error, CustomStringConvertible {
        var underlying: any Error
        var description: String { "SQLite rolled back the whole transaction: \(underlying)" }
    }

    // MARK: - Ledgers

    /// The ledger of `conversation`, its cursor read from the file when the store's memory has none.
    private func ledger(_ conversation: Conversation.ID) throws -> ConversationLedger {
        if let known = ledgers[conversation] { return known }
        var ledger = memory.ledger(conversation) ?? ConversationLedger()
        if ledger.cursor == nil, let row = try statement(.selectCursor).fetchOne(arguments: [conversation.rawValue]) {
            ledger.load(ConversationLedger.Cursor(
                contiguous: try row.sequenceNumber("contiguous_seq", table: "conversations", key: conversation.rawValue),
                lastSeq: try row.sequenceNumber("last_seq", table: "conversations", key: conversation.rawValue)))
            ledger.isRemoved = (try row["removed_at"] as Date?) != nil
            // Parked rows of an earlier version: in memory now, and what they held comes back through sync.
            try statement(.deleteStoredParked).execute(arguments: [conversation.rawValue])
        }
        ledgers[conversation] = ledger
        return ledger
    }

    /// Changes the ledger of `conversation` in place; inside a unit, the ledger journals the changes for undo.
    private func change<T>(_ conversation: Conversation.ID, _ body: (inout ConversationLedger) throws -> T) throws -> T {
        if ledgers[conversation] == nil { _ = try ledger(conversation) }
        let startsUnit = unitConversations.map { !$0.contains(conversation) } ?? false
        if startsUnit { unitConversations?.append(conversation) }
        return try Self.modify(&ledgers[conversation, default: ConversationLedger()]) { ledger in
            if startsUnit { ledger.beginUnit() }
            return try body(&ledger)
        }
    }

    /// Runs `body` on `value` in place: on a dictionary's `default:` subscript, one lookup for the read and the
    /// write. `body` must not touch the dictionary.
    private static func modify<Value, Result>(_ value: inout Value, _ body: (inout Value) throws -> Result) rethrows -> Result {
        try body(&value)
    }

    /// The cursor of `conversation`, or nil when it has none.
    func cursor(_ conversation: Conversation.ID) throws -> ConversationLedger.Cursor? {
        try ledger(conversation).cursor
    }

    /// The service reported `conversation` to the bot (a member again, or still): its messages are admitted again.
    func markPresent(_ conversation: Conversation.ID) throws {
        guard try ledger(conversation).isRemoved else { return }
        try change(conversation) { $0.isRemoved = false }
    }

    /// Raises the highest seq heard of in `conversation` (written at the end of the transaction).
    func raiseLastSeq(_ seq: Int, in conversation: Conversation.ID) throws {
        try change(conversation) { $0.raiseLastSeq(seq) }
    }

    /// Creates or replaces the cursor of `conversation` with exactly these values.
    func resetCursor(_ conversation: Conversation.ID, contiguous: Int, lastSeq: Int) throws {
        try statement(.deleteStoredParked).execute(arguments: [conversation.rawValue])
        try change(conversation) { $0.reset(contiguous: contiguous, lastSeq: lastSeq) }
    }

    // MARK: - The ledgers' decisions, carried out

    /// Marks `message` handled: it must be the next message of its conversation. Returns the contiguous seq after it.
    func markHandled(_ message: Message) throws -> Int {
        let conversation = message.conversationId
        switch try ledger(conversation).position(of: message.seq) {
        case .unknownConversation:
            throw BotStoreError.unknownConversation(conversation)
        case .handled:
            throw BotStoreError.alreadyHandled(message.id, conversation: conversation, seq: message.seq)
        case .outOfOrder(let expectedSeq):
            throw BotStoreError.outOfOrder(message.id, conversation: conversation, seq: message.seq, expectedSeq: expectedSeq)
        case .next:
            break
        }
        try statement(.insertSeen).execute(
            arguments: StatementArguments(values: [
                message.id.rawValue.databaseValue, conversation.rawValue.databaseValue, message.seq.databaseValue, now.databaseValue,
            ]))
        guard try db.changes > 0 else {
            throw BotStoreError.alreadyHandled(message.id, conversation: conversation, seq: message.seq)
        }
        memory.recordSeen(message.id)
        return try change(conversation) { $0.handled(message.seq) }
    }

    /// Records that the bot's own message sits at `seq` in `conversation`.
    func passOwn(_ conversation: Conversation.ID, seq: Int) throws {
        try change(conversation) { $0.passOwn(seq: seq) }
    }

    /// Decides what to do with incoming messages (see ``MessageAdmission``), parking those ahead of a gap and
    /// acknowledging the outbox entries of the bot's own.
    func admit(_ messages: [Message], bot: User.ID) throws -> [MessageAdmission] {
        var admissions = [MessageAdmission](repeating: .duplicate, count: messages.count)
        // Each conversation's messages in seq order, so that a batch holding 41, 42, 43 delivers all three.
        // Conversations do not affect each other, so ordering the whole batch by seq is enough.
        let inOrder = zip(messages, messages.dropFirst()).allSatisfy { $0.seq <= $1.seq }
        let order = inOrder ? Array(messages.indices) : messages.indices.sorted { messages[$0].seq < messages[$1].seq }
        for index in order {
            let message = messages[index]
            let admission = try change(message.conversationId) { ledger in
                try ledger.admit(message, bot: bot) { try isSeen(message.id) }
            }
            if admission == .own, let clientMessageId = message.clientMessageId {
                try statement(.acknowledgeOutbox).execute(
                    arguments: [message.id.rawValue, message.seq, message.createdAt.millisecondsSince1970, now, clientMessageId.rawValue])
            }
            admissions[index] = admission
        }
        return admissions
    }

    /// Whether a message with `id` is recorded as seen: asked of the store's filter of seen ids first, and of SQLite
    /// only when the filter cannot rule it out. While the filter is being read, the first call of each transaction
    /// reads one more step of it.
    private func isSeen(_ id: Message.ID) throws -> Bool {
        if !readSeenStep, var step = memory.nextSeenRead {
            readSeenStep = true
            if step == .count {
                memory.countedSeen(try db.fetchOne(Int.self, sql: Self.countSeen) ?? 0)
                step = memory.nextSeenRead ?? step
            }
            switch step {
            case .rows(nil, let limit):
                memory.readSeen(try db.fetchAll(String.self, sql: Self.selectFirstSeenIds, arguments: [limit]), of: step)
            case .rows(let after?, let limit):
                memory.readSeen(try db.fetchAll(String.self, sql: Self.selectSeenIdsAfter, arguments: [after, limit]), of: step)
            case .count:
                break
            }
        }
        guard memory.mightHaveSeen(id) != false else { return false }
        return try statement(.selectSeenExists).fetchOne(
            Int.self, arguments: StatementArguments(values: [id.rawValue.databaseValue])) != nil
    }

    /// Hands out the parked messages that follow what is handled or handed out in `conversation`; at most `limit`.
    func handOutParked(in conversation: Conversation.ID, limit: Int) throws -> [Message] {
        try change(conversation) { $0.handOutParked(limit: limit) }
    }

    /// Where an update of a message goes; see ``ConversationLedger/placeUpdate(_:bot:)``.
    func placeUpdate(_ update: Message, bot: User.ID) throws -> ConversationLedger.UpdatePlacement {
        try change(update.conversationId) { $0.placeUpdate(update, bot: bot) }
    }

    /// Forgets what was handed out of `conversation` beyond its committed contiguous seq, which it returns (nil: no
    /// cursor): those messages are handed out again when they come back.
    func rewind(_ conversation: Conversation.ID) throws -> Int? {
        try change(conversation) { $0.rewind() }
    }

    /// Hands out the parked messages that are now next in `conversation` (none while a gap remains).
    func release(_ conversation: Conversation.ID) throws -> [Message] {
        try change(conversation) { $0.release() }
    }

    // MARK: - Writing

    /// Writes the changed cursors. Called once, before the commit.
    func flush() throws {
        for (conversation, ledger) in ledgers where ledger.cursorNeedsWrite {
            guard let cursor = ledger.cursor else { continue }
            try statement(.upsertCursor).execute(
                arguments: StatementArguments(values: [
                    conversation.rawValue.databaseValue, cursor.contiguous.databaseValue, cursor.lastSeq.databaseValue,
                ]))
        }
    }

    /// Publishes the transaction's ledgers to the store's memory; called after the commit.
    func publish() {
        guard !ledgers.isEmpty else { return }
        memory.publish(ledgers)
    }

    // MARK: - SQL

    static let selectCursor = "SELECT contiguous_seq, last_seq, removed_at FROM conversations WHERE id = ?"
    static let upsertCursor = """
        INSERT INTO conversations (id, contiguous_seq, last_seq) VALUES (?1, ?2, ?3)
        ON CONFLICT (id) DO UPDATE SET contiguous_seq = excluded.contiguous_seq, last_seq = max(last_seq, excluded.last_seq)
        """
    /// Rows an earlier version parked durably: the service still has them, and sync brings them back.
    static let deleteStoredParked = "DELETE FROM parked_messages WHERE conversation_id = ?"
    static let selectSeenExists = "SELECT 1 FROM seen_messages WHERE message_id = ?"
    static let countSeen = "SELECT count(*) FROM seen_messages"
    static let selectFirstSeenIds = "SELECT message_id FROM seen_messages ORDER BY message_id LIMIT ?"
    static let selectSeenIdsAfter = "SELECT message_id FROM seen_messages WHERE message_id > ? ORDER BY message_id LIMIT ?"
    static let insertSeen = """
        INSERT OR IGNORE INTO seen_messages (message_id, conversation_id, seq, handled_at) VALUES (?, ?, ?, ?)
        """
}
