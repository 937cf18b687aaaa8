import ChatterBots
import Foundation
import SQLite

/// The conversation cursors of one write transaction: each read once (from the store's memory, else from
/// SQLite), changed in memory, written once before the commit. Used only on the database queue, inside the
/// transaction.
///
/// This is where the seq rules live. A conversation's contiguous seq advances over a message only when it
/// is handled, and over the bot's own messages (seen through an ack or a sync) as soon as it reaches them.
/// Messages ahead of a gap, and the bot's own messages ahead of the contiguous seq, wait in the conversation's
/// ``ParkedMessages`` (in memory: the service still has them, and sync brings them back after a restart); they
/// are handed out, or passed over ("swept"), when reached. A refused unit is undone here too (an undo log
/// alongside the unit's savepoint).
final class CursorWorkspace {
    struct Cursor: Sendable {
        var contiguous: Int
        var lastSeq: Int
        var isDirty = false
    }

    /// What this transaction knows of one conversation. One record per conversation, so that each step of the
    /// seq rules finds everything about it with one lookup.
    private struct ConversationState {
        /// The cursor as loaded or set here; `.some(nil)` for a conversation known to have none, nil when not
        /// loaded yet.
        var cursor: Cursor??
        /// The hand-out mark decided here, published after the commit.
        var handedOut: Int?
        /// The parked messages, once this transaction looked at them.
        var parked: ParkedMessages?
        /// Whether `parked` changed here (published after the commit).
        var parkedChanged = false
    }

    /// A change to undo when the running unit is refused.
    private enum UndoStep {
        case cursor(Conversation.ID, Cursor??, Int?)
        case parkedInserted(Conversation.ID, seq: Int)
        case parkedRemoved(Conversation.ID, seq: Int, ParkedMessages.Entry)
    }

    let db: Database
    let now: Date
    /// Whether outbox entries inserted here go out at once (``OutboxLiveness``): they are then recorded as first
    /// sent at `now`.
    let outboxSendsAtCommit: Bool
    private let memory: CursorMemory
    /// The conversations this transaction looked at.
    private var conversations: [Conversation.ID: ConversationState] = [:]
    /// What to restore if the running unit is refused; nil outside a unit.
    private var undoLog: [UndoStep]?

    init(db: Database, now: Date, memory: CursorMemory, outboxSendsAtCommit: Bool = false) {
        self.db = db
        self.now = now
        self.memory = memory
        self.outboxSendsAtCommit = outboxSendsAtCommit
    }

    /// Runs `body` in an immediate transaction with a workspace, writes the changed cursors before the commit,
    /// and publishes the cursors, parked messages and hand-out marks to the store's memory after it (not when it
    /// fails).
    static func run<T>(
        _ db: Database, now: Date, memory: CursorMemory, outboxSendsAtCommit: Bool = false, _ body: (CursorWorkspace) throws -> T
    ) throws -> T {
        let workspace = CursorWorkspace(db: db, now: now, memory: memory, outboxSendsAtCommit: outboxSendsAtCommit)
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
            for step in (undoLog ?? []).reversed() {
                switch step {
                case .cursor(let conversation, let cursor, let handedOut):
                    conversations[conversation, default: ConversationState()].cursor = cursor
                    conversations[conversation, default: ConversationState()].handedOut = handedOut
                case .parkedInserted(let conversation, let seq):
                    modifyParked(conversation) { _ = $0.remove(at: seq) }
                case .parkedRemoved(let conversation, let seq, let entry):
                    modifyParked(conversation) { _ = $0.insert(entry, at: seq) }
                }
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
        if let known = conversations[conversation]?.cursor { return known }
        if let cached = memory.cursor(conversation) {
            conversations[conversation, default: ConversationState()].cursor = .some(cached)
            return cached
        }
        var cursor: Cursor?
        if let row = try statement(.selectCursor).fetchOne(arguments: [conversation.rawValue]) {
            cursor = Cursor(contiguous: try row[0], lastSeq: try row[1])
            // Parked rows of an earlier version: in memory now, and what they held comes back through sync.
            try statement(.deleteStoredParked).execute(arguments: [conversation.rawValue])
        }
        conversations[conversation, default: ConversationState()].cursor = .some(cursor)
        return cursor
    }

    /// Stores `cursor` as the new state of `conversation` (written at the end of the transaction).
    func setCursor(_ cursor: Cursor, for conversation: Conversation.ID) {
        var cursor = cursor
        cursor.isDirty = true
        modifyRemembering(conversation) { $0.cursor = .some(cursor) }
    }

    /// Keeps `cursor` as the state of `conversation` in memory without writing it: for a raised `lastSeq` alone,
    /// which nothing reads back from the file, so that admitting an ordinary message writes nothing. The row
    /// catches up with the next write of the conversation's cursor (its upsert keeps the larger `last_seq`).
    func keepCursor(_ cursor: Cursor, for conversation: Conversation.ID) {
        modifyRemembering(conversation) { $0.cursor = .some(cursor) }
    }

    /// Creates or replaces the cursor of `conversation` with exactly these values.
    func resetCursor(_ conversation: Conversation.ID, contiguous: Int, lastSeq: Int) throws {
        try statement(.deleteStoredParked).execute(arguments: [conversation.rawValue])
        removeParked(in: conversation, through: contiguous)
        var cursor = Cursor(contiguous: contiguous, lastSeq: max(lastSeq, contiguous))
        sweep(conversation, &cursor)
        setCursor(cursor, for: conversation)
    }

    /// The highest seq handed out or handled in `conversation`: the next deliverable message follows it.
    func expectedThrough(_ conversation: Conversation.ID, _ cursor: Cursor) -> Int {
        max(cursor.contiguous, handedOut(conversation) ?? 0)
    }

    func handedOut(_ conversation: Conversation.ID) -> Int? {
        if let staged = conversations[conversation]?.handedOut { return staged }
        return memory.handedOut(in: conversation)
    }

    func setHandedOut(_ seq: Int, in conversation: Conversation.ID) {
        modifyRemembering(conversation) { $0.handedOut = seq }
    }

    /// Changes the cursor or hand-out mark of `conversation`, first logging both for undo inside a unit.
    private func modifyRemembering(_ conversation: Conversation.ID, _ change: (inout ConversationState) -> Void) {
        let logsUndo = undoLog != nil
        var step: UndoStep?
        Self.modify(&conversations[conversation, default: ConversationState()]) { state in
            if logsUndo { step = .cursor(conversation, state.cursor, state.handedOut) }
            change(&state)
        }
        if let step { undoLog?.append(step) }
    }

    /// Runs `body` on `value` in place: on a dictionary's `default:` subscript, one lookup for the read and the
    /// write. `body` must not touch the dictionary.
    private static func modify<Value, Result>(_ value: inout Value, _ body: (inout Value) -> Result) -> Result {
        body(&value)
    }

    // MARK: - Parked messages

    private func parkedMessages(_ conversation: Conversation.ID) -> ParkedMessages {
        if let loaded = conversations[conversation]?.parked { return loaded }
        let loaded = memory.parked(in: conversation)
        conversations[conversation, default: ConversationState()].parked = loaded
        return loaded
    }

    private func modifyParked<T>(_ conversation: Conversation.ID, _ body: (inout ParkedMessages) -> T) -> T {
        let memory = memory
        return Self.modify(&conversations[conversation, default: ConversationState()]) { state in
            var messages = state.parked ?? memory.parked(in: conversation)
            state.parked = nil
            defer {
                state.parked = messages
                state.parkedChanged = true
            }
            return body(&messages)
        }
    }

    private func insertParked(_ entry: ParkedMessages.Entry, at seq: Int, in conversation: Conversation.ID) {
        if modifyParked(conversation, { $0.insert(entry, at: seq) }) {
            undoLog?.append(.parkedInserted(conversation, seq: seq))
        }
    }

    private func removeParked(at seq: Int, in conversation: Conversation.ID) {
        guard parkedMessages(conversation).entry(at: seq) != nil else { return }
        if let entry = modifyParked(conversation, { $0.remove(at: seq) }) {
            undoLog?.append(.parkedRemoved(conversation, seq: seq, entry))
        }
    }

    private func removeParked(in conversation: Conversation.ID, through seq: Int) {
        guard let first = parkedMessages(conversation).first(after: Int.min), first.seq <= seq else { return }
        for (seq, entry) in modifyParked(conversation, { $0.removeThrough(seq) }) {
            undoLog?.append(.parkedRemoved(conversation, seq: seq, entry))
        }
    }

    /// Passes over the own markers right after the contiguous seq.
    func sweep(_ conversation: Conversation.ID, _ cursor: inout Cursor) {
        while let first = parkedMessages(conversation).first(after: cursor.contiguous), first.seq == cursor.contiguous + 1, first.own {
            removeParked(at: first.seq, in: conversation)
            cursor.contiguous = first.seq
        }
    }

    // MARK: - The seq rules

    /// Marks `message` handled: it must be the next message of its conversation. Returns the contiguous seq after it.
    func markHandled(_ message: Message) throws -> Int {
        let conversation = message.conversationId
        guard var cursor = try cursor(conversation) else { throw BotStoreError.unknownConversation(conversation) }
        guard message.seq > cursor.contiguous else {
            throw BotStoreError.alreadyHandled(message.id, conversation: conversation, seq: message.seq)
        }
        sweep(conversation, &cursor)
        guard message.seq == cursor.contiguous + 1 else {
            throw BotStoreError.outOfOrder(message.id, conversation: conversation, seq: message.seq, expectedSeq: cursor.contiguous + 1)
        }
        try statement(.insertSeen).execute(
            arguments: StatementArguments(values: [
                message.id.rawValue.databaseValue, conversation.rawValue.databaseValue, message.seq.databaseValue, now.databaseValue,
            ]))
        guard db.changes > 0 else {
            throw BotStoreError.alreadyHandled(message.id, conversation: conversation, seq: message.seq)
        }
        removeParked(at: message.seq, in: conversation)
        cursor.contiguous = message.seq
        cursor.lastSeq = max(cursor.lastSeq, message.seq)
        sweep(conversation, &cursor)
        setCursor(cursor, for: conversation)
        return cursor.contiguous
    }

    /// Records that the bot's own message `messageId` sits at `seq`: the cursor passes over it at once when it
    /// is next, or when it is reached later (a marker). Conversations without a cursor keep the marker for
    /// when they are recorded.
    func passOwn(_ conversation: Conversation.ID, seq: Int, messageId: Message.ID) throws {
        guard var cursor = try cursor(conversation) else {
            insertParked(.own, at: seq, in: conversation)
            return
        }
        cursor.lastSeq = max(cursor.lastSeq, seq)
        if seq > cursor.contiguous {
            let expected = expectedThrough(conversation, cursor)
            sweep(conversation, &cursor)
            if seq == cursor.contiguous + 1 {
                removeParked(at: seq, in: conversation)
                cursor.contiguous = seq
                sweep(conversation, &cursor)
            } else {
                insertParked(.own, at: seq, in: conversation)
                if seq == expected + 1 { setHandedOut(seq, in: conversation) }
            }
        }
        setCursor(cursor, for: conversation)
    }

    /// Decides what to do with incoming messages (see ``MessageAdmission``), parking those ahead of a gap.
    func admit(_ messages: [Message], bot: User.ID) throws -> [MessageAdmission] {
        var admissions = [MessageAdmission](repeating: .duplicate, count: messages.count)
        // Each conversation's messages in seq order, so that a batch holding 41, 42, 43 delivers all three.
        // Conversations do not affect each other, so ordering the whole batch by seq is enough.
        let seqs = messages.map(\.seq)
        let order = zip(seqs, seqs.dropFirst()).allSatisfy { $0 <= $1 } ? Array(messages.indices) : messages.indices.sorted { seqs[$0] < seqs[$1] }
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
        if parkedMessages(conversation).entry(at: message.seq) != nil {
            // Parked already. If nothing before it is missing any more, this copy is the one to handle.
            guard message.seq == expected + 1, message.senderId != bot else { return .duplicate }
            setHandedOut(message.seq, in: conversation)
            return .deliver
        }
        if try statement(.selectSeenExists).fetchOne(Int.self, arguments: StatementArguments(values: [message.id.rawValue.databaseValue])) != nil {
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
        if message.seq > cursor.lastSeq {
            cursor.lastSeq = message.seq
            keepCursor(cursor, for: conversation)
        }
        if message.seq == expected + 1 {
            setHandedOut(message.seq, in: conversation)
            return .deliver
        }
        insertParked(.message(message), at: message.seq, in: conversation)
        return .parked
    }

    /// Hands out the parked messages that follow what is handled or handed out, in seq order, passing over
    /// own markers; at most `limit`.
    func handOutParked(in conversation: Conversation.ID, limit: Int) throws -> [Message] {
        guard limit > 0, let cursor = try cursor(conversation) else { return [] }
        let expected = expectedThrough(conversation, cursor)
        var next = expected + 1
        var messages: [Message] = []
        for (seq, entry) in parkedMessages(conversation).entries(from: next) {
            guard seq == next else { break }
            next += 1
            guard case .message(let message) = entry else { continue }
            messages.append(message)
            if messages.count == limit { break }
        }
        if next - 1 > expected {
            setHandedOut(next - 1, in: conversation)
        }
        return messages
    }

    /// Forgets what was handed out of `conversation` beyond its committed contiguous seq, which it returns (nil: no
    /// cursor): those messages are handed out again when they come back.
    func rewind(_ conversation: Conversation.ID) throws -> Int? {
        guard let cursor = try cursor(conversation) else { return nil }
        setHandedOut(cursor.contiguous, in: conversation)
        return cursor.contiguous
    }

    /// Hands out the parked messages that are now next in `conversation` (none while a gap remains).
    func release(_ conversation: Conversation.ID) throws -> [Message] {
        guard let cursor = try cursor(conversation),
            parkedMessages(conversation).entry(at: expectedThrough(conversation, cursor) + 1) != nil
        else { return [] }
        return try handOutParked(in: conversation, limit: Self.releaseLimit)
    }

    /// At most this many parked messages are handed out at once; the rest follow with the next release.
    static let releaseLimit = 256

    // MARK: - Writing

    /// Writes the changed cursors. Called once, before the commit.
    func flush() throws {
        for (conversation, state) in conversations {
            guard case .some(.some(let cursor)) = state.cursor, cursor.isDirty else { continue }
            try statement(.upsertCursor).execute(
                arguments: StatementArguments(values: [
                    conversation.rawValue.databaseValue, cursor.contiguous.databaseValue, cursor.lastSeq.databaseValue,
                ]))
        }
    }

    /// Publishes the transaction's cursors, parked messages and hand-out marks to the store's memory; called after
    /// the commit.
    func publish() {
        var committed: [Conversation.ID: Cursor] = [:]
        var handedOut: [Conversation.ID: Int] = [:]
        var changedParked: [Conversation.ID: ParkedMessages] = [:]
        for (conversation, state) in conversations {
            if case .some(.some(let cursor)) = state.cursor { committed[conversation] = cursor }
            if let mark = state.handedOut { handedOut[conversation] = mark }
            if state.parkedChanged { changedParked[conversation] = state.parked ?? ParkedMessages() }
        }
        if !handedOut.isEmpty || !committed.isEmpty || !changedParked.isEmpty {
            memory.publish(cursors: committed, handedOut: handedOut, parked: changedParked)
        }
    }

    // MARK: - SQL

    static let selectCursor = "SELECT contiguous_seq, last_seq FROM conversations WHERE id = ?"
    static let upsertCursor = """
        INSERT INTO conversations (id, contiguous_seq, last_seq) VALUES (?1, ?2, ?3)
        ON CONFLICT (id) DO UPDATE SET contiguous_seq = excluded.contiguous_seq, last_seq = max(last_seq, excluded.last_seq)
        """
    /// Rows an earlier version parked durably: the service still has them, and sync brings them back.
    static let deleteStoredParked = "DELETE FROM parked_messages WHERE conversation_id = ?"
    static let selectSeenExists = "SELECT 1 FROM seen_messages WHERE message_id = ?"
    static let insertSeen = """
        INSERT OR IGNORE INTO seen_messages (message_id, conversation_id, seq, handled_at) VALUES (?, ?, ?, ?)
        """
}
