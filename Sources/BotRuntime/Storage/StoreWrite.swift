import ChatterBots

/// One request to the ``StoreWriter``: what it does inside the batch's transaction and the result its caller gets,
/// typed, so that no caller matches a response against its request.
struct StoreWrite<Output: Sendable>: Sendable {
    /// How many items it holds (messages, units, sends, acks): a transaction takes at most
    /// ``StoreWriter/maxItemsPerTransaction``.
    var items: Int
    var batching: StoreWriteBatching
    /// Applies the write inside the batch's transaction; its result reaches the caller once the transaction commits.
    var apply: @Sendable (CursorWorkspace) throws -> Output
}

/// How a write shares transactions with the others.
enum StoreWriteBatching: Sendable {
    /// Acks: applied first in their transaction, never on their own at once; when they find the writer idle they
    /// wait a little (``StoreWriter/ackLinger``) for a write that takes them along.
    case lingers
    /// Admissions: they go ahead without lingering acks (an ordinary message's admission writes nothing).
    case goesAhead
    /// Handler units, outbox entries, rewinds: lingering acks go along in their transaction.
    case takesLingeringAcks
}

/// What rewinding a conversation left: its committed contiguous seq (nil: no cursor) and the parked messages now
/// next, handed out.
struct RewindOutcome: Sendable, Equatable {
    var contiguousSeq: Int?
    var released: [Message]
}

extension StoreWrite where Output == AdmissionReport {
    /// Admits incoming messages (see ``BotStore/admit(_:bot:)-([Message],_)``).
    static func admit(_ messages: [Message], bot: User.ID) -> Self {
        StoreWrite(items: messages.count, batching: .goesAhead) { workspace in
            let admissions = try workspace.admit(messages, bot: bot)
            if messages.count == 1, let message = messages.first {
                return AdmissionReport(admissions: admissions, released: try workspace.release(message.conversationId))
            }
            var released: [Message] = []
            var conversations: Set<Conversation.ID> = []
            for message in messages where conversations.insert(message.conversationId).inserted {
                released += try workspace.release(message.conversationId)
            }
            return AdmissionReport(admissions: admissions, released: released)
        }
    }
}

extension StoreWrite where Output == [Result<CommitReceipt, BotStoreError>] {
    /// Commits units in order, each all or nothing. Together in one savepoint when none is refused (the usual case);
    /// else one savepoint each, so that a refused unit is undone alone and reported in its result. Throws only when
    /// the transaction itself is lost.
    static func commit(_ units: [UnitOfWork], faults: StoreFaults) -> Self {
        StoreWrite(items: units.count, batching: .takesLingeringAcks) { workspace in
            if units.count > 1 {
                do {
                    let receipts = try workspace.unit {
                        try units.map { unit in
                            try faults.check(unit, consuming: false)
                            return try UnitCommit.apply(unit, in: workspace)
                        }
                    }
                    return receipts.map { .success($0) }
                } catch let error as CursorWorkspace.TransactionLost {
                    throw error.underlying
                } catch {
                    // Undone whole; applied again below, unit by unit.
                }
            }
            var results: [Result<CommitReceipt, BotStoreError>] = []
            results.reserveCapacity(units.count)
            for unit in units {
                do {
                    results.append(.success(try workspace.unit {
                        try faults.check(unit)
                        return try UnitCommit.apply(unit, in: workspace)
                    }))
                } catch let error as BotStoreError {
                    results.append(.failure(error))
                } catch let error as CursorWorkspace.TransactionLost {
                    throw error.underlying
                } catch {
                    results.append(.failure(.storage(operation: "commit a unit", underlying: error)))
                }
            }
            return results
        }
    }
}

extension StoreWrite where Output == [OutboxEntry] {
    /// Writes sends to the outbox; an existing clientMessageId keeps its entry. The entries as stored, in order.
    static func enqueue(_ sends: [PendingSend], origin: OutboxEntry.Origin) -> Self {
        StoreWrite(items: sends.count, batching: .takesLingeringAcks) { workspace in
            try OutboxWrites.insert(sends, origin: origin, in: workspace).0
        }
    }
}

extension StoreWrite where Output == AckReport {
    /// Records acks, with the row ids of their entries where the sender knows them (empty, or one per ack).
    static func acknowledge(_ acks: [MessageAck], rows: [Int64?]) -> Self {
        StoreWrite(items: acks.count, batching: .lingers) { workspace in
            try OutboxWrites.acknowledge(acks, rows: rows, in: workspace)
        }
    }
}

extension StoreWrite where Output == RewindOutcome {
    /// Forgets what was handed out of a conversation and not committed, after the store refused one of its units.
    static func rewind(_ conversation: Conversation.ID) -> Self {
        StoreWrite(items: 1, batching: .takesLingeringAcks) { workspace in
            guard let contiguous = try workspace.rewind(conversation) else { return RewindOutcome(contiguousSeq: nil, released: []) }
            return RewindOutcome(contiguousSeq: contiguous, released: try workspace.release(conversation))
        }
    }
}
