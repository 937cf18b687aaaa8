import ChatterBots
import Foundation
import Synchronization

/// The one ordered path from what the service says to the bot's store and lanes: incoming messages (live, from a
/// sync, from a REST page), edits, and conversations created, updated or removed, taken in arrival order.
///
/// Items that arrive while the store is busy are admitted together in the next transaction (the reader never
/// waits for the database). Messages the store hands out go to their conversation's lane; their
/// `receipt.delivered` is sent once they are stored. A message of an unknown conversation makes the queue look the
/// conversation up first. A conversation whose lane is over `BotRuntimeEnvironment.conversationBacklogLimit`
/// sheds: its new messages are left on the server, and fetched page by page once the lane has drained.
final class AdmissionQueue: Sendable {
    enum Item: Sendable {
        /// Messages to admit (`message.new`, a sync, a REST page).
        case messages([Message])
        /// A page the queue's own backfill fetched: admitted even while its conversation sheds (the backfill
        /// waits for room in the lane before each page), since it is what fills the gap or the backlog.
        case fetched([Message])
        /// `message.updated`: to the message's lane, after what came before it.
        case updated(Message, trace: String)
        /// Conversations the service reported.
        case conversations([Conversation], ConversationReport, trace: String)
        /// `conversation.removed`, or a conversation the sync no longer returns.
        case removed(Conversation.ID, trace: String)
        /// The store refused a unit of the conversation: forget what was handed out and not committed, and fetch
        /// its messages again from the store's contiguous seq (after marking `passingOver` handled, when given).
        case rewind(Conversation.ID, passingOver: Message?)
        /// Runs once everything before it was processed.
        case barrier(@Sendable () -> Void)
    }

    /// Where a conversation comes from, which decides the handler it reaches.
    enum ConversationReport: Sendable {
        /// `conversation.created`: `onConversationCreated`, unless the bot knows it already (a repeated event).
        case created
        /// `conversation.updated`: `onConversationUpdated` (`onConversationCreated` if the bot did not know it).
        case updated
        /// The REST refresh or a look-up: created when new, updated when changed since last recorded.
        case refreshed
    }

    private struct State {
        var items: [Item] = []
        var isDraining = false
        /// Conversations whose new messages are left on the server until their lane drains.
        var shedding: Set<Conversation.ID> = []
        /// Conversations being fetched page by page.
        var backfilling: Set<Conversation.ID> = []
        /// Conversations with messages parked behind a gap and a check of that gap scheduled.
        var gapChecks: Set<Conversation.ID> = []
        /// The seq a conversation's gap waited for at its latest check, and the delay before that check: the same
        /// gap found open again after a fetch waits twice as long (a hole the service cannot fill costs a fetch
        /// every few minutes, not a loop).
        var gapRetries: [Conversation.ID: (expected: Int, delay: Duration)] = [:]
        /// Conversations rewound after a refused unit, and the seq to fetch them from: taken by the backfill that
        /// runs (or the next one), which goes back there.
        var rewoundFrom: [Conversation.ID: Int] = [:]
        var isStopped = false
    }

    private let services: SessionServices
    private let state = Mutex(State())
    private let drained: Mutex<[Conversation.ID: WakeSignal]> = Mutex([:])

    init(services: SessionServices) {
        self.services = services
    }

    private var log: SessionLog { services.log }

    /// Adds an item; it is processed after every item submitted before it. Returns false, dropping the item,
    /// once the queue is stopped.
    @discardableResult
    func submit(_ item: Item) -> Bool {
        let (accepted, start) = state.withLock { state -> (Bool, Bool) in
            guard !state.isStopped else { return (false, false) }
            state.items.append(item)
            guard !state.isDraining else { return (true, false) }
            state.isDraining = true
            return (true, true)
        }
        guard start else { return accepted }
        // One message alone is admitted at once; several that arrived together (a flood) go to the drain, whose
        // batches the store commits on its own thread.
        if case .messages(let messages) = item, messages.count == 1, admitNow(messages) { return accepted }
        Task(executorPreference: SessionExecutor.preferred) { await self.drain() }
        return accepted
    }

    /// Waits until every item submitted so far was processed (or the queue stopped).
    func waitUntilProcessed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // An accepted barrier runs exactly once: processed in order, or released by `stop()`.
            if !submit(.barrier { continuation.resume() }) { continuation.resume() }
        }
    }

    /// Stops admitting: what comes later is left on the server (it returns through the next sync).
    func stop() {
        let pending = state.withLock { state -> [Item] in
            state.isStopped = true
            defer { state.items = [] }
            return state.items
        }
        for case .barrier(let done) in pending { done() }
        for signal in drained.withLock({ Array($0.values) }) { signal.wake() }
    }

    // MARK: - Draining

    private func drain() async {
        while true {
            let items = state.withLock { state -> [Item] in
                guard !state.items.isEmpty, !state.isStopped else {
                    state.isDraining = false
                    return []
                }
                defer { state.items = [] }
                return state.items
            }
            guard !items.isEmpty else { return }
            var messages: [Message] = []
            for item in items {
                if case .messages(let batch) = item {
                    messages += batch
                    continue
                }
                if !messages.isEmpty {
                    await admit(messages)
                    messages = []
                }
                await process(item)
            }
            if !messages.isEmpty { await admit(messages) }
        }
    }

    private func process(_ item: Item) async {
        switch item {
        case .messages(let messages):
            await admit(messages)
        case .fetched(let messages):
            await admit(messages, fetched: true)
        case .updated(let message, let trace):
            services.dispatcher.enqueue(.messageUpdated(message, trace: trace), in: .conversation(message.conversationId))
        case .conversations(let conversations, let report, let trace):
            await record(conversations, as: report, trace: trace)
        case .removed(let id, let trace):
            do {
                if try await services.store.removeConversation(id) {
                    services.dispatcher.enqueue(.event(.conversationRemoved(id), trace: trace), in: .events)
                }
            } catch {
                log.error("could not record the removal of conversation \(id): \(error)", trace: trace)
            }
        case .rewind(let conversation, let message):
            await rewind(conversation, passingOver: message)
        case .barrier(let done):
            done()
        }
    }

    /// Goes on with a conversation from what the store holds, after it refused one of its units.
    private func rewind(_ conversation: Conversation.ID, passingOver message: Message?) async {
        let lane = HandlerLane.conversation(conversation)
        if let message, let bot = services.identity?.userId {
            services.commits.submit(
                UnitOfWork(handling: message, bot: bot, traceID: message.id.rawValue, derivation: services.store.clientMessageIDDerivation),
                in: lane, trace: message.id.rawValue, epoch: services.dispatcher.epoch(of: conversation))
            await services.commits.waitUntilDrained(lane)
        }
        let contiguous: Int?
        do {
            let rewound = try await services.store.rewind(conversation)
            contiguous = rewound.contiguousSeq
            SessionServices.dispatch(rewound.released, to: services.dispatcher)
        } catch {
            log.error("could not rewind the conversation after a refused unit: \(error); the next sync goes on from the store", [
                "conversation": conversation.rawValue,
            ])
            return
        }
        guard let contiguous else { return }
        // A backfill already running takes it over; otherwise one starts. Not awaited here: the backfill waits for
        // this queue to process each page.
        state.withLock { state in state.rewoundFrom[conversation] = min(state.rewoundFrom[conversation] ?? contiguous, contiguous) }
        Task(executorPreference: SessionExecutor.preferred) { await self.backfill(conversation, after: contiguous) }
    }

    // MARK: - Messages

    private func admit(_ messages: [Message], fetched: Bool = false) async {
        guard let bot = services.identity?.userId else { return }
        let accepted = accept(messages, fetched: fetched)
        guard !accepted.isEmpty else { return }
        let report: AdmissionReport
        do {
            report = try await services.store.admit(accepted, bot: bot)
        } catch {
            admissionFailed(accepted, error)
            return
        }
        let unknown = carryOut(report, of: accepted)
        if !unknown.isEmpty { await admitDiscovering(unknown) }
    }

    /// Admits `messages` at once on the caller's thread, when the queue is idle and the store takes them inline:
    /// the usual case for a live `message.new`, which then reaches its lane without a hand-off. False, with the
    /// messages left for the drain task, otherwise.
    private func admitNow(_ messages: [Message]) -> Bool {
        let isAlone = state.withLock { state -> Bool in
            guard state.items.count == 1 else { return false }
            state.items.removeAll(keepingCapacity: true)
            return true
        }
        guard isAlone else { return false }
        guard let bot = services.identity?.userId else { return finishNow() }
        let accepted = accept(messages, fetched: false)
        guard !accepted.isEmpty else { return finishNow() }
        guard let admitted = services.store.admitInline(accepted, bot: bot) else {
            // The store is busy: the drain admits them (filtered for shedding already).
            state.withLock { $0.items.insert(.fetched(accepted), at: 0) }
            return false
        }
        switch admitted {
        case .success(let report):
            let unknown = carryOut(report, of: accepted)
            if !unknown.isEmpty {
                // Looking conversations up takes the network: the drain goes on after it, in order.
                Task(executorPreference: SessionExecutor.preferred) {
                    await self.admitDiscovering(unknown)
                    await self.drain()
                }
                return true
            }
        case .failure(let error):
            admissionFailed(accepted, error)
        }
        return finishNow()
    }

    /// Ends a synchronous turn of the queue: it is idle again unless items came meanwhile, which a drain task takes.
    private func finishNow() -> Bool {
        let hasMore = state.withLock { state -> Bool in
            if state.items.isEmpty || state.isStopped {
                state.isDraining = false
                return false
            }
            return true
        }
        if hasMore { Task(executorPreference: SessionExecutor.preferred) { await self.drain() } }
        return true
    }

    private func admissionFailed(_ messages: [Message], _ error: BotStoreError) {
        log.error("could not admit \(messages.count) messages: \(error); they come again with the next sync")
        services.metrics.setLastError("admission failed: \(error)")
    }

    /// What of `messages` the conversations can take now (all of a fetched page).
    private func accept(_ messages: [Message], fetched: Bool) -> [Message] {
        let limit = services.environment.conversationBacklogLimit
        // Shed what a conversation over its backlog limit cannot take now; it stays on the server. So does what
        // would park behind a gap that already holds `limit` messages (only a message below them can fill it),
        // so that a gap the service never fills cannot grow the bot's memory without end.
        var stalled: Set<Conversation.ID> = []
        let accepted = fetched ? messages : state.withLock { state -> [Message] in
            messages.filter { message in
                let conversation = message.conversationId
                if state.shedding.contains(conversation) { return false }
                if services.dispatcher.backlog(of: .conversation(conversation)) >= limit {
                    state.shedding.insert(conversation)
                    log.warning("conversation backlog over \(limit) messages: leaving new ones on the server until it drains", trace: message.id.rawValue, [
                        "conversation": conversation.rawValue,
                    ])
                    return false
                }
                let gap = services.store.memory.gap(in: conversation)
                if gap.isOpen, gap.parkedMessages >= limit, let first = gap.firstParkedSeq, message.seq > first {
                    state.shedding.insert(conversation)
                    stalled.insert(conversation)
                    log.warning("\(gap.parkedMessages) messages parked behind a gap: leaving new ones on the server and fetching from the gap", trace: message.id.rawValue, [
                        "conversation": conversation.rawValue, "missingSeq": String(gap.expected),
                    ])
                    return false
                }
                return true
            }
        }
        // A lane stalled by a gap has nothing to drain, so nothing else would start the fetch that fills it.
        for conversation in stalled { fetchShedIfLaneIsEmpty(conversation) }
        return accepted
    }

    /// Carries out what the store decided of `accepted`: delivered and released messages to their lanes, the
    /// bot's own to the lanes' ledgers, `receipt.delivered`, gap checks. Returns the messages of conversations the
    /// bot does not know yet.
    private func carryOut(_ report: AdmissionReport, of accepted: [Message]) -> [Message] {
        var delivered: [Message] = []
        var stored: [Conversation.ID: Int] = [:]
        var own: [Conversation.ID: [Int]] = [:]
        var unknown: [Message] = []
        var parkedIn: Set<Conversation.ID> = []
        for (message, admission) in zip(accepted, report.admissions) {
            if log.accepts(.trace) {
                log.trace("admitted: \(admission)", trace: message.id.rawValue, [
                    "conversation": message.conversationId.rawValue, "seq": String(message.seq),
                ])
            }
            switch admission {
            case .deliver:
                delivered.append(message)
                stored[message.conversationId] = max(stored[message.conversationId] ?? 0, message.seq)
            case .parked:
                // After a gap: `receipt.delivered` covers everything up to its seq, so it waits for the gap.
                parkedIn.insert(message.conversationId)
            case .own:
                own[message.conversationId, default: []].append(message.seq)
            case .duplicate:
                break
            case .unknownConversation:
                unknown.append(message)
            }
        }
        for message in report.released { stored[message.conversationId] = max(stored[message.conversationId] ?? 0, message.seq) }
        for (conversation, seqs) in own { services.dispatcher.noteOwn(seqs, in: conversation) }
        SessionServices.dispatch(delivered + report.released, to: services.dispatcher)
        for (conversation, seq) in stored { services.receipts.delivered(seq, in: conversation) }
        for conversation in parkedIn { scheduleGapCheck(conversation) }
        return unknown
    }

    /// Ends a backfill. Messages shed while it ran are fetched by the next one: the lane's draining starts it, or
    /// this when the lane has nothing to drain. A gap still open is looked at again after the gap-fill delay.
    private func finishBackfill(_ conversation: Conversation.ID) {
        let rewound = state.withLock { state -> Int? in
            _ = state.backfilling.remove(conversation)
            return state.isStopped ? nil : state.rewoundFrom[conversation]
        }
        if let rewound {
            // Rewound while this one ran past the rewound seqs: fetch them again.
            Task(executorPreference: SessionExecutor.preferred) { await self.backfill(conversation, after: rewound) }
            return
        }
        if services.store.memory.gap(in: conversation).isOpen {
            scheduleGapCheck(conversation)
        } else {
            fetchShedIfLaneIsEmpty(conversation)
        }
    }

    // MARK: - Gaps

    /// Checks `conversation`'s gap after `BotRuntimeEnvironment.gapFillDelay`: if it is still open and nothing
    /// moved meanwhile, the missing messages are fetched over REST from the contiguous seq. A `message.new` the
    /// service never sent (or one lost with a socket) is otherwise only recovered by the next sync.
    private func scheduleGapCheck(_ conversation: Conversation.ID) {
        let waitingFor = services.store.memory.gap(in: conversation).expected
        let base = max(services.environment.gapFillDelay, Self.minimumGapFillDelay)
        let delay = state.withLock { state -> Duration? in
            guard !state.isStopped, state.gapChecks.insert(conversation).inserted else { return nil }
            let delay = Self.gapCheckDelay(waitingFor: waitingFor, previous: state.gapRetries[conversation], base: base)
            state.gapRetries[conversation] = (waitingFor, delay)
            return delay
        }
        guard let delay else { return }
        Task(executorPreference: SessionExecutor.preferred) {
            let slept: Void? = try? await self.services.clock.sleep(for: delay)
            let now = self.services.store.memory.gap(in: conversation)
            let fetch = self.state.withLock { state -> Bool in
                state.gapChecks.remove(conversation)
                if !now.isOpen { state.gapRetries[conversation] = nil }
                guard slept != nil, !state.isStopped, now.isOpen, now.expected == waitingFor else { return false }
                return state.backfilling.insert(conversation).inserted
            }
            if fetch {
                self.log.warning("seq \(waitingFor) still missing after \(delay): fetching the conversation from it", [
                    "conversation": conversation.rawValue,
                ])
                await self.runBackfill(conversation, after: nil)
            } else if slept != nil, now.isOpen {
                self.scheduleGapCheck(conversation)
            } else if slept != nil {
                // The gap closed without a fetch; messages shed meanwhile may have no drain to bring them.
                self.fetchShedIfLaneIsEmpty(conversation)
            }
        }
    }

    static let minimumGapFillDelay: Duration = .seconds(1)
    static let maximumGapFillDelay: Duration = .seconds(300)

    /// The wait before the next check of a gap waiting for seq `waitingFor`: `base` for a new gap, twice the
    /// previous wait (at most ``maximumGapFillDelay``) when the check before waited for the same seq, so a hole the
    /// service cannot fill costs a fetch every few minutes, not one per `base`.
    static func gapCheckDelay(waitingFor: Int, previous: (expected: Int, delay: Duration)?, base: Duration) -> Duration {
        guard let previous, previous.expected == waitingFor else { return base }
        return min(previous.delay * 2, maximumGapFillDelay)
    }

    /// Looks up the conversations of messages that arrived before the bot knew them, records them, and admits
    /// the messages again.
    private func admitDiscovering(_ messages: [Message]) async {
        var conversations: [Conversation] = []
        for id in Set(messages.map(\.conversationId)).sorted(by: { $0.rawValue < $1.rawValue }) {
            do {
                conversations.append(try await services.rest.conversation(id))
            } catch {
                log.warning("message for unknown conversation \(id), which could not be looked up: \(error); it comes again with the next sync")
            }
        }
        guard !conversations.isEmpty else { return }
        await record(conversations, as: .refreshed, trace: messages.first?.id.rawValue ?? TraceID.make())
        let known = Set(conversations.map(\.id))
        let retry = messages.filter { known.contains($0.conversationId) }
        guard let bot = services.identity?.userId, !retry.isEmpty else { return }
        do {
            let report = try await services.store.admit(retry, bot: bot)
            var delivered: [Message] = []
            for (message, admission) in zip(retry, report.admissions) {
                switch admission {
                case .deliver: delivered.append(message)
                case .own: services.dispatcher.noteOwn([message.seq], in: message.conversationId)
                default: break
                }
            }
            SessionServices.dispatch(delivered + report.released, to: services.dispatcher)
        } catch {
            log.error("could not admit messages of newly found conversations: \(error)")
        }
    }

    // MARK: - Conversations

    private func record(_ conversations: [Conversation], as report: ConversationReport, trace: String) async {
        guard !conversations.isEmpty else { return }
        do {
            var before: [Conversation.ID: ConversationCursor] = [:]
            for conversation in conversations {
                if let cursor = try await services.store.conversationCursor(conversation.id) { before[conversation.id] = cursor }
            }
            try await services.store.recordConversations(
                conversations, newConversationsStart: services.environment.newConversationStart)
            for conversation in conversations {
                let event: BotEvent
                if let cursor = before[conversation.id], !cursor.isRemoved {
                    switch report {
                    case .created: continue
                    case .updated: break
                    case .refreshed: guard cursor.updatedAt.map({ conversation.updatedAt > $0 }) ?? true else { continue }
                    }
                    event = .conversationUpdated(conversation)
                } else {
                    event = .conversationCreated(conversation)
                }
                services.dispatcher.enqueue(.event(event, trace: trace), in: .events)
            }
        } catch {
            log.error("could not record \(conversations.count) conversations: \(error)", trace: trace)
        }
    }

    // MARK: - Backlogs

    /// What shed messages wait for when the lane holds nothing to drain (behind a gap, or after a fetch).
    private func fetchShedIfLaneIsEmpty(_ conversation: Conversation.ID) {
        guard services.dispatcher.backlog(of: .conversation(conversation)) == 0 else { return }
        laneDrained(conversation)
    }

    /// A conversation's lane has nothing queued: if it shed messages, fetch them now.
    func laneDrained(_ conversation: Conversation.ID) {
        let fetch = state.withLock { state -> Bool in
            guard state.shedding.contains(conversation), !state.backfilling.contains(conversation), !state.isStopped else {
                return false
            }
            state.backfilling.insert(conversation)
            return true
        }
        drained.withLock { $0[conversation] }?.wake()
        if fetch {
            Task(executorPreference: SessionExecutor.preferred) { await self.runBackfill(conversation, after: nil) }
        }
    }

    /// Fetches `conversation`'s messages page by page over REST, after `after` (nil: the contiguous seq), each page
    /// once the lane has room, until the server has no more. New live messages are admitted meanwhile (parked
    /// until the pages close the gap before them).
    /// One backfill per conversation at a time: a request while one runs is left to it (it goes on to the end).
    func backfill(_ conversation: Conversation.ID, after: Int?) async {
        let reserved = state.withLock { state in !state.isStopped && state.backfilling.insert(conversation).inserted }
        guard reserved else { return }
        await runBackfill(conversation, after: after)
    }

    /// The backfill of a conversation whose `backfilling` mark the caller set.
    private func runBackfill(_ conversation: Conversation.ID, after: Int?) async {
        state.withLock { state in _ = state.shedding.remove(conversation) }
        defer { finishBackfill(conversation) }
        let signal = drained.withLock { signals in
            if let signal = signals[conversation] { return signal }
            let signal = WakeSignal(clock: services.clock)
            signals[conversation] = signal
            return signal
        }
        defer { drained.withLock { _ = $0.removeValue(forKey: conversation) } }
        var position = after
        let limit = max(1, services.environment.conversationBacklogLimit / 2)
        do {
            if position == nil { position = try await services.store.conversationCursor(conversation)?.contiguousSeq }
            guard var afterSeq = position else { return }
            while !state.withLock({ $0.isStopped }) {
                if let rewound = state.withLock({ $0.rewoundFrom.removeValue(forKey: conversation) }) {
                    afterSeq = min(afterSeq, rewound)
                }
                while services.dispatcher.backlog(of: .conversation(conversation)) >= limit, !state.withLock({ $0.isStopped }) {
                    await signal.wait()
                }
                let page = try await services.rest.messages(
                    in: conversation, afterSeq: afterSeq, limit: services.environment.messagePageSize)
                log.debug("fetched \(page.messages.count) messages after seq \(afterSeq)", [
                    "conversation": conversation.rawValue, "hasMore": String(page.hasMore),
                ])
                submit(.fetched(page.messages))
                await waitUntilProcessed()
                let gap = services.store.memory.gap(in: conversation)
                if gap.isOpen, let last = page.messages.last?.seq, last >= gap.expected,
                    gap.parkedMessages >= services.environment.conversationBacklogLimit
                {
                    // The pages went past the missing seq without it: stop parking more, look again later.
                    log.warning("seq \(gap.expected) is missing from the fetched pages too", ["conversation": conversation.rawValue])
                    break
                }
                guard page.hasMore, let last = page.messages.last?.seq, last > afterSeq else { return }
                afterSeq = last
            }
        } catch {
            log.warning("could not fetch the messages of conversation \(conversation): \(error); the next sync goes on from there")
        }
    }
}
