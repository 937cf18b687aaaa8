import ChatterBots
import Foundation
import SQLite

extension BotStore {
    /// Writes `message` to the outbox (durable) so it can be sent and resent until acknowledged.
    ///
    /// Idempotent on the clientMessageId: enqueuing the same id again returns the existing entry unchanged
    /// (whatever its status) and never creates a second one. Sends made while handling a message or running
    /// a job belong in that run's ``UnitOfWork`` instead, so they commit with the rest of the run.
    public func enqueue(
        _ message: MessageSend, origin: OutboxEntry.Origin = .direct, traceID: String? = nil
    ) async throws(BotStoreError) -> OutboxEntry {
        let send = PendingSend(message: message, payload: OutboxPayload.json(message), traceID: traceID)
        guard let entry = try await submit(.enqueue([send], origin: origin), "enqueue an outbox entry").first else {
            throw .storage(operation: "enqueue an outbox entry", underlying: StoreWriterMismatch(expected: 1, got: 0))
        }
        return entry
    }

    /// The entries still to send, oldest first: resend them with their original clientMessageIds after every
    /// reconnect and restart.
    public func pendingOutbox(limit: Int = .max) async throws(BotStoreError) -> [OutboxEntry] {
        try await read("read the pending outbox") { db in
            try db.fetchAll(sql: OutboxSQL.selectPending, arguments: [Int64(clamping: limit)]).map(OutboxEntry.init(row:))
        }
    }

    /// The seq of the bot's latest acknowledged message in `conversationId` the outbox still holds, or nil.
    func latestAcknowledgedSeq(in conversationId: Conversation.ID) async throws(BotStoreError) -> Int? {
        try await read("read the latest acknowledged seq") { db in
            let seq = try db.fetchOne(Int.self, sql: OutboxSQL.selectLatestAckedSeq, arguments: [conversationId.rawValue])
            if let seq, !SequenceNumber.range.contains(seq) {
                throw BotStoreError.corruptRecord(table: "outbox", key: conversationId.rawValue, reason: "seq holds \(seq), no sequence number")
            }
            return seq
        }
    }

    /// The entry with this clientMessageId, or nil.
    public func outboxEntry(_ id: ClientMessageID) async throws(BotStoreError) -> OutboxEntry? {
        try await read("read an outbox entry") { db in
            try db.fetchOne(sql: OutboxSQL.selectByClientMessageID, arguments: [id.rawValue]).map(OutboxEntry.init(row:))
        }
    }

    /// Records `message.ack`s: each entry becomes acknowledged with the message the service created, and
    /// each acknowledged seq is passed over by its conversation's cursor (the bot does not receive its own
    /// messages, so without this the next incoming message would look like a gap).
    ///
    /// Acks that arrive together are committed together with other hot-path writes.
    public func markAcked(_ acks: [MessageAck]) async throws(BotStoreError) -> AckReport {
        try await markAcked(acks, rows: [])
    }

    /// Records `acks` as ``markAcked(_:)-([MessageAck])`` does; `rows[i]`, when there is one, is the
    /// ``OutboxEntry/sequence`` of the entry `acks[i]` acknowledges (the sender knows it), which finds the row
    /// without a search of the clientMessageId index. A row that turns out not to hold that key is ignored.
    func markAcked(_ acks: [MessageAck], rows: [Int64?]) async throws(BotStoreError) -> AckReport {
        let result = await withCheckedContinuation { continuation in
            markAcked(acks, rows: rows) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Records `acks` as ``markAcked(_:rows:)`` does, without suspending: they are written with the store's next
    /// transaction (a commit's, or their own after a short wait), and `done` runs once they are, on the thread that
    /// wrote them.
    func markAcked(
        _ acks: [MessageAck], rows: [Int64?], then done: @escaping @Sendable (Result<AckReport, BotStoreError>) -> Void
    ) {
        guard !acks.isEmpty else { return done(.success(AckReport(outcomes: [], released: []))) }
        writer.submit(.acknowledge(acks, rows: rows)) { result in
            done(result.mapError { BotStoreError($0, during: "record acks") })
        }
    }

    /// Records one `message.ack`; see ``markAcked(_:)-([MessageAck])``.
    public func markAcked(_ ack: MessageAck) async throws(BotStoreError) -> AckReport {
        try await markAcked([ack])
    }

    /// Fails the pending entry `id` for good with a permanent error code (`NOT_FRIENDS`, `NOT_FOUND`,
    /// `VALIDATION_FAILED`): it is never resent. Returns false when the entry is not pending (unknown,
    /// already acknowledged or failed), in which case nothing changes.
    @discardableResult
    public func markFailed(_ id: ClientMessageID, code: ChatterErrorCode) async throws(BotStoreError) -> Bool {
        let now = clock.now
        return try await write("fail an outbox entry") { db in
            try db.execute(sql: OutboxSQL.fail, arguments: [code.rawValue, now, id.rawValue])
            return db.changes > 0
        }
    }

    /// Records that the pending entries `ids` go out for the first time at `date` (entries sent before keep their
    /// first time). Call it before their frames are written: the resend window counts from the first send, so an
    /// entry sent without this record could be resent after the service forgot its clientMessageId.
    public func recordFirstAttempts(_ ids: [ClientMessageID], at date: Date) async throws(BotStoreError) {
        guard !ids.isEmpty else { return }
        try await write("record first send attempts") { db in
            for id in ids {
                try db.execute(sql: OutboxSQL.recordFirstAttempt, arguments: [date, id.rawValue])
            }
        }
    }

    /// Counts one send of each pending entry in `ids`, with the transient error the previous one met, if any.
    /// For resends after a reconnect, and for metrics; the entries stay pending. A first send is recorded as such
    /// (``OutboxEntry/firstAttemptAt``).
    public func recordAttempts(_ ids: [ClientMessageID], error: ChatterErrorCode? = nil) async throws(BotStoreError) {
        guard !ids.isEmpty else { return }
        let now = clock.now
        try await write("record send attempts") { db in
            for id in ids {
                try db.execute(sql: OutboxSQL.recordAttempt, arguments: [now, error?.rawValue, id.rawValue])
            }
        }
    }

    /// The number of pending entries (the outbox depth metric).
    public func outboxDepth() async throws(BotStoreError) -> Int {
        try await read("count the pending outbox") { db in
            try db.fetchOne(Int.self, sql: OutboxSQL.countPending) ?? 0
        }
    }

    /// Deletes entries acknowledged before `date`, and failed entries created before it. Pending entries are
    /// never pruned, nor are the entries of work in the quarantine or suspected of a crash: a retry or a rerun
    /// of that work, however late, finds them and sends nothing twice. Returns how many were deleted.
    ///
    /// Keep acknowledged entries at least as long as a run of the same trigger could be repeated (a power
    /// loss undoing recent commits): an existing entry is what makes re-enqueuing its id a no-op locally.
    @discardableResult
    public func pruneOutbox(settledBefore date: Date) async throws(BotStoreError) -> Int {
        try await write("prune the outbox") { db in
            try db.execute(sql: OutboxSQL.prune, arguments: [date, date])
            return db.changes
        }
    }
}

/// A write of the store's writer returned fewer results than it was given items: a bug, reported instead of trapping.
struct StoreWriterMismatch: Error, CustomStringConvertible {
    var expected: Int
    var got: Int
    var description: String { "internal error: the store's writer returned \(got) results for \(expected) items" }
}

extension OutboxEntry {
    init(row: Row) throws {
        let key: String = try row["client_message_id"]
        let payload: String = try row["payload"]
        let message = try OutboxPayload.message(from: payload, key: key)
        let originKind: String = try row["origin_kind"]
        guard let origin = Origin(kind: originKind, id: try row["origin_id"], occurrence: try row["origin_occurrence"]) else {
            throw BotStoreError.corruptRecord(table: "outbox", key: key, reason: "unknown origin \"\(originKind)\"")
        }
        var acknowledgement: Acknowledgement?
        if let messageId: Message.ID = try row.optionalIdentifier("message_id"),
            let seq = try row.optionalSequenceNumber("seq", table: "outbox", key: key),
            let createdAt = try row.timestamp("message_created_at"), let ackedAt: Date = try row["acked_at"]
        {
            acknowledgement = Acknowledgement(messageId: messageId, seq: seq, createdAt: createdAt, ackedAt: ackedAt)
        }
        self.init(
            sequence: try row["id"], message: message, encodedMessage: payload, createdAt: try row["created_at"],
            status: try row.rawEnum(Status.self, "status", table: "outbox", key: key), attempts: try row["attempts"],
            lastAttemptAt: try row["last_attempt_at"], firstAttemptAt: try row["first_attempt_at"], lastError: (try row["last_error"] as String?).map(ChatterErrorCode.init(rawValue:)),
            acknowledgement: acknowledgement, origin: origin, traceID: try row["trace_id"])
    }
}

/// Outbox writes inside a transaction of the store's writer.
enum OutboxWrites {
    /// Inserts each send unless its clientMessageId exists; returns the entries as stored and the ids created.
    static func insert(
        _ sends: [PendingSend], origin: OutboxEntry.Origin, in workspace: CursorWorkspace
    ) throws -> ([OutboxEntry], Set<ClientMessageID>) {
        var entries: [OutboxEntry] = []
        var created: Set<ClientMessageID> = []
        let (originKind, originID, originOccurrence) = origin.columns
        let firstAttemptAt = workspace.outboxSendsAtCommit ? workspace.now : nil
        for send in sends {
            let id = send.message.clientMessageId
            try workspace.statement(.insertOutbox).execute(
                arguments: StatementArguments(values: [
                    id.rawValue.databaseValue, send.message.conversationId.rawValue.databaseValue, send.payload.databaseValue,
                    workspace.now.databaseValue, originKind.databaseValue, originID?.databaseValue ?? .null,
                    originOccurrence?.databaseValue ?? .null, send.traceID?.databaseValue ?? .null,
                    firstAttemptAt?.databaseValue ?? .null,
                ]))
            if try workspace.db.changes > 0 {
                let sequence = try workspace.db.lastInsertRowID
                created.insert(id)
                entries.append(OutboxEntry(
                    sequence: sequence, message: send.message, encodedMessage: send.payload, createdAt: workspace.now,
                    status: .pending, attempts: 0, lastAttemptAt: nil, firstAttemptAt: firstAttemptAt, lastError: nil,
                    acknowledgement: nil, origin: origin, traceID: send.traceID))
            } else if let row = try workspace.db.fetchOne(sql: OutboxSQL.selectByClientMessageID, arguments: [id.rawValue]) {
                entries.append(try OutboxEntry(row: row))
            } else {
                throw BotStoreError.corruptRecord(table: "outbox", key: id.rawValue, reason: "the entry neither inserts nor exists")
            }
        }
        return (entries, created)
    }

    /// Applies acks: entries acknowledged, acknowledged seqs passed over, parked messages released.
    static func acknowledge(_ acks: [MessageAck], rows: [Int64?], in workspace: CursorWorkspace) throws -> AckReport {
        var outcomes: [AckOutcome] = []
        outcomes.reserveCapacity(acks.count)
        for (index, ack) in acks.enumerated() {
            var values: [DatabaseValue] = [
                ack.messageId.rawValue.databaseValue, ack.seq.databaseValue, ack.createdAt.millisecondsSince1970.databaseValue,
                workspace.now.databaseValue, ack.clientMessageId.rawValue.databaseValue,
            ]
            var acknowledged = false
            if index < rows.count, let row = rows[index] {
                values.append(row.databaseValue)
                try workspace.statement(.acknowledgeOutboxRow).execute(arguments: StatementArguments(values: values))
                acknowledged = try workspace.db.changes > 0
                values.removeLast()
            }
            if !acknowledged {
                try workspace.statement(.acknowledgeOutbox).execute(arguments: StatementArguments(values: values))
                acknowledged = try workspace.db.changes > 0
            }
            if acknowledged {
                outcomes.append(.acknowledged)
            } else if try workspace.statement(.selectOutboxExists).fetchOne(Int.self, arguments: [ack.clientMessageId.rawValue]) != nil {
                outcomes.append(.alreadyAcknowledged)
            } else {
                outcomes.append(.unknownEntry)
            }
            try workspace.passOwn(ack.conversationId, seq: ack.seq)
        }
        var released: [Message] = []
        var conversations: [Conversation.ID] = []
        for ack in acks where !conversations.contains(ack.conversationId) {
            conversations.append(ack.conversationId)
            released += try workspace.release(ack.conversationId)
        }
        return AckReport(outcomes: outcomes, released: released)
    }
}

enum OutboxSQL {
    static let columns = """
        id, client_message_id, conversation_id, payload, created_at, status, attempts, last_attempt_at, last_error, \
        message_id, seq, message_created_at, acked_at, origin_kind, origin_id, origin_occurrence, trace_id, first_attempt_at
        """
    /// Inserts a pending entry, or nothing when its clientMessageId exists: `changes` says which, and
    /// `lastInsertRowID` is the new entry's id. No `RETURNING`: SQLite collects its rows in a temporary table,
    /// which cost a temporary file (open, write, unlink) per statement on the hot path.
    static let insert = """
        INSERT INTO outbox (
            client_message_id, conversation_id, payload, created_at, status, origin_kind, origin_id, origin_occurrence, trace_id,
            first_attempt_at)
        VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)
        ON CONFLICT (client_message_id) DO NOTHING
        """
    static let selectByClientMessageID = "SELECT \(columns) FROM outbox WHERE client_message_id = ?"
    static let selectExists = "SELECT 1 FROM outbox WHERE client_message_id = ?"
    static let selectPending = "SELECT \(columns) FROM outbox WHERE status = 'pending' ORDER BY id LIMIT ?"
    static let selectLatestAckedSeq = "SELECT MAX(seq) FROM outbox WHERE conversation_id = ? AND status = 'acked'"
    static let countPending = "SELECT count(*) FROM outbox WHERE status = 'pending'"
    /// Arguments: message id, seq, message createdAt (ms), acked at, clientMessageId. `changes` is 1 when it
    /// acknowledged the entry, 0 when the entry is unknown or was acknowledged already.
    static let acknowledge = """
        UPDATE outbox SET status = 'acked', message_id = ?, seq = ?, message_created_at = ?, acked_at = ?
        WHERE client_message_id = ? AND status <> 'acked'
        """
    /// ``acknowledge`` for an entry whose row id is known (one more argument, the id): a lookup by primary key.
    /// The clientMessageId must match as well, so a wrong id changes nothing.
    static let acknowledgeRow = """
        UPDATE outbox SET status = 'acked', message_id = ?1, seq = ?2, message_created_at = ?3, acked_at = ?4
        WHERE id = ?6 AND client_message_id = ?5 AND status <> 'acked'
        """
    static let fail = """
        UPDATE outbox SET status = 'failed', last_error = ?, last_attempt_at = coalesce(last_attempt_at, ?)
        WHERE client_message_id = ? AND status = 'pending'
        """
    static let recordAttempt = """
        UPDATE outbox SET attempts = attempts + 1, last_attempt_at = ?1, first_attempt_at = coalesce(first_attempt_at, ?1),
            last_error = coalesce(?2, last_error)
        WHERE client_message_id = ?3 AND status = 'pending'
        """
    /// Arguments: the time, clientMessageId.
    static let recordFirstAttempt = """
        UPDATE outbox SET first_attempt_at = ?1 WHERE client_message_id = ?2 AND status = 'pending' AND first_attempt_at IS NULL
        """
    static let prune = """
        DELETE FROM outbox WHERE ((status = 'acked' AND acked_at < ?) OR (status = 'failed' AND created_at < ?))
            AND (trace_id IS NULL OR trace_id NOT IN (SELECT trace_id FROM quarantine UNION SELECT trace_id FROM crash_suspects))
        """
}
