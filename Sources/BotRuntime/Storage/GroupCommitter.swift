import ChatterBots
import Foundation
import SQLite
import Synchronization

/// Commits the hot-path writes of many callers together: admissions, handler units, enqueues and acks that
/// arrive while a transaction runs wait for the next one and share it.
///
/// One drain task at a time takes the waiting requests (up to ``maxItemsPerTransaction`` items), applies
/// them in ONE immediate transaction on the database queue (acks first, the rest in arrival order), commits,
/// and resumes every caller; it keeps going while requests keep arriving, yielding the queue to other work every
/// ``maxTransactionsPerTurn`` transactions. A few waiting requests are committed inline on the callers' executor
/// when the connection is free; in a flood (``minItemsForQueueDrain`` or more) the drain stays on the database's
/// queue, so that committing and the callers' own work run on two threads at once (the store's other calls then
/// wait on that queue between two turns instead of running inline). Within a transaction a lane's units share
/// one savepoint, and run again in one savepoint each if any is refused, so a refused unit is undone alone; if
/// the transaction itself fails (disk full, I/O error), every request in it fails with that error and nothing of
/// it is written. A request, once submitted, runs even if its caller is cancelled, so the caller never sees half
/// of it.
final class GroupCommitter: Sendable {
    enum Request: Sendable {
        case admit([Message], bot: User.ID)
        case commit([UnitOfWork])
        case enqueue([PendingSend], origin: OutboxEntry.Origin)
        /// Acks, with the row ids of their entries where the sender knows them (empty, or one per ack).
        case acknowledge([MessageAck], rows: [Int64?])
        /// Forgets what was handed out of a conversation and not committed, after the store refused one of its units.
        case rewind(Conversation.ID)

        var itemCount: Int {
            switch self {
            case .admit(let messages, _): messages.count
            case .commit(let units): units.count
            case .enqueue(let sends, _): sends.count
            case .acknowledge(let acks, _): acks.count
            case .rewind: 1
            }
        }
    }

    enum Response: Sendable {
        case admitted(AdmissionReport)
        case committed([Result<CommitReceipt, BotStoreError>])
        case enqueued(CommitReceipt)
        case acknowledged(AckReport)
        /// The conversation's committed contiguous seq (nil: no cursor) and the parked messages now next.
        case rewound(contiguousSeq: Int?, released: [Message])
    }

    private struct Waiter: Sendable {
        var request: Request
        var continuation: CheckedContinuation<Response, any Error>
    }

    private struct State: Sendable {
        var waiters: [Waiter] = []
        var isDraining = false
        /// The items of the latest transaction: a large one says a flood is probably still on (after a pause, the
        /// next drain starts on the database's queue once, needlessly).
        var lastBatchItems = 0
    }

    /// Small enough that, in a flood, the callers get a transaction's results while the next one runs.
    static let maxItemsPerTransaction = 256
    static let maxTransactionsPerTurn = 8
    /// From how many waiting items the drain leaves the callers' executor and runs its turns on the database's
    /// queue, one after another while requests keep arriving, so that the callers go on producing them on their
    /// own thread meanwhile. Fewer commit inline (when the connection is free), which saves two thread hops.
    static let minItemsForQueueDrain = 64

    private let state = Mutex(State())
    private let queue: DatabaseQueue
    private let clock: any ChatterClock
    private let memory: CursorMemory
    private let outboxLiveness: OutboxLiveness
    private let faults: StoreFaults

    init(queue: DatabaseQueue, clock: any ChatterClock, memory: CursorMemory, outboxLiveness: OutboxLiveness, faults: StoreFaults) {
        self.queue = queue
        self.clock = clock
        self.memory = memory
        self.outboxLiveness = outboxLiveness
        self.faults = faults
    }

    func submit(_ request: Request) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state -> DrainStart? in
                state.waiters.append(Waiter(request: request, continuation: continuation))
                guard !state.isDraining else { return nil }
                state.isDraining = true
                return state.lastBatchItems >= Self.minItemsForQueueDrain ? .onQueue : .inline
            }
            switch start {
            case .inline?: Task(executorPreference: SessionExecutor.preferred) { await self.drain(onQueue: false) }
            case .onQueue?: Task(executorPreference: globalConcurrentExecutor) { await self.drain(onQueue: true) }
            case nil: break
            }
        }
    }

    /// Where a new drain starts: on the caller's executor, to commit inline; or straight on the database's queue,
    /// when the latest transaction was a flood's, so that the first commit does not wait behind the callers' work.
    private enum DrainStart { case inline, onQueue }

    private func drain(onQueue: Bool) async {
        while true {
            do {
                if onQueue || waitingItemCount() >= Self.minItemsForQueueDrain {
                    try await queue.writePasses { db in self.runTurn(db) }
                    return
                }
                let hasMore = try await queue.writeWithoutTransaction { db in self.runTurn(db) }
                if !hasMore { return }
            } catch {
                // The database could not even be reached (it is closed): fail everything waiting.
                let waiters = state.withLock { state in
                    defer { state.waiters = []; state.isDraining = false }
                    return state.waiters
                }
                for waiter in waiters { waiter.continuation.resume(throwing: error) }
                return
            }
        }
    }

    /// Runs up to ``maxTransactionsPerTurn`` transactions on the database queue; false once nothing waits.
    private func runTurn(_ db: Database) -> Bool {
        for _ in 0..<Self.maxTransactionsPerTurn {
            guard let batch = takeBatch() else { return false }
            do {
                // Acks first: an admission in the same transaction then finds the bot's own messages passed over
                // and delivers what follows them instead of parking it. Nothing else depends on their order.
                let order = batch.indices.filter { Self.isAck(batch[$0].request) } + batch.indices.filter { !Self.isAck(batch[$0].request) }
                var responses = [Response?](repeating: nil, count: batch.count)
                try CursorWorkspace.run(db, now: clock.now, memory: memory, outboxSendsAtCommit: outboxLiveness.isLive) { workspace in
                    for index in order {
                        responses[index] = try Self.apply(batch[index].request, in: workspace, faults: faults)
                    }
                }
                for (waiter, response) in zip(batch, responses) {
                    if let response { waiter.continuation.resume(returning: response) }
                }
            } catch {
                for waiter in batch { waiter.continuation.resume(throwing: error) }
            }
        }
        return true
    }

    private func waitingItemCount() -> Int {
        state.withLock { state in state.waiters.reduce(0) { $0 + $1.request.itemCount } }
    }

    /// The next requests to commit together, or nil (and draining stops) when none wait.
    private func takeBatch() -> [Waiter]? {
        state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.isDraining = false
                return nil
            }
            var count = 0
            var items = 0
            while count < state.waiters.count && (count == 0 || items + state.waiters[count].request.itemCount <= Self.maxItemsPerTransaction) {
                items += state.waiters[count].request.itemCount
                count += 1
            }
            let batch = Array(state.waiters.prefix(count))
            state.waiters.removeFirst(count)
            state.lastBatchItems = items
            return batch
        }
    }

    // MARK: - Applying requests

    private static func isAck(_ request: Request) -> Bool {
        if case .acknowledge = request { true } else { false }
    }

    private static func apply(_ request: Request, in workspace: CursorWorkspace, faults: StoreFaults) throws -> Response {
        switch request {
        case .admit(let messages, let bot):
            let admissions = try workspace.admit(messages, bot: bot)
            var released: [Message] = []
            for conversation in Set(messages.map(\.conversationId)) {
                released += try workspace.release(conversation)
            }
            return .admitted(AdmissionReport(admissions: admissions, released: released))
        case .commit(let units):
            // All of a lane's units in one savepoint when none is refused (the usual case); else one each, so a
            // refused unit is undone alone.
            if units.count > 1 {
                do {
                    let receipts = try workspace.unit {
                        try units.map { unit in
                            try faults.check(unit)
                            return try UnitCommit.apply(unit, in: workspace)
                        }
                    }
                    return .committed(receipts.map { .success($0) })
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
            return .committed(results)
        case .enqueue(let sends, let origin):
            let (entries, created) = try OutboxWrites.insert(sends, origin: origin, in: workspace)
            return .enqueued(CommitReceipt(outboxEntries: entries, createdEntries: created, contiguousSeq: nil, job: nil, released: []))
        case .acknowledge(let acks, let rows):
            return .acknowledged(try OutboxWrites.acknowledge(acks, rows: rows, in: workspace))
        case .rewind(let conversation):
            guard let contiguous = try workspace.rewind(conversation) else { return .rewound(contiguousSeq: nil, released: []) }
            return .rewound(contiguousSeq: contiguous, released: try workspace.release(conversation))
        }
    }
}
