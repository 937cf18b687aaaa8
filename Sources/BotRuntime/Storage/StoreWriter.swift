import ChatterBots
import Foundation
import SQLite
import Synchronization
import WebSocket

/// The one writer of a store's hot path: admissions, handler units, outbox entries, acks and rewinds that arrive
/// while a transaction runs wait for the next one and share it. Each request is a ``StoreWrite`` and its caller gets
/// that write's own result.
///
/// One drain at a time takes the waiting writes (up to ``maxItemsPerTransaction`` items), applies them in ONE
/// immediate transaction (acks first, the rest in arrival order), commits, and hands each caller its result; it
/// keeps going while writes keep arriving, yielding the database's queue to other work every
/// ``maxTransactionsPerTurn`` transactions. A few waiting writes are committed inline on the callers' executor when
/// the connection is free; in a flood (``minItemsForQueueDrain`` or more) the drain stays on the database's queue,
/// so that committing and the callers' own work run on two threads at once. If the transaction itself fails (disk
/// full, I/O error), every write in it fails with that error and nothing of it is written. A write, once submitted,
/// runs even if its caller is cancelled, so the caller never sees half of it.
///
/// Handler units come through the writer's lanes (`StoreWriter+Lanes.swift`): one batch in flight per lane, so a
/// conversation's units commit in the order its handlers finished.
final class StoreWriter: Sendable {
    /// How a write's caller hears its result: a suspended caller resumes, or a callback runs (on the thread that
    /// committed it, outside the writer's lock).
    private enum Reply<Output: Sendable>: Sendable {
        case resume(CheckedContinuation<Output, any Error>)
        case call(@Sendable (Result<Output, any Error>) -> Void)

        func send(_ result: Result<Output, any Error>) {
            switch self {
            case .resume(let continuation): continuation.resume(with: result)
            case .call(let callback): callback(result)
            }
        }
    }

    /// Hands a write's result to its caller, once its transaction committed.
    private typealias Delivery = @Sendable () -> Void

    /// A write waiting for its transaction, its result type hidden: applying it returns the delivery of its result.
    private struct Queued: Sendable {
        var items: Int
        var batching: StoreWriteBatching
        var apply: @Sendable (CursorWorkspace) throws -> Delivery
        var fail: @Sendable (any Error) -> Void

        init<Output>(_ write: StoreWrite<Output>, reply: Reply<Output>) {
            items = write.items
            batching = write.batching
            apply = { workspace in
                let output = try write.apply(workspace)
                return { reply.send(.success(output)) }
            }
            fail = { error in reply.send(.failure(error)) }
        }

        var isAck: Bool { batching == .lingers }
    }

    private struct State: Sendable {
        var waiting: [Queued] = []
        var isDraining = false
        /// Acks wait for a commit to share its transaction (``ackLinger``); the drain passes them over meanwhile.
        var isLingering = false
        var lingerGeneration: UInt64 = 0
        /// The loop's alarm that ends the current linger; cancelled when a commit takes the acks first, so that the
        /// loop does not wake for it.
        var lingerAlarm: EventLoopAlarm?
        /// The items of the latest transaction: a large one says a flood is probably still on (after a pause, the
        /// next drain starts on the database's queue once, needlessly).
        var lastBatchItems = 0

        /// Ends the linger; returns its alarm, for the caller to cancel outside the lock.
        mutating func endLinger() -> EventLoopAlarm? {
            isLingering = false
            defer { lingerAlarm = nil }
            return lingerAlarm
        }
    }

    /// How long acks that find the writer idle wait for a commit to join them. A reply's ack comes back well
    /// before the next message is handled, so at a steady rate (1,000 messages a second) every ack would otherwise
    /// cost a write transaction of its own; with the next commit the pages they share are written once. Only on an
    /// event loop, whose own timer makes the wait cheap; admissions meanwhile go ahead without the acks.
    static let ackLinger: Duration = .milliseconds(2)

    /// Small enough that, in a flood, the callers get a transaction's results while the next one runs.
    static let maxItemsPerTransaction = 256
    static let maxTransactionsPerTurn = 8
    /// From how many waiting items the drain leaves the callers' executor and runs its turns on the database's
    /// queue, one after another while writes keep arriving, so that the callers go on producing them on their
    /// own thread meanwhile. Fewer commit inline (when the connection is free), which saves two thread hops.
    static let minItemsForQueueDrain = 64

    private let state = Mutex(State())
    /// The lanes' units, and what the session does with their outcomes (`StoreWriter+Lanes.swift`).
    let laneBook = Mutex(LaneBook())
    private let queue: DatabaseQueue
    private let clock: any ChatterClock
    private let memory: CursorMemory
    private let outboxLiveness: OutboxLiveness
    let faults: StoreFaults

    init(queue: DatabaseQueue, clock: any ChatterClock, memory: CursorMemory, outboxLiveness: OutboxLiveness, faults: StoreFaults) {
        self.queue = queue
        self.clock = clock
        self.memory = memory
        self.outboxLiveness = outboxLiveness
        self.faults = faults
    }

    /// Queues `write` for the next transaction and returns its result once that transaction committed.
    func submit<Output>(_ write: StoreWrite<Output>) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(Queued(write, reply: .resume(continuation)))
        }
    }

    /// Queues `write` without suspending: `reply` runs once it is committed (or failed), on the thread that committed
    /// it. For acks, which need no caller to wait: they go with the next transaction.
    func submit<Output>(_ write: StoreWrite<Output>, then reply: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        enqueue(Queued(write, reply: .call(reply)))
    }

    /// Queues `queued` for the next transaction, and starts what commits it: a drain, or an ack's linger.
    private func enqueue(_ queued: Queued) {
        let (start, endedAlarm) = state.withLock { state -> (DrainStart?, EventLoopAlarm?) in
            var endedAlarm: EventLoopAlarm?
            if state.isLingering && queued.batching == .takesLingeringAcks { endedAlarm = state.endLinger() }
            if queued.isAck && !state.isDraining && !state.isLingering && state.waiting.isEmpty
                && state.lastBatchItems < Self.minItemsForQueueDrain
            {
                state.waiting.append(queued)
                state.isLingering = true
                state.lingerGeneration &+= 1
                return (.linger(state.lingerGeneration), endedAlarm)
            }
            state.waiting.append(queued)
            guard !state.isDraining, !(queued.isAck && state.isLingering) else { return (nil, endedAlarm) }
            state.isDraining = true
            return (state.lastBatchItems >= Self.minItemsForQueueDrain ? .onQueue : .inline, endedAlarm)
        }
        endedAlarm?.cancel()
        switch start {
        case .inline?: Task(executorPreference: SessionExecutor.preferred) { await self.drain(onQueue: false) }
        case .onQueue?: Task(executorPreference: globalConcurrentExecutor) { await self.drain(onQueue: true) }
        case .linger(let generation)?: startLingerAlarm(generation)
        case nil: break
        }
    }

    /// Ends the linger `generation` after ``ackLinger`` by an alarm of the caller's event loop, with no task; on no
    /// loop, acks do not linger.
    private func startLingerAlarm(_ generation: UInt64) {
        guard let alarm = EventLoopAlarm(onCurrentLoopIn: Self.ackLinger, { self.lingerEnded(generation) }) else {
            lingerEnded(generation)
            return
        }
        let isCurrent = state.withLock { state -> Bool in
            guard state.isLingering, state.lingerGeneration == generation else { return false }
            state.lingerAlarm = alarm
            return true
        }
        if !isCurrent { alarm.cancel() }
    }

    /// Commits `write` at once on the caller's thread when nothing is being committed, no flood is on and the
    /// store's connection is free: no task is started and the caller does not suspend. For callers that know they
    /// are alone (one live message, one unit with nothing behind it); in a flood the drain's batches, on the
    /// database's own thread, cost less. Acks lingering for a commit go along with one that ends their linger. Nil,
    /// with nothing committed, when the write must wait its turn. Acks themselves are never committed this way:
    /// they linger for a commit to join.
    func writeInline<Output>(_ write: StoreWrite<Output>) -> Result<Output, any Error>? {
        guard write.batching != .lingers else { return nil }
        let taken = state.withLock { state -> (acks: [Queued], alarm: EventLoopAlarm?)? in
            guard !state.isDraining, state.lastBatchItems < Self.minItemsForQueueDrain else { return nil }
            state.isDraining = true
            // Nothing waits unless acks linger (any other waiting write means a drain is on).
            guard state.isLingering, write.batching == .takesLingeringAcks else { return ([], nil) }
            let alarm = state.endLinger()
            defer { state.waiting = [] }
            return (state.waiting, alarm)
        }
        guard let taken else { return nil }
        taken.alarm?.cancel()
        let lingering = taken.acks
        let ran = queue.writeInlineIfFree { db in
            Result {
                // The lingering acks first, as in any transaction.
                try CursorWorkspace.run(db, now: self.clock.now, memory: self.memory, outboxSendsAtCommit: self.outboxLiveness.isLive) {
                    workspace in
                    (try lingering.map { try $0.apply(workspace) }, try write.apply(workspace))
                }
            }
        }
        guard let ran else {
            // The connection is busy: everything goes the usual way, the acks first, as they came first.
            state.withLock { state in
                state.waiting = lingering + state.waiting
                state.isDraining = false
            }
            return nil
        }
        let committed = ran.flatMap { $0 }
        switch committed {
        case .success(let (deliveries, _)):
            for delivery in deliveries { delivery() }
        case .failure(let error):
            for queued in lingering { queued.fail(error) }
        }
        let startsDrain = state.withLock { state -> Bool in
            state.lastBatchItems = lingering.reduce(write.items) { $0 + $1.items }
            guard !state.waiting.isEmpty, !state.isLingering else {
                state.isDraining = false
                return false
            }
            return true
        }
        if startsDrain { Task(executorPreference: SessionExecutor.preferred) { await self.drain(onQueue: false) } }
        return committed.map(\.1)
    }

    /// Where a new drain starts: on the caller's executor, to commit inline; or straight on the database's queue,
    /// when the latest transaction was a flood's, so that the first commit does not wait behind the callers' work;
    /// or, for acks that found the writer idle, after ``ackLinger`` unless a commit comes first.
    private enum DrainStart { case inline, onQueue, linger(UInt64) }

    /// The linger of `generation` is over: unless a commit took the acks meanwhile, they are committed now, on this
    /// thread when the store is free, else by a drain task.
    private func lingerEnded(_ generation: UInt64) {
        let start = state.withLock { state -> Bool in
            guard state.isLingering, state.lingerGeneration == generation else { return false }
            _ = state.endLinger()
            guard !state.isDraining, !state.waiting.isEmpty else { return false }
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
                let waiting = state.withLock { state in
                    defer { state.waiting = []; state.isDraining = false }
                    return state.waiting
                }
                for queued in waiting { queued.fail(error) }
                return
            }
        }
    }

    /// Runs up to ``maxTransactionsPerTurn`` transactions on the database queue; false once nothing waits.
    private func runTurn(_ db: Database) -> Bool {
        for _ in 0..<Self.maxTransactionsPerTurn {
            guard let batch = takeBatch() else { return false }
            do {
                for delivery in try commit(batch, in: db) { delivery() }
            } catch {
                for queued in batch { queued.fail(error) }
            }
        }
        return true
    }

    /// Applies `batch` in one transaction; the deliveries of their results, in the same order.
    private func commit(_ batch: [Queued], in db: Database) throws -> [Delivery] {
        // Acks first: an admission in the same transaction then finds the bot's own messages passed over and
        // delivers what follows them instead of parking it. Nothing else depends on their order.
        let order = batch.indices.filter { batch[$0].isAck } + batch.indices.filter { !batch[$0].isAck }
        var deliveries = [Delivery?](repeating: nil, count: batch.count)
        try CursorWorkspace.run(db, now: clock.now, memory: memory, outboxSendsAtCommit: outboxLiveness.isLive) { workspace in
            for index in order {
                deliveries[index] = try batch[index].apply(workspace)
            }
        }
        return deliveries.compactMap { $0 }
    }

    private func waitingItemCount() -> Int {
        state.withLock { state in state.waiting.reduce(0) { $0 + $1.items } }
    }

    /// The next writes to commit together (lingering acks left waiting), or nil (and draining stops) when none can go.
    private func takeBatch() -> [Queued]? {
        state.withLock { state in
            let lingering = state.isLingering
            var batch: [Queued] = []
            var kept: [Queued] = []
            var items = 0
            for (index, queued) in state.waiting.enumerated() {
                if lingering && queued.isAck {
                    kept.append(queued)
                    continue
                }
                if !batch.isEmpty && items + queued.items > Self.maxItemsPerTransaction {
                    kept += state.waiting[index...]
                    break
                }
                batch.append(queued)
                items += queued.items
            }
            guard !batch.isEmpty else {
                state.isDraining = false
                return nil
            }
            state.waiting = kept
            state.lastBatchItems = items
            return batch
        }
    }
}
