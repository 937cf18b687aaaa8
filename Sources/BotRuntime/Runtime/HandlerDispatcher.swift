import ChatterBots
import Foundation
import Synchronization

/// Runs a bot's handlers: in order within a lane (a conversation's messages in `seq` order, a job's occurrences,
/// the other events), lanes concurrently up to `maxConcurrent`, every call bounded by `timeout`.
///
/// No actor: enqueueing is a few dictionary operations under a lock, so the reader of the socket never waits for
/// handlers. One worker task serves a lane while it has work and hands its slot to a waiting lane after each item,
/// so a busy conversation cannot starve the others. The earliest handler deadline waits on the session's deadline
/// scheduler; a handler still running then is cancelled and abandoned: a new worker takes over its lane, first
/// letting the runner record the timed-out item (its message handled, without the handler's effects). An abandoned
/// handler that never returns holds no slot, so neither a slow nor a hung handler delays other lanes, heartbeats
/// or other bots.
final class HandlerDispatcher: Sendable {
    /// What carries out the dispatched work (the session's `HandlerRunner`).
    protocol Runner: Sendable {
        /// Runs one handler call and commits its work, unless `run` was abandoned meanwhile.
        func run(_ work: HandlerWork, _ run: HandlerRun) async
        /// Records a call (`run`) the timeout check abandoned after `timeout`: its work is discarded, the event counts as
        /// handled.
        func recover(_ work: HandlerWork, _ run: HandlerRun, timedOutAfter timeout: Duration) async
        /// The conversation's lane has nothing queued any more (a backlog that was shed can be fetched again).
        func laneDrained(_ conversation: Conversation.ID)
        /// The store's contiguous seq of `conversation` (nil when it has no cursor), when the lane cannot tell
        /// whether its first message is next; throws when the store could not be read.
        func contiguousSeq(of conversation: Conversation.ID) async throws -> Int?
    }

    private struct Lane {
        var items: [HandlerWork] = []
        var head = 0
        /// How many items were cut from the front of `items` so far: an item's position for good is this plus its
        /// index.
        private var base = 0
        /// Where the last queued item of each `supersededKey` stands (`base` + index), and how many of the key are
        /// queued.
        private var latest: [String: (position: Int, count: Int)] = [:]
        /// A worker serves the lane, or the lane waits for a slot.
        var isActive = false
        /// An item whose handler timed out, to be recovered before anything else of the lane.
        var timedOut: (work: HandlerWork, run: HandlerRun)?
        /// A conversation lane whose first message waits for one before it (see the lane's `ConversationLedger`).
        var isBlocked = false

        var count: Int { items.count - head + (timedOut == nil ? 0 : 1) }

        var first: HandlerWork? { head < items.count ? items[head] : nil }

        /// The first item when it is a message or an update of one, with which of the two it is.
        var firstMessage: (message: Message, isUpdate: Bool)? {
            switch first {
            case .message(let message)?: (message, false)
            case .messageUpdated(let message, _)?: (message, true)
            default: nil
            }
        }

        /// Adds `work` in order: by seq in a conversation lane (messages may arrive out of order from the tasks
        /// that hand them out), a message before the updates of it, at the end otherwise. An update of a message
        /// still queued replaces it instead: the bot gets the message in its current state (a deleted one reaches
        /// no handler), as from a parked copy. So does a later update of a message whose update is still queued.
        /// A best-effort event queues behind at most one of its `supersededKey`, and replaces the second: the bot
        /// gets the first change and the latest state (a start and a stop of typing both), and a peer that sends
        /// them faster than the bot handles them grows the lane by what it changes, not by how often.
        mutating func append(_ work: [HandlerWork]) {
            if head > 0 && head * 2 >= items.count {
                items.removeFirst(head)
                base += head
                head = 0
            }
            for item in work {
                if case .messageUpdated(let update, _) = item, let index = queuedIndex(of: update) {
                    items[index] = .message(update)
                    continue
                }
                if case .messageUpdated(let update, _) = item, let index = queuedUpdateIndex(of: update) {
                    items[index] = item
                    continue
                }
                if let key = item.supersededKey {
                    if let (position, count) = latest[key], count >= 2, position - base >= head,
                        position - base < items.count, items[position - base].supersededKey == key {
                        items[position - base] = item
                        continue
                    }
                    latest[key] = (base + items.count, (latest[key]?.count ?? 0) + 1)
                    items.append(item)
                    continue
                }
                guard let key = Self.order(of: item), let last = items.last.flatMap(Self.order(of:)), last > key else {
                    items.append(item)
                    continue
                }
                items.insert(item, at: firstIndex(after: key))
            }
        }

        /// Where an update of `message` waits in the lane, not taken yet, if one does.
        private func queuedUpdateIndex(of message: Message) -> Int? {
            let index = firstIndex(after: Order(seq: message.seq, rank: 1)) - 1
            guard index >= head, case .messageUpdated(let queued, _) = items[index], queued.id == message.id else { return nil }
            return index
        }

        /// The first index from `head` whose item comes after `key` (items without a seq count as before it).
        private func firstIndex(after key: Order) -> Int {
            var low = head
            var high = items.count
            while low < high {
                let middle = (low + high) / 2
                if let other = Self.order(of: items[middle]), other > key { high = middle } else { low = middle + 1 }
            }
            return low
        }

        /// Where `message` waits in the lane, not taken yet, if it does.
        private func queuedIndex(of message: Message) -> Int? {
            let index = firstIndex(after: Order(seq: message.seq, rank: 0)) - 1
            guard index >= head, case .message(let queued) = items[index], queued.id == message.id else { return nil }
            return index
        }

        /// Where the first item stands in the lane's order: a message put before an update of it changes it.
        var firstOrder: Order? { first.flatMap(Self.order(of:)) }

        /// The place of `work` in a conversation lane: its seq, then 0 for the message and 1 for an update of it.
        private static func order(of work: HandlerWork) -> Order? {
            guard let seq = work.seq else { return nil }
            if case .messageUpdated = work { return Order(seq: seq, rank: 1) }
            return Order(seq: seq, rank: 0)
        }

        struct Order: Comparable {
            var seq: Int
            var rank: Int
            static func < (lhs: Order, rhs: Order) -> Bool { (lhs.seq, lhs.rank) < (rhs.seq, rhs.rank) }
        }

        mutating func popFirst() -> HandlerWork? {
            guard head < items.count else { return nil }
            let item = items[head]
            if let key = item.supersededKey, let (position, count) = latest[key] {
                latest[key] = count > 1 ? (position, count - 1) : nil
            }
            head += 1
            if head == items.count {
                base += items.count
                items.removeAll(keepingCapacity: items.count <= 64)
                head = 0
            }
            return item
        }

        /// Drops the queued messages, keeping other work (edits) in order. A blocked lane left with updates stays
        /// blocked, so that the messages coming back (or a note) wake it.
        mutating func removeQueuedMessages() {
            items = items[head...].filter { if case .message = $0 { false } else { true } }
            head = 0
            reindex()
            isBlocked = isBlocked && !items.isEmpty
        }

        mutating func removeQueued() -> Int {
            let dropped = items.count - head
            items = []
            head = 0
            reindex()
            return dropped
        }

        /// Finds the queued items of each `supersededKey` again, after the items were rebuilt.
        private mutating func reindex() {
            base = 0
            latest = [:]
            for (index, item) in items.enumerated() {
                if let key = item.supersededKey { latest[key] = (index, (latest[key]?.count ?? 0) + 1) }
            }
        }
    }

    /// The task of a worker, reachable by the timeout check to cancel it.
    private final class WorkerTask: Sendable {
        private let state = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

        func set(_ task: Task<Void, Never>) {
            let cancel = state.withLock { state -> Bool in
                state.task = task
                return state.cancelled
            }
            if cancel { task.cancel() }
        }

        func cancel() {
            let task = state.withLock { state -> Task<Void, Never>? in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }
    }

    private struct Running {
        var lane: HandlerLane
        var work: HandlerWork
        var run: HandlerRun
        var deadline: Date
        var task: WorkerTask
    }

    private struct State {
        var lanes: [HandlerLane: Lane] = [:]
        var waiting: [HandlerLane] = []
        var activeWorkers = 0
        var isOpen = false
        var isAccepting = true
        var runner: (any Runner)?
        var running: [UInt64: Running] = [:]
        var nextWorkerID: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// The handler deadline scheduled on the session's timers, if any: the earliest of the running handlers' when
        /// it was scheduled (a handler that finished early leaves it; the check then finds nothing due).
        var scheduledTimeout: Date?
        /// Each conversation lane's copy of its ledger: what its handlers finished, and the bot's own messages passed.
        var ledgers: [Conversation.ID: ConversationLedger] = [:]
        /// How many times each conversation was rewound (see ``rewind(_:ifEpoch:)``).
        var epochs: [Conversation.ID: UInt64] = [:]
        /// A bound below `maxConcurrent` for now (one at a time while the bot has crash suspects).
        var concurrencyLimit: Int?

        var isIdle: Bool { activeWorkers == 0 && lanes.values.allSatisfy { $0.count == 0 } }

        mutating func makeWorkerID() -> UInt64 {
            nextWorkerID += 1
            return nextWorkerID
        }

        mutating func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
            guard isIdle else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }

    /// How many handlers run at once.
    let maxConcurrent: Int
    /// How long one handler may run.
    let timeout: Duration
    private let clock: any ChatterClock
    private let timers: DeadlineScheduler<SessionDeadline>
    private let state = Mutex(State())

    init(maxConcurrent: Int, timeout: Duration, clock: any ChatterClock, timers: DeadlineScheduler<SessionDeadline>) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.timeout = timeout
        self.clock = clock
        self.timers = timers
    }

    // MARK: - Control

    /// Starts running work with `runner` (work enqueued before waits until now).
    func open(runner: any Runner) {
        let starts = state.withLock { state -> [(HandlerLane, UInt64, WorkerTask)] in
            state.runner = runner
            state.isOpen = true
            var starts: [(HandlerLane, UInt64, WorkerTask)] = []
            for lane in state.lanes.keys.sorted(by: { $0.description < $1.description }) where state.lanes[lane]?.count ?? 0 > 0 {
                if let start = Self.activate(lane, &state, maxConcurrent: maxConcurrent) { starts.append(start) }
            }
            return starts
        }
        for (lane, id, task) in starts { spawnWorker(lane, id: id, task: task) }
    }

    /// Accepts no further work and drops what is queued and not started (those events come back through sync).
    /// Running handlers finish. Returns how many items were dropped.
    @discardableResult
    func stopAccepting() -> Int {
        let (dropped, waiters) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
            state.isAccepting = false
            var dropped = 0
            for lane in Array(state.lanes.keys) { dropped += state.lanes[lane]?.removeQueued() ?? 0 }
            return (dropped, state.takeIdleWaiters())
        }
        for waiter in waiters { waiter.resume() }
        return dropped
    }

    /// Abandons every running handler (cancelling it), drops all work and forgets the runner.
    func cancelAll() {
        let (tasks, waiters) = state.withLock { state -> ([WorkerTask], [CheckedContinuation<Void, Never>]) in
            state.isAccepting = false
            state.isOpen = false
            state.runner = nil
            var tasks: [WorkerTask] = []
            for running in state.running.values where running.run.abandon() { tasks.append(running.task) }
            state.running = [:]
            state.lanes = [:]
            state.waiting = []
            state.activeWorkers = 0
            state.scheduledTimeout = nil
            timers.cancel(.handlerTimeouts)
            defer { state.idleWaiters = [] }
            return (tasks, state.idleWaiters)
        }
        for task in tasks { task.cancel() }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs at most `limit` handlers at once from now on (handlers running beyond it finish first); nil: back to
    /// `maxConcurrent`, starting waiting lanes.
    func limitConcurrency(to limit: Int?) {
        let starts = state.withLock { state -> [(HandlerLane, UInt64, WorkerTask)] in
            state.concurrencyLimit = limit.map { max(1, min($0, maxConcurrent)) }
            var starts: [(HandlerLane, UInt64, WorkerTask)] = []
            while state.isOpen, !state.waiting.isEmpty, state.activeWorkers < (state.concurrencyLimit ?? maxConcurrent) {
                let lane = state.waiting.removeFirst()
                state.activeWorkers += 1
                starts.append((lane, state.makeWorkerID(), WorkerTask()))
            }
            return starts
        }
        for (lane, id, task) in starts { spawnWorker(lane, id: id, task: task) }
    }

    /// Whether no handler runs and nothing is queued now.
    var isIdle: Bool { state.withLock { $0.isIdle } }

    /// Returns once no handler runs and nothing is queued (abandoned handlers do not count).
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.isIdle { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: - Work

    /// Queues `work` at the end of `lane`. Ignored once the dispatcher stopped accepting.
    func enqueue(_ work: HandlerWork, in lane: HandlerLane) {
        enqueue([work], in: lane)
    }

    /// Queues `work`, in order, at the end of `lane`.
    func enqueue(_ work: [HandlerWork], in lane: HandlerLane) {
        guard !work.isEmpty else { return }
        let start = state.withLock { state -> (HandlerLane, UInt64, WorkerTask)? in
            guard state.isAccepting else { return nil }
            // Taken out of the dictionary while changed, so that its array is not copied.
            var current = state.lanes.removeValue(forKey: lane) ?? Lane()
            let firstBefore = current.firstOrder
            current.append(work)
            if current.isBlocked, current.firstOrder != firstBefore { current.isBlocked = false }
            state.lanes[lane] = current
            guard state.isOpen else { return nil }
            return Self.activate(lane, &state, maxConcurrent: maxConcurrent)
        }
        if let (lane, id, task) = start { spawnWorker(lane, id: id, task: task) }
    }

    /// Queues `onReadStateChanged` for each watermark move the read state found, in the events lane.
    func enqueueReadStateChanges(_ moves: [ReceiptUpdate], trace: String) {
        enqueue(moves.map { .event(.readStateChanged($0), trace: trace) }, in: .events)
    }

    /// Queues messages the store handed out, each in its conversation's lane, in order.
    func enqueueHandedOut(_ messages: [Message]) {
        guard !messages.isEmpty else { return }
        if messages.count == 1, let message = messages.first {
            enqueue(.message(message), in: .conversation(message.conversationId))
            return
        }
        var byConversation: [Conversation.ID: [HandlerWork]] = [:]
        var order: [Conversation.ID] = []
        for message in messages {
            if byConversation[message.conversationId] == nil { order.append(message.conversationId) }
            byConversation[message.conversationId, default: []].append(.message(message))
        }
        for conversation in order {
            enqueue(byConversation[conversation] ?? [], in: .conversation(conversation))
        }
    }

    // MARK: - What conversation lanes know of the store

    /// The store's contiguous seq of `conversation` is at least `seq` (a committed message, a cursor read).
    func noteContiguous(_ seq: Int, in conversation: Conversation.ID) {
        note(conversation) { $0.raiseContiguous(to: seq) }
    }

    /// The store passed over the bot's own messages at `seqs` (acknowledged, or seen through sync).
    func noteOwn(_ seqs: [Int], in conversation: Conversation.ID) {
        guard !seqs.isEmpty else { return }
        note(conversation) { ledger in
            for seq in seqs { ledger.notePassedOwn(seq) }
        }
    }

    /// Changes what `conversation`'s lane knows and lets a lane blocked on it look again; with `epoch`, only while
    /// the conversation has not been rewound since.
    private func note(
        _ conversation: Conversation.ID, ifEpoch epoch: UInt64? = nil, _ change: (inout ConversationLedger) -> Void
    ) {
        let lane = HandlerLane.conversation(conversation)
        let start = state.withLock { state -> (HandlerLane, UInt64, WorkerTask)? in
            if let epoch, (state.epochs[conversation] ?? 0) != epoch { return nil }
            change(&state.ledgers[conversation, default: ConversationLedger()])
            guard state.lanes[lane]?.isBlocked == true else { return nil }
            state.lanes[lane]?.isBlocked = false
            guard state.isOpen else { return nil }
            return Self.activate(lane, &state, maxConcurrent: maxConcurrent)
        }
        if let (lane, id, task) = start { spawnWorker(lane, id: id, task: task) }
    }

    /// The rewind epoch of `conversation`: work taken from its lane carries it in its ``HandlerRun``.
    func epoch(of conversation: Conversation.ID) -> UInt64 {
        state.withLock { $0.epochs[conversation] ?? 0 }
    }

    /// The store refused a unit of `conversation` taken at `epoch`: unless the conversation was rewound since,
    /// starts a new epoch, drops its queued messages (they come again from the store's truth) and forgets its
    /// contiguous seq, so that its next message waits until the store says it is next. Returns whether it rewound.
    func rewind(_ conversation: Conversation.ID, ifEpoch epoch: UInt64) -> Bool {
        let lane = HandlerLane.conversation(conversation)
        return state.withLock { state in
            guard (state.epochs[conversation] ?? 0) == epoch else { return false }
            state.epochs[conversation] = epoch + 1
            state.ledgers[conversation, default: ConversationLedger()].forgetContiguous()
            if var current = state.lanes.removeValue(forKey: lane) {
                current.removeQueuedMessages()
                state.lanes[lane] = current
            }
            return true
        }
    }

    /// How many items wait in `lane` (queued, not running).
    func backlog(of lane: HandlerLane) -> Int {
        state.withLock { $0.lanes[lane]?.count ?? 0 }
    }

    /// Gives an idle lane a worker if a slot is free, else puts it in the waiting line. Returns the worker to spawn.
    private static func activate(
        _ lane: HandlerLane, _ state: inout State, maxConcurrent: Int
    ) -> (HandlerLane, UInt64, WorkerTask)? {
        guard let current = state.lanes[lane], !current.isActive, !current.isBlocked else { return nil }
        state.lanes[lane]?.isActive = true
        guard state.activeWorkers < (state.concurrencyLimit ?? maxConcurrent) else {
            state.waiting.append(lane)
            return nil
        }
        state.activeWorkers += 1
        return (lane, state.makeWorkerID(), WorkerTask())
    }

    private func spawnWorker(_ lane: HandlerLane, id: UInt64, task: WorkerTask) {
        task.set(Task(executorPreference: SessionExecutor.preferred) { await self.work(lane, id: id, task: task) })
    }

    /// A worker: serves `lane` until it is empty, or until another lane waits for its slot.
    private func work(_ lane: HandlerLane, id: UInt64, task: WorkerTask) async {
        var served = 0
        var verified = Verification.notAsked
        while let next = takeNext(lane, id: id, task: task, served: served, verified: verified) {
            verified = .notAsked
            switch next {
            case .run(let work, let run, let runner):
                served += 1
                await runner.run(work, run)
                guard finish(id, run) else { return }
                noteDone(work, epoch: run.epoch)
            case .recover(let work, let run, let runner):
                served += 1
                await runner.recover(work, run, timedOutAfter: timeout)
                noteDone(work, epoch: run.epoch)
            case .verify(let conversation, let runner):
                do {
                    if let contiguous = try await runner.contiguousSeq(of: conversation) {
                        state.withLock { $0.ledgers[conversation, default: ConversationLedger()].raiseContiguous(to: contiguous) }
                    }
                    verified = .answered
                } catch {
                    verified = .unreadable
                }
            }
        }
    }

    /// A message's handler is done (or given up): the next message of its conversation may start, unless the
    /// conversation was rewound since the message was taken (the store's truth decides then).
    private func noteDone(_ work: HandlerWork, epoch: UInt64) {
        guard case .message(let message) = work else { return }
        note(message.conversationId, ifEpoch: epoch) { $0.raiseContiguous(to: message.seq) }
    }

    /// Whether work of `conversation` taken at `epoch` was taken before its latest rewind: its unit must not be
    /// committed (the conversation goes on from the store's truth).
    func isStale(epoch: UInt64, in conversation: Conversation.ID) -> Bool {
        state.withLock { ($0.epochs[conversation] ?? 0) != epoch }
    }

    private enum Next {
        case run(HandlerWork, HandlerRun, any Runner)
        case recover(HandlerWork, HandlerRun, any Runner)
        /// Ask the store where the conversation is, then look again.
        case verify(Conversation.ID, any Runner)
    }

    /// Frees this worker's slot: hands it to a waiting lane or gives it back.
    private static func releaseSlot(
        _ state: inout State, spawn: inout (HandlerLane, UInt64, WorkerTask)?, waiters: inout [CheckedContinuation<Void, Never>]
    ) {
        if !state.waiting.isEmpty, state.activeWorkers <= (state.concurrencyLimit ?? .max) {
            let other = state.waiting.removeFirst()
            spawn = (other, state.makeWorkerID(), WorkerTask())
        } else {
            state.activeWorkers -= 1
            waiters = state.takeIdleWaiters()
        }
    }

    /// How long a lane waits before asking the store again after it could not be read.
    static let unreadableRetryDelay: Duration = .seconds(1)

    /// What the store said when the lane last asked it where a conversation is (``Runner/contiguousSeq(of:)``).
    private enum Verification {
        case notAsked
        /// It answered: a contiguous seq, or that it has no cursor.
        case answered
        /// It could not be read: nothing is known, and nothing may run before what it waits for.
        case unreadable
    }

    private func takeNext(_ lane: HandlerLane, id: UInt64, task: WorkerTask, served: Int, verified: Verification) -> Next? {
        var spawn: (HandlerLane, UInt64, WorkerTask)?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var drained: (any Runner, Conversation.ID)?
        let next = state.withLock { state -> Next? in
            // Taken out of the dictionary while changed (so that its array is not copied), put back unless empty.
            guard let runner = state.runner, var current = state.lanes.removeValue(forKey: lane) else { return nil }
            var keepsLane = true
            defer { if keepsLane { state.lanes[lane] = current } }
            if let timedOut = current.timedOut {
                current.timedOut = nil
                return .recover(timedOut.work, timedOut.run, runner)
            }
            // Let a waiting lane in after each item: hand it this worker's slot and queue this lane behind it.
            if served > 0, current.count > 0, !state.waiting.isEmpty {
                let other = state.waiting.removeFirst()
                state.waiting.append(lane)
                spawn = (other, state.makeWorkerID(), WorkerTask())
                return nil
            }
            // A message starts only when every message before it was handled or passed over, an update of a message
            // (an edit, a reaction) only when that message was.
            head: while let (message, isUpdate) = current.firstMessage {
                let conversation = message.conversationId
                switch state.ledgers[conversation]?.position(of: message.seq) ?? .unknownConversation {
                case .handled where !isUpdate:
                    _ = current.popFirst()
                case .handled:
                    break head  // an update of a handled message
                case .next where !isUpdate:
                    break head
                case .unknownConversation where verified == .notAsked, .outOfOrder where verified == .notAsked,
                     .next where verified == .notAsked:
                    return .verify(conversation, runner)
                case .unknownConversation where isUpdate && verified == .answered:
                    break head  // no cursor, here or in the store: nothing to wait for
                case .unknownConversation, .outOfOrder, .next:
                    // The message before it (or the one it changes) is still on its way: wait for it (or for an
                    // ack) without a slot. When the store could not be read, nothing may come to say so: ask again.
                    current.isActive = false
                    current.isBlocked = true
                    Self.releaseSlot(&state, spawn: &spawn, waiters: &waiters)
                    if verified == .unreadable {
                        timers.schedule(.laneVerification(conversation), at: clock.now.addingTimeInterval(Self.unreadableRetryDelay.timeInterval)) {
                            [weak self] in self?.note(conversation) { _ in }
                        }
                    }
                    return nil
                }
            }
            guard let work = current.popFirst() else {
                keepsLane = false
                Self.releaseSlot(&state, spawn: &spawn, waiters: &waiters)
                if case .conversation(let conversation) = lane { drained = (runner, conversation) }
                return nil
            }
            let conversationEpoch: UInt64
            if case .conversation(let conversation) = lane { conversationEpoch = state.epochs[conversation] ?? 0 } else { conversationEpoch = 0 }
            let run = HandlerRun(epoch: conversationEpoch)
            let deadline = clock.now.addingTimeInterval(timeout.timeInterval)
            state.running[id] = Running(lane: lane, work: work, run: run, deadline: deadline, task: task)
            if state.scheduledTimeout.map({ deadline < $0 }) ?? true { scheduleTimeout(deadline, &state) }
            return .run(work, run, runner)
        }
        if let (other, otherID, otherTask) = spawn { spawnWorker(other, id: otherID, task: otherTask) }
        for waiter in waiters { waiter.resume() }
        if let (runner, conversation) = drained { runner.laneDrained(conversation) }
        return next
    }

    /// The item of worker `id` is done; false when its run was abandoned (a new worker owns the lane now).
    private func finish(_ id: UInt64, _ run: HandlerRun) -> Bool {
        state.withLock { state in
            guard !run.isAbandoned else { return false }
            state.running[id] = nil
            return true
        }
    }

    // MARK: - Timeouts

    /// Holds the handler timeout of `run` while it waits for something that is not its handler: a crash suspect
    /// waiting its turn to run alone in the process. Work that has not begun must never time out, or it would be
    /// counted as handled without running.
    func holdTimeout(of run: HandlerRun) {
        state.withLock { state in
            guard let id = state.running.first(where: { $0.value.run === run })?.key else { return }
            state.running[id]?.deadline = .distantFuture
        }
    }

    /// Starts the handler timeout of `run` afresh, from now, after `holdTimeout(of:)`.
    func restartTimeout(of run: HandlerRun) {
        let deadline = clock.now.addingTimeInterval(timeout.timeInterval)
        state.withLock { state in
            guard let id = state.running.first(where: { $0.value.run === run })?.key else { return }
            state.running[id]?.deadline = deadline
            if state.scheduledTimeout.map({ deadline < $0 }) ?? true { scheduleTimeout(deadline, &state) }
        }
    }

    /// Schedules the handler deadline on the session's timers (under the lock, so that the latest decision wins).
    private func scheduleTimeout(_ deadline: Date, _ state: inout State) {
        state.scheduledTimeout = deadline
        timers.schedule(.handlerTimeouts, at: deadline) { [weak self] in self?.expire() }
    }

    /// Abandons every handler past its deadline and gives its lane a new worker; re-arms for the next deadline.
    private func expire() {
        let now = clock.now
        let expired = state.withLock { state -> [(Running, UInt64, WorkerTask)] in
            state.scheduledTimeout = nil
            var expired: [(Running, UInt64, WorkerTask)] = []
            for (id, running) in state.running where running.deadline <= now {
                state.running[id] = nil
                guard running.run.abandon(atTimeout: true) else { continue }
                state.lanes[running.lane, default: Lane()].timedOut = (running.work, running.run)
                state.lanes[running.lane]?.isActive = true
                expired.append((running, state.makeWorkerID(), WorkerTask()))
            }
            // A held timeout (`holdTimeout(of:)`) has no deadline to wake for.
            if let next = state.running.values.map(\.deadline).filter({ $0 < .distantFuture }).min() { scheduleTimeout(next, &state) }
            return expired
        }
        for (running, id, task) in expired {
            running.task.cancel()
            spawnWorker(running.lane, id: id, task: task)
        }
    }
}
