import ChatterBots
import Foundation
import SQLite
import Synchronization
import WebSocket

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
        var reply: Reply
    }

    /// How a request's caller hears its response: a suspended caller resumes, or a callback runs (on the thread that
    /// committed it, outside the committer's lock).
    private enum Reply: Sendable {
        case resume(CheckedContinuation<Response, any Error>)
        case call(@Sendable (Result<Response, any Error>) -> Void)

        func send(_ result: Result<Response, any Error>) {
            switch self {
            case .resume(let continuation): continuation.resume(with: result)
            case .call(let callback): callback(result)
            }
        }
    }

    private struct State: Sendable {
        var waiters: [Waiter] = []
        var isDraining = false
        /// Acks wait for a commit to share its transaction (``ackLinger``); the drain passes them over meanwhile.
        var isLingering = false
        var lingerGeneration: UInt64 = 0
        /// The items of the latest transaction: a large one says a flood is probably still on (after a pause, the
        /// next drain starts on the database's queue once, needlessly).
        var lastBatchItems = 0
    }

    /// How long acks that find the committer idle wait for a commit to join them. A reply's ack comes back well
    /// before the next message is handled, so at a steady rate (1,000 messages a second) every ack would otherwise
    /// cost a write transaction of its own; with the next commit the pages they share are written once. Only on an
    /// event loop, whose own timer makes the wait cheap; admissions meanwhile go ahead without the acks.
    static let ackLinger: Duration = .milliseconds(2)

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
            enqueue(Waiter(request: request, reply: .resume(continuation)))
        }
    }

    /// Submits `request` without suspending: `reply` runs once it is committed (or failed), on the thread that
    /// committed it. For acks, which need no caller to wait: they go with the next transaction.
    func submit(_ request: Request, then reply: @escaping @Sendable (Result<Response, any Error>) -> Void) {
        enqueue(Waiter(request: request, reply: .call(reply)))
    }

    /// Queues `waiter` for the next transaction, and starts what commits it: a drain, or an ack's linger.
    private func enqueue(_ waiter: Waiter) {
        let request = waiter.request
        let start = state.withLock { state -> DrainStart? in
            let isAck = Self.isAck(request)
            if state.isLingering && Self.endsLinger(request) { state.isLingering = false }
            if isAck && !state.isDraining && !state.isLingering && state.waiters.isEmpty
                && state.lastBatchItems < Self.minItemsForQueueDrain
            {
                state.waiters.append(waiter)
                state.isLingering = true
                state.lingerGeneration &+= 1
                return .linger(state.lingerGeneration)
            }
            state.waiters.append(waiter)
            guard !state.isDraining, !(isAck && state.isLingering) else { return nil }
            state.isDraining = true
            return state.lastBatchItems >= Self.minItemsForQueueDrain ? .onQueue : .inline
        }
        switch start {
        case .inline?: Task(executorPreference: SessionExecutor.preferred) { await self.drain(onQueue: false) }
        case .onQueue?: Task(executorPreference: globalConcurrentExecutor) { await self.drain(onQueue: true) }
        case .linger(let generation)?:
            // On an event loop its own timer ends the linger, with no task; elsewhere acks do not linger.
            if !EventLoopSleep.call(after: Self.ackLinger, { self.lingerEnded(generation) }) { lingerEnded(generation) }
        case nil: break
        }
    }

    /// Commits `request` at once on the caller's thread when nothing is being committed, no flood is on and the
    /// store's connection is free: no task is started and the caller does not suspend. For callers that know they
    /// are alone (one live message, one unit with nothing behind it); in a flood the drain's batches, on the
    /// database's own thread, cost less. Acks lingering for a commit
    /// go along with one that ends their linger. Nil, with nothing committed, when the request must wait its turn.
    /// Acks themselves are never committed this way: they linger for a commit to join.
    func commitInline(_ request: Request) -> Result<Response, any Error>? {
        guard !Self.isAck(request) else { return nil }
        let lingering = state.withLock { state -> [Waiter]? in
            guard !state.isDraining, state.lastBatchItems < Self.minItemsForQueueDrain else { return nil }
            state.isDraining = true
            // Nothing waits unless acks linger (any other waiter means a drain is on).
            guard state.isLingering, Self.endsLinger(request) else { return [] }
            state.isLingering = false
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let lingering else { return nil }
        let requests = lingering.map(\.request) + [request]
        let ran = queue.writeInlineIfFree { db in Result { try self.commit(requests, in: db) } }
        guard let ran else {
            // The connection is busy: everything goes the usual way, the acks first, as they came first.
            state.withLock { state in
                state.waiters = lingering + state.waiters
                state.isDraining = false
            }
            return nil
        }
        let responses: Result<[Response], any Error>
        switch ran {
        case .success(let committed): responses = committed
        case .failure(let error): responses = .failure(error)
        }
        switch responses {
        case .success(let responses):
            for (waiter, response) in zip(lingering, responses) { waiter.reply.send(.success(response)) }
        case .failure(let error):
            for waiter in lingering { waiter.reply.send(.failure(error)) }
        }
        let startsDrain = state.withLock { state -> Bool in
            state.lastBatchItems = requests.reduce(0) { $0 + $1.itemCount }
            guard !state.waiters.isEmpty, !state.isLingering else {
                state.isDraining = false
                return false
            }
            return true
        }
        if startsDrain { Task(executorPreference: SessionExecutor.preferred) { await self.drain(onQueue: false) } }
        return responses.flatMap { responses in
            responses.last.map { .success($0) } ?? .failure(GroupCommitterMismatch())
        }
    }

    /// Where a new drain starts: on the caller's executor, to commit inline; or straight on the database's queue,
    /// when the latest transaction was a flood's, so that the first commit does not wait behind the callers' work;
    /// or, for acks that found the committer idle, after ``ackLinger`` unless a commit comes first.
    private enum DrainStart { case inline, onQueue, linger(UInt64) }

    /// Whether a request takes lingering acks into its transaction at once: anything that writes the outbox or
    /// marks messages handled. An admission writes nothing for ordinary messages and goes ahead without them.
    private static func endsLinger(_ request: Request) -> Bool {
        switch request {
        case .commit, .enqueue, .rewind: true
        case .admit, .acknowledge: false
        }
    }

    /// The linger of `generation` is over: unless a commit took the acks meanwhile, they are committed now, on this
    /// thread when the store is free, else by a drain task.
    private func lingerEnded(_ generation: UInt64) {
        let start = state.withLock { state -> Bool in
            guard state.isLingering, state.lingerGeneration == generation else { return false }
            state.isLingering = false
            guard !state.isDraining, !state.waiters.isEmpty else { return false }
            state.isDraining = true
            return true
        }
        guard start else { return }
        if case .success(false)? = queue.writeInlineIfFree({ db in self.runTurn(db) }) { return }
        Task(executorPreference: SessionExecutor.preferred) { await self.drain(onQueue: false) }
    }

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
                for waiter in waiters { waiter.reply.send(.failure(error)) }
                return
            }
        }
    }

    /// Runs up to ``maxTransactionsPerTurn`` transactions on the database queue; false once nothing waits.
    private func runTurn(_ db: Database) -> Bool {
        for _ in 0..<Self.maxTransactionsPerTurn {
            guard let batch = takeBatch() else { return false }
            do {
                let responses = try commit(batch.map(\.request), in: db)
                for (waiter, response) in zip(batch, responses) { waiter.reply.send(.success(response)) }
            } catch {
                for waiter in batch { waiter.reply.send(.failure(error)) }
            }
        }
        return true
    }

    /// Applies `requests` in one transaction; their responses, in the same order.
    private func commit(_ requests: [Request], in db: Database) throws -> [Response] {
        // Acks first: an admission in the same transaction then finds the bot's own messages passed over and
        // delivers what follows them instead of parking it. Nothing else depends on their order.
        let order = requests.indices.filter { Self.isAck(requests[$0]) } + requests.indices.filter { !Self.isAck(requests[$0]) }
        var responses = [Response?](repeating: nil, count: requests.count)
        try CursorWorkspace.run(db, now: clock.now, memory: memory, outboxSendsAtCommit: outboxLiveness.isLive) { workspace in
            for index in order {
                responses[index] = try Self.apply(requests[index], in: workspace, faults: faults)
            }
        }
        return responses.compactMap { $0 }
    }

    private func waitingItemCount() -> Int {
        state.withLock { state in state.waiters.reduce(0) { $0 + $1.request.itemCount } }
    }

    /// The next requests to commit together (lingering acks left waiting), or nil (and draining stops) when none
    /// can go.
    private func takeBatch() -> [Waiter]? {
        state.withLock { state in
            let lingering = state.isLingering
            var batch: [Waiter] = []
            var kept: [Waiter] = []
            var items = 0
            for (index, waiter) in state.waiters.enumerated() {
                if lingering && Self.isAck(waiter.request) {
                    kept.append(waiter)
                    continue
                }
                let count = waiter.request.itemCount
                if !batch.isEmpty && items + count > Self.maxItemsPerTransaction {
                    kept += state.waiters[index...]
                    break
                }
                batch.append(waiter)
                items += count
            }
            guard !batch.isEmpty else {
                state.isDraining = false
                return nil
            }
            state.waiters = kept
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
                            try faults.check(unit, consuming: false)
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
