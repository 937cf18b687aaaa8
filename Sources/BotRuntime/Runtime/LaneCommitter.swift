import ChatterBots
import Foundation
import Synchronization

/// Commits the units of each lane in the order their handlers finished, without making the lane wait: a handler's
/// unit is queued and the lane's next handler starts at once; one task per busy lane commits what is queued in a
/// single call (`BotStore.commit([units])`, one transaction), so a conversation's messages are pipelined instead
/// of paying a database round trip each. Units of different lanes share transactions through the store's group
/// committer.
///
/// Handlers still read their lane's earlier writes: `pendingState(forKey:in:lane:)` looks through the units
/// queued and not yet committed, newest first. Whoever needs a unit durable (`acknowledged()`, a read the queue
/// cannot answer) waits for its ticket.
final class LaneCommitter: Sendable {
    /// Where a commit's results go: the session routes receipts (outbox, read receipts, released messages).
    typealias Route = @Sendable (CommitReceipt, UnitOfWork) -> Void
    /// Where a refused unit goes, or one not committed because it is stale: the session fails what waits for its
    /// sends and, for a refusal, rewinds its conversation. The epoch is the one its work was taken at.
    typealias Refusal = @Sendable (UnitOfWork, BotStoreError?, _ epoch: UInt64) -> Void
    /// Whether a unit taken at an epoch was taken before its conversation's latest rewind: it is not committed.
    typealias Staleness = @Sendable (UnitOfWork, _ epoch: UInt64) -> Bool
    /// Whether a lane has more work queued behind the unit just submitted: its units are then left to gather for
    /// one commit instead of being committed one by one.
    typealias Backlog = @Sendable (HandlerLane) -> Bool

    private struct Queued: Sendable {
        var unit: UnitOfWork
        var trace: String
        var epoch: UInt64
    }

    private typealias Pending = LaneCommitQueue<Queued>.Pending

    private struct Queue {
        var units = LaneCommitQueue<Queued>()
        var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// What a drain task does next.
    private enum DrainStep {
        case commit([Pending])
        /// Nothing is pending: the drain ends and these waiters resume.
        case finished([CheckedContinuation<Void, Never>])
    }

    private struct State {
        var queues: [HandlerLane: Queue] = [:]
        var nextTicket: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var isStopped = false
    }

    private let store: BotStore
    private let clock: any ChatterClock
    private let log: SessionLog
    private let metrics: SessionMetrics
    private let route: Route
    private let onRefusal: Refusal
    private let isStale: Staleness
    private let hasBacklog: Backlog
    private let onFatal: @Sendable (BotStopReason, [ClientMessageID], BotStoreError) -> Void
    private let state = Mutex(State())

    init(
        store: BotStore, clock: any ChatterClock, log: SessionLog, metrics: SessionMetrics, route: @escaping Route,
        onRefusal: @escaping Refusal, isStale: @escaping Staleness, hasBacklog: @escaping Backlog,
        onFatal: @escaping @Sendable (BotStopReason, [ClientMessageID], BotStoreError) -> Void
    ) {
        self.isStale = isStale
        self.hasBacklog = hasBacklog
        self.store = store
        self.clock = clock
        self.log = log
        self.metrics = metrics
        self.route = route
        self.onRefusal = onRefusal
        self.onFatal = onFatal
    }

    /// Queues `unit` for commit after everything queued before it in `lane`; returns its ticket. `epoch` is the
    /// rewind epoch its work was taken at (``HandlerRun/epoch``).
    @discardableResult
    func submit(_ unit: UnitOfWork, in lane: HandlerLane, trace: String, epoch: UInt64 = 0) -> UInt64 {
        let (ticket, start) = state.withLock { state -> (UInt64, Bool) in
            state.nextTicket += 1
            let ticket = state.nextTicket
            guard !state.isStopped else { return (ticket, false) }
            // Taken out of the dictionary while changed, so that its arrays are not copied.
            var queue = state.queues.removeValue(forKey: lane) ?? Queue()
            let start = queue.units.submit(Queued(unit: unit, trace: trace, epoch: epoch), ticket: ticket)
            state.queues[lane] = queue
            return (ticket, start)
        }
        guard start else { return ticket }
        if hasBacklog(lane) {
            // More of the lane's work is queued (a flood): its units gather while it runs, for one commit.
            Task(executorPreference: SessionExecutor.preferred) { await self.drain(lane) }
        } else {
            drainNow(lane)
        }
        return ticket
    }

    /// Waits until the unit of `ticket` in `lane` was committed (or refused, or failed for good).
    func waitUntilCommitted(_ ticket: UInt64, in lane: HandlerLane) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard let queue = state.queues[lane], !state.isStopped, queue.units.isWaiting(for: ticket) else { return true }
                state.queues[lane]?.waiters.append((ticket, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Waits until everything queued in `lane` so far is committed.
    func waitUntilDrained(_ lane: HandlerLane) async {
        let last = state.withLock { $0.queues[lane]?.units.lastTicket }
        if let last { await waitUntilCommitted(last, in: lane) }
    }

    /// Whether no lane has anything to commit now.
    var isIdle: Bool { state.withLock { $0.queues.isEmpty || $0.isStopped } }

    /// Waits until no lane has anything to commit.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard !state.queues.isEmpty, !state.isStopped else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// The newest uncommitted write of `key` in `scope` queued in `lane`: nil when none touched it, `.some(nil)`
    /// when the newest removed it.
    func pendingState(forKey key: String, in scope: StateScope, lane: HandlerLane) -> Data?? {
        state.withLock { state in
            guard let queue = state.queues[lane] else { return nil }
            for queued in queue.units.units.reversed() {
                if let value = queued.unit.pendingValue(forKey: key, in: scope) { return value }
            }
            return nil
        }
    }

    /// Whether `lane` has units not committed yet.
    func hasPending(in lane: HandlerLane) -> Bool {
        state.withLock { $0.queues[lane] != nil }
    }

    /// Commits nothing more; waiters are released (their units may be lost: they are handled again next time).
    func stop() {
        let (waiters, idle) = state.withLock { state -> ([CheckedContinuation<Void, Never>], [CheckedContinuation<Void, Never>]) in
            state.isStopped = true
            let waiters = state.queues.values.flatMap { $0.waiters.map(\.continuation) }
            state.queues = [:]
            defer { state.idleWaiters = [] }
            return (waiters, state.idleWaiters)
        }
        for waiter in waiters + idle { waiter.resume() }
    }

    // MARK: - Committing

    /// Commits what `lane` holds on the caller's thread for as long as the store takes it at once (no task, no
    /// hand-off: the usual case below a flood); what is left goes to a drain task.
    private func drainNow(_ lane: HandlerLane) {
        while let batch = nextBatch(lane) {
            let live = droppingStale(batch)
            if !live.isEmpty {
                guard case .success(let results)? = store.commitInline(live.map(\.unit.unit)) else {
                    Task(executorPreference: SessionExecutor.preferred) {
                        await self.commit(live)
                        self.finishBatch(lane)
                        await self.drain(lane)
                    }
                    return
                }
                deliver(results, of: live)
            }
            finishBatch(lane)
        }
    }

    private func drain(_ lane: HandlerLane) async {
        while let batch = nextBatch(lane) {
            let live = droppingStale(batch)
            if !live.isEmpty { await commit(live) }
            finishBatch(lane)
        }
    }

    /// The lane's next batch; nil when nothing is pending, and then the lane is forgotten in the same step (a unit
    /// submitted from now on starts a new drain, see `LaneCommitQueue`) and its waiters resume.
    private func nextBatch(_ lane: HandlerLane) -> [Pending]? {
        let step = state.withLock { state -> DrainStep in
            guard var queue = state.queues.removeValue(forKey: lane) else { return .finished([]) }
            if !state.isStopped, let batch = queue.units.takeBatch() {
                state.queues[lane] = queue
                return .commit(batch)
            }
            var waiters = queue.waiters.map(\.continuation)
            if state.queues.isEmpty {
                waiters += state.idleWaiters
                state.idleWaiters = []
            }
            return .finished(waiters)
        }
        switch step {
        case .commit(let batch):
            return batch
        case .finished(let waiters):
            for waiter in waiters { waiter.resume() }
            return nil
        }
    }

    /// The batch taken last is done: whoever waits for its units resumes.
    private func finishBatch(_ lane: HandlerLane) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var queue = state.queues.removeValue(forKey: lane) else { return [] }
            defer { state.queues[lane] = queue }
            queue.units.finishBatch()
            let through = queue.units.committedThrough
            let ready = queue.waiters.filter { $0.ticket <= through }
            queue.waiters.removeAll { $0.ticket <= through }
            return ready.map(\.continuation)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The batch without the work taken before its conversation was rewound: that is not committed (the
    /// conversation goes on from the store) and counts as refused.
    private func droppingStale(_ batch: [Pending]) -> [Pending] {
        batch.filter { pending in
            guard isStale(pending.unit.unit, pending.unit.epoch) else { return true }
            log.debug("taken before the conversation was rewound; not committed", trace: pending.unit.trace)
            onRefusal(pending.unit.unit, nil, pending.unit.epoch)
            return false
        }
    }

    /// Routes each committed unit's receipt, and reports each refused one.
    private func deliver(_ results: [Result<CommitReceipt, BotStoreError>], of batch: [Pending]) {
        for (pending, result) in zip(batch, results) {
            switch result {
            case .success(let receipt):
                route(receipt, pending.unit.unit)
            case .failure(let error):
                report(error, trace: pending.unit.trace)
                onRefusal(pending.unit.unit, error, pending.unit.epoch)
            }
        }
    }

    /// Commits a batch in one call, retrying a failing database a few times; a lasting failure stops the bot.
    private func commit(_ batch: [Pending]) async {
        var attempt = 0
        while true {
            do {
                deliver(try await store.commit(batch.map(\.unit.unit)), of: batch)
                return
            } catch {
                attempt += 1
                guard attempt < 3 else {
                    log.error("could not store \(batch.count) handler results: \(error); stopping the bot")
                    metrics.setLastError(error.description)
                    onFatal(.storageFailed(error.description), batch.flatMap { $0.unit.unit.messages.map(\.clientMessageId) }, error)
                    return
                }
                log.warning("could not store \(batch.count) handler results (attempt \(attempt)): \(error)")
                try? await clock.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    private func report(_ error: BotStoreError, trace: String) {
        switch error {
        case .alreadyHandled:
            log.debug("already handled; this run's work is dropped", trace: trace)
        default:
            log.error("the store refused the handler's work: \(error)", trace: trace)
            metrics.setLastError(error.description)
        }
    }
}
