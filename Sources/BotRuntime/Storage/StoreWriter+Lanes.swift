import ChatterBots
import Foundation
import Synchronization

/// The writer's lanes: a handler's unit is queued in its lane and the lane's next handler starts at once; each lane
/// has at most one batch in the writer at a time, holding every unit queued until it was taken, so a conversation's
/// units commit in the order their handlers finished and a busy lane's units gather into one write. A lane's units
/// share one savepoint in their transaction, and one each if any is refused (``StoreWrite/commit(_:faults:)``).
///
/// Handlers still read their lane's earlier writes: ``pendingState(forKey:in:lane:)`` looks through the units not
/// committed yet, newest first. Whoever needs a unit durable (`acknowledged()`, a read the lane cannot answer) waits
/// for its ticket. A lane's first unit commits inline when nothing is behind it and the store is free; a batch the
/// transaction failed for is tried again twice, and a lasting failure stops the bot.
extension StoreWriter {
    /// What the session does with its lanes' units, and what the writer asks it. A class, so that each unit's commit
    /// passes one reference instead of copying every closure and logger inside.
    final class LaneHooks: Sendable {
        /// Where a commit's results go: the session routes receipts (outbox, read receipts, released messages).
        typealias Route = @Sendable (CommitReceipt, UnitOfWork) -> Void
        /// Where a refused unit goes, or one not committed because it is stale: the session fails what waits for its
        /// sends and, for a refusal, rewinds its conversation. The epoch is the one its work was taken at.
        typealias Refusal = @Sendable (UnitOfWork, BotStoreError?, _ epoch: UInt64) -> Void
        /// Whether a unit taken at an epoch was taken before its conversation's latest rewind: it is not committed.
        typealias Staleness = @Sendable (UnitOfWork, _ epoch: UInt64) -> Bool
        /// Whether a lane has more work queued behind the unit just submitted: its units then gather for one
        /// transaction instead of the first committing inline.
        typealias Backlog = @Sendable (HandlerLane) -> Bool

        /// The clock the retries of a failed transaction wait on.
        let clock: any ChatterClock
        let log: SessionLog
        let metrics: SessionMetrics
        let route: Route
        let onRefusal: Refusal
        let isStale: Staleness
        let hasBacklog: Backlog
        let onFatal: @Sendable (BotStopReason, [ClientMessageID], BotStoreError) -> Void
        /// Where the outcomes of units committed by a drain are carried out: the session's executor, not the store's
        /// thread that committed them (its receipts then go out at the end of the loop's turn, as the inline ones do).
        let executor: (any TaskExecutor)?

        init(
            clock: any ChatterClock, log: SessionLog, metrics: SessionMetrics, route: @escaping Route,
            onRefusal: @escaping Refusal, isStale: @escaping Staleness, hasBacklog: @escaping Backlog,
            onFatal: @escaping @Sendable (BotStopReason, [ClientMessageID], BotStoreError) -> Void,
            executor: (any TaskExecutor)? = SessionExecutor.preferred
        ) {
            self.clock = clock
            self.log = log
            self.metrics = metrics
            self.route = route
            self.onRefusal = onRefusal
            self.isStale = isStale
            self.hasBacklog = hasBacklog
            self.onFatal = onFatal
            self.executor = executor
        }
    }

    /// A unit in its lane.
    struct LaneUnit: Sendable {
        var unit: UnitOfWork
        var trace: String
        /// The rewind epoch its work was taken at (``HandlerRun/epoch``).
        var epoch: UInt64
    }

    typealias LaneBatch = [LaneCommitQueue<LaneUnit>.Pending]

    /// Every busy lane's units and waiters.
    struct LaneBook {
        struct Lane {
            var units = LaneCommitQueue<LaneUnit>()
            var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        }

        var queues: [HandlerLane: Lane] = [:]
        var nextTicket: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Set by the session that opened the lanes; nil before.
        var hooks: LaneHooks?
        var isOpen = false
    }

    /// A failed transaction's batch is tried this many times in all before the bot stops.
    static let laneCommitAttempts = 3

    /// Starts taking units: their outcomes go to `hooks`.
    func openLanes(_ hooks: LaneHooks) {
        laneBook.withLock { book in
            book.hooks = hooks
            book.isOpen = true
        }
    }

    /// Queues `unit` for commit after everything queued before it in `lane`; returns its ticket. `epoch` is the
    /// rewind epoch its work was taken at (``HandlerRun/epoch``).
    @discardableResult
    func submit(_ unit: UnitOfWork, in lane: HandlerLane, trace: String, epoch: UInt64 = 0) -> UInt64 {
        let (ticket, batch, hooks) = laneBook.withLock { book -> (UInt64, LaneBatch?, LaneHooks?) in
            book.nextTicket += 1
            let ticket = book.nextTicket
            guard book.isOpen, let hooks = book.hooks else { return (ticket, nil, nil) }
            // Taken out of the dictionary while changed, so that its arrays are not copied.
            var queue = book.queues.removeValue(forKey: lane) ?? LaneBook.Lane()
            let starts = queue.units.submit(LaneUnit(unit: unit, trace: trace, epoch: epoch), ticket: ticket)
            let batch = starts ? queue.units.takeBatch() : nil
            book.queues[lane] = queue
            return (ticket, batch, hooks)
        }
        if let batch, let hooks {
            // With more of the lane's work queued (a flood), its units gather while this one is written.
            commitLane(lane, batch, hooks: hooks, inline: !hooks.hasBacklog(lane))
        }
        return ticket
    }

    /// Waits until the unit of `ticket` in `lane` was committed (or refused, or failed for good).
    func waitUntilCommitted(_ ticket: UInt64, in lane: HandlerLane) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = laneBook.withLock { book -> Bool in
                guard book.isOpen, let queue = book.queues[lane], queue.units.isWaiting(for: ticket) else { return true }
                book.queues[lane]?.waiters.append((ticket, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Waits until everything queued in `lane` so far is committed.
    func waitUntilDrained(_ lane: HandlerLane) async {
        let last = laneBook.withLock { $0.queues[lane]?.units.lastTicket }
        if let last { await waitUntilCommitted(last, in: lane) }
    }

    /// Whether no lane has anything to commit now.
    var lanesAreIdle: Bool { laneBook.withLock { $0.queues.isEmpty || !$0.isOpen } }

    /// Waits until no lane has anything to commit.
    func waitUntilLanesIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = laneBook.withLock { book -> Bool in
                guard !book.queues.isEmpty, book.isOpen else { return true }
                book.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// The newest uncommitted write of `key` in `scope` queued in `lane`: nil when none touched it, `.some(nil)`
    /// when the newest removed it.
    func pendingState(forKey key: String, in scope: StateScope, lane: HandlerLane) -> Data?? {
        laneBook.withLock { book in
            guard let queue = book.queues[lane] else { return nil }
            for queued in queue.units.units.reversed() {
                if let value = queued.unit.pendingValue(forKey: key, in: scope) { return value }
            }
            return nil
        }
    }

    /// Whether `lane` has units not committed yet.
    func hasPending(in lane: HandlerLane) -> Bool {
        laneBook.withLock { $0.queues[lane] != nil }
    }

    /// Takes no more units; waiters are released (units not committed yet may be lost: they are handled again next
    /// time). A batch already in a transaction still reports its outcome.
    func stopLanes() {
        let waiters = laneBook.withLock { book -> [CheckedContinuation<Void, Never>] in
            book.isOpen = false
            let waiters = book.queues.values.flatMap { $0.waiters.map(\.continuation) } + book.idleWaiters
            book.queues = [:]
            book.idleWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Committing

    /// Commits `batch`, then the lane's next batches, inline on the caller's thread while `inline` holds and the
    /// store takes them at once (no task, no hand-off: the usual case below a flood); otherwise through the queue.
    private func commitLane(_ lane: HandlerLane, _ batch: LaneBatch, hooks: LaneHooks, inline: Bool) {
        var next: LaneBatch? = batch
        while let batch = next {
            let live = droppingStale(batch, hooks: hooks)
            guard !live.isEmpty else {
                next = finishLaneBatch(lane)
                continue
            }
            let write = StoreWrite.commit(live.map(\.unit.unit), faults: faults)
            guard inline, case .success(let results)? = writeInline(write) else {
                submitLaneBatch(lane, live, attempt: 1, hooks: hooks)
                return
            }
            deliver(results, of: live, hooks: hooks)
            next = finishLaneBatch(lane)
        }
    }

    /// Queues a lane's batch in the writer; its outcome is carried out on the session's executor.
    private func submitLaneBatch(_ lane: HandlerLane, _ batch: LaneBatch, attempt: Int, hooks: LaneHooks) {
        submit(StoreWrite.commit(batch.map(\.unit.unit), faults: faults)) { result in
            Task(executorPreference: hooks.executor) { self.laneCommitted(lane, batch, result, attempt: attempt, hooks: hooks) }
        }
    }

    /// A lane's batch came back from its transaction: its outcomes go to the session and the lane goes on; a failed
    /// transaction is tried again a little later (the lane waits meanwhile), and stops the bot when it lasts.
    private func laneCommitted(
        _ lane: HandlerLane, _ batch: LaneBatch, _ result: Result<[Result<CommitReceipt, BotStoreError>], any Error>,
        attempt: Int, hooks: LaneHooks
    ) {
        switch result {
        case .success(let results):
            deliver(results, of: batch, hooks: hooks)
        case .failure(let failure):
            let error = BotStoreError(failure, during: "commit units")
            guard attempt >= Self.laneCommitAttempts else {
                hooks.log.warning("could not store \(batch.count) handler results (attempt \(attempt)): \(error)")
                Task(executorPreference: hooks.executor) {
                    try? await hooks.clock.sleep(for: .milliseconds(200 * attempt))
                    self.submitLaneBatch(lane, batch, attempt: attempt + 1, hooks: hooks)
                }
                return
            }
            hooks.log.error("could not store \(batch.count) handler results: \(error); stopping the bot")
            hooks.metrics.setLastError(error.description)
            hooks.onFatal(.storageFailed(error.description), batch.flatMap { $0.unit.unit.messages.map(\.clientMessageId) }, error)
        }
        if let next = finishLaneBatch(lane) { commitLane(lane, next, hooks: hooks, inline: false) }
    }

    /// The lane's batch taken last is done: whoever waits for its units resumes. Returns the lane's next batch; nil
    /// when nothing is pending, and then the lane is forgotten in the same step (a unit submitted from now on starts a
    /// new batch, see `LaneCommitQueue`) and its waiters resume.
    private func finishLaneBatch(_ lane: HandlerLane) -> LaneBatch? {
        let (ready, next) = laneBook.withLock { book -> ([CheckedContinuation<Void, Never>], LaneBatch?) in
            guard var queue = book.queues.removeValue(forKey: lane) else { return ([], nil) }
            queue.units.finishBatch()
            let through = queue.units.committedThrough
            var ready = queue.waiters.filter { $0.ticket <= through }.map(\.continuation)
            queue.waiters.removeAll { $0.ticket <= through }
            if book.isOpen, let batch = queue.units.takeBatch() {
                book.queues[lane] = queue
                return (ready, batch)
            }
            ready += queue.waiters.map(\.continuation)
            if book.queues.isEmpty {
                ready += book.idleWaiters
                book.idleWaiters = []
            }
            return (ready, nil)
        }
        for waiter in ready { waiter.resume() }
        return next
    }

    /// The batch without the work taken before its conversation was rewound: that is not committed (the
    /// conversation goes on from the store) and counts as refused.
    private func droppingStale(_ batch: LaneBatch, hooks: LaneHooks) -> LaneBatch {
        batch.filter { pending in
            guard hooks.isStale(pending.unit.unit, pending.unit.epoch) else { return true }
            hooks.log.debug("taken before the conversation was rewound; not committed", trace: pending.unit.trace)
            hooks.onRefusal(pending.unit.unit, nil, pending.unit.epoch)
            return false
        }
    }

    /// Routes each committed unit's receipt, and reports each refused one.
    private func deliver(_ results: [Result<CommitReceipt, BotStoreError>], of batch: LaneBatch, hooks: LaneHooks) {
        for (pending, result) in zip(batch, results) {
            switch result {
            case .success(let receipt):
                hooks.route(receipt, pending.unit.unit)
            case .failure(let error):
                switch error {
                case .alreadyHandled:
                    hooks.log.debug("already handled; this run's work is dropped", trace: pending.unit.trace)
                default:
                    hooks.log.error("the store refused the handler's work: \(error)", trace: pending.unit.trace)
                    hooks.metrics.setLastError(error.description)
                }
                hooks.onRefusal(pending.unit.unit, error, pending.unit.epoch)
            }
        }
    }
}
