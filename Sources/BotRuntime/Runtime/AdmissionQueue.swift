import ChatterBots
import Foundation
import Synchronization

/// The one ordered path from what the service says to the bot's store and lanes: incoming messages (live, from a
/// sync, from a REST page), edits, and conversations created, updated or removed, taken in arrival order.
///
/// It carries out what its ``AdmissionPlan`` decides (the order, shedding, fetches, gap checks): items that arrive
/// while the store is busy are admitted together in the next transaction (the reader never waits for the
/// database); messages the store hands out go to their conversation's lane, and their `receipt.delivered` is sent
/// once they are stored; a message of an unknown conversation makes the queue look the conversation up first;
/// fetches run as tasks and gap checks on the session's deadline scheduler.
final class AdmissionQueue: Sendable {
    typealias Item = AdmissionItem
    typealias ConversationReport = AdmissionItem.ConversationReport

    private let store: BotStore
    private let writer: StoreWriter
    private let dispatcher: HandlerDispatcher
    private let receipts: ReceiptSender
    /// Settles the outbox entries whose messages come in as the bot's own.
    private let outbox: OutboxSender
    /// Takes the member watermarks of conversation objects and the bot's own messages.
    private let readState: ReadStateDirectory
    private let rest: ChatterRESTClient
    private let identity: SessionIdentity
    private let environment: BotRuntimeEnvironment
    private let log: SessionLog
    private let metrics: SessionMetrics
    private let timers: DeadlineScheduler<SessionDeadline>
    private let plan: Mutex<AdmissionPlan>
    /// Per conversation being fetched, what its fetch waits on for room in the lane.
    private let drained: Mutex<[Conversation.ID: WakeSignal]> = Mutex([:])
    /// How many messages each page of a fetch asks for, learned per conversation for the session's life.
    private let pageSizes: Mutex<BackfillPageSize>
    /// The messages of unknown conversations whose look-up is tried again.
    private let lookups: Mutex<ConversationLookups>

    /// A queue admitting into `store` (through `writer`) as the bot `identity` says, handing messages to
    /// `dispatcher`, their delivery to `receipts` and the bot's own to `outbox`, fetching over `rest`; its gap
    /// checks go to `timers`.
    init(
        store: BotStore, writer: StoreWriter, dispatcher: HandlerDispatcher, receipts: ReceiptSender, outbox: OutboxSender,
        readState: ReadStateDirectory, rest: ChatterRESTClient, identity: SessionIdentity, environment: BotRuntimeEnvironment, log: SessionLog,
        metrics: SessionMetrics, timers: DeadlineScheduler<SessionDeadline>
    ) {
        self.store = store
        self.writer = writer
        self.dispatcher = dispatcher
        self.receipts = receipts
        self.outbox = outbox
        self.readState = readState
        self.rest = rest
        self.identity = identity
        self.environment = environment
        self.log = log
        self.metrics = metrics
        self.timers = timers
        self.plan = Mutex(AdmissionPlan(
            backlogLimit: environment.conversationBacklogLimit, gapFillDelay: environment.gapFillDelay))
        self.pageSizes = Mutex(BackfillPageSize(configured: environment.messagePageSize))
        self.lookups = Mutex(ConversationLookups(limit: environment.conversationBacklogLimit))
    }

    private var clock: any ChatterClock { environment.clock }

    /// Adds an item; it is processed after every item submitted before it. Returns false, dropping the item,
    /// once the queue is stopped.
    @discardableResult
    func submit(_ item: Item) -> Bool {
        switch plan.withLock({ $0.submit(item) }) {
        case .refused:
            return false
        case .queued:
            return true
        case .admitNow(let messages):
            admitNow(messages)
            return true
        case .startDrain:
            Task(executorPreference: SessionExecutor.preferred) { await self.drain() }
            return true
        }
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
        let stopping = plan.withLock { $0.stop() }
        for done in stopping.barriers { done() }
        perform(stopping.actions)
        for signal in drained.withLock({ Array($0.values) }) { signal.wake() }
    }

    /// Carries out the plan's actions.
    private func perform(_ actions: [AdmissionPlan.Action]) {
        for action in actions {
            switch action {
            case .backfill(let conversation, let after):
                Task(executorPreference: SessionExecutor.preferred) { await self.runBackfill(conversation, after: after) }
            case .fetchGap(let conversation, let missingSeq, let waited):
                log.warning("seq \(missingSeq) still missing after \(waited): fetching the conversation from it", [
                    "conversation": conversation.rawValue,
                ])
                Task(executorPreference: SessionExecutor.preferred) { await self.runBackfill(conversation, after: nil) }
            case .scheduleGapCheck(let conversation, let deadline):
                timers.schedule(.gapCheck(conversation), at: deadline) { [self] in gapCheckDue(conversation) }
            case .cancelGapCheck(let conversation):
                timers.cancel(.gapCheck(conversation))
            }
        }
    }

    // MARK: - Draining

    private func drain() async {
        while true {
            let items = plan.withLock { $0.takeItems() }
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
            await admitUpdate(message, trace: trace)
        case .conversations(let conversations, let report, let trace):
            await record(conversations, as: report, trace: trace)
        case .removed(let id, let trace):
            do {
                readState.remove(id)
                if try await store.removeConversation(id) {
                    dispatcher.enqueue(.event(.conversationRemoved(id), trace: trace), in: .events)
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

    /// Hands an update to its conversation's lane once its message was handed out; an update of a message still on
    /// its way changes the parked copy or is dropped (``ConversationLedger/placeUpdate(_:bot:)``).
    private func admitUpdate(_ update: Message, trace: String) async {
        let work = HandlerWork.messageUpdated(update, trace: trace)
        guard let bot = identity.device?.userId else { return dispatcher.enqueue(work, in: .conversation(update.conversationId)) }
        let fields = ["conversation": update.conversationId.rawValue, "seq": String(update.seq)]
        do {
            switch try await store.placeUpdate(update, bot: bot) {
            case .deliver:
                dispatcher.enqueue(work, in: .conversation(update.conversationId))
            case .intoParked:
                log.debug("message.updated for a parked message: it is handled in its current state", trace: trace, fields)
            case .dropped:
                log.debug("message.updated for a message not received yet: it comes in its current state", trace: trace, fields)
            case .removedConversation:
                log.debug("message.updated passed over: the bot was removed from the conversation", trace: trace, fields)
                return
            }
            // Its message (or one before it) is known to exist and not here: the sync or a gap's fetch may bring it,
            // and if nothing does, a check after the gap-fill delay fetches it (a lost newest message included).
            let gap = store.memory.gap(in: update.conversationId)
            if update.seq >= gap.expected, gap.isMissing {
                let now = clock.now
                perform(plan.withLock { $0.gapFoundOpen(update.conversationId, waitingFor: gap.expected, now: now) })
            }
        } catch {
            log.warning("could not place a message update (\(error)); handing it to the bot", trace: trace, fields)
            dispatcher.enqueue(work, in: .conversation(update.conversationId))
        }
    }

    /// Goes on with a conversation from what the store holds, after it refused one of its units.
    private func rewind(_ conversation: Conversation.ID, passingOver message: Message?) async {
        let lane = HandlerLane.conversation(conversation)
        if let message, let bot = identity.device?.userId {
            writer.submit(
                UnitOfWork(handling: message, bot: bot, traceID: message.id.rawValue, derivation: store.clientMessageIDDerivation),
                in: lane, trace: message.id.rawValue, epoch: dispatcher.epoch(of: conversation))
            await writer.waitUntilDrained(lane)
        }
        let contiguous: Int?
        do {
            let rewound = try await store.rewind(conversation)
            contiguous = rewound.contiguousSeq
            dispatcher.enqueueHandedOut(rewound.released)
        } catch {
            log.error("could not rewind the conversation after a refused unit: \(error); the next sync goes on from the store", [
                "conversation": conversation.rawValue,
            ])
            return
        }
        guard let contiguous else { return }
        // Not awaited here: the fetch waits for this queue to process each page.
        perform(plan.withLock { $0.rewound(conversation, contiguous: contiguous) })
    }

    // MARK: - Messages

    private func admit(_ messages: [Message], fetched: Bool = false) async {
        guard let bot = identity.device?.userId else { return }
        let accepted = accept(messages, fetched: fetched)
        guard !accepted.isEmpty else { return }
        let report: AdmissionReport
        do {
            report = try await store.admit(accepted, bot: bot)
        } catch {
            admissionFailed(accepted, error)
            return
        }
        let unknown = carryOut(report, of: accepted)
        if !unknown.isEmpty { await admitDiscovering(unknown) }
    }

    /// Admits `messages` at once on the caller's thread, in the turn the plan gave it: the usual case for a live
    /// `message.new`, which then reaches its lane without a hand-off. When the store is busy, the turn goes on as
    /// a drain task.
    private func admitNow(_ messages: [Message]) {
        guard let bot = identity.device?.userId else { return endTurn() }
        let accepted = accept(messages, fetched: false)
        guard !accepted.isEmpty else { return endTurn() }
        guard let admitted = store.admitInline(accepted, bot: bot) else {
            // The drain admits them (filtered for shedding already).
            plan.withLock { $0.storeBusy(admitting: accepted) }
            Task(executorPreference: SessionExecutor.preferred) { await self.drain() }
            return
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
                return
            }
        case .failure(let error):
            admissionFailed(accepted, error)
        }
        endTurn()
    }

    /// Ends a turn on the caller's thread: the queue is idle again unless items came meanwhile, which a drain task
    /// takes.
    private func endTurn() {
        guard plan.withLock({ $0.turnEnded() }) else { return }
        Task(executorPreference: SessionExecutor.preferred) { await self.drain() }
    }

    private func admissionFailed(_ messages: [Message], _ error: BotStoreError) {
        log.error("could not admit \(messages.count) messages: \(error); they come again with the next sync")
        metrics.setLastError("admission failed: \(error)")
    }

    /// What of `messages` the conversations can take now (all of a fetched page); the rest stays on the server.
    private func accept(_ messages: [Message], fetched: Bool) -> [Message] {
        guard !fetched else { return messages }
        let dispatcher = dispatcher
        let memory = store.memory
        let acceptance = plan.withLock { plan in
            plan.accept(messages, backlog: { dispatcher.backlog(of: .conversation($0)) }, gap: { memory.gap(in: $0) })
        }
        for shedding in acceptance.shed {
            switch shedding.reason {
            case .backlog(let limit):
                log.warning("conversation backlog over \(limit) messages: leaving new ones on the server until it drains", trace: shedding.message.rawValue, [
                    "conversation": shedding.conversation.rawValue,
                ])
            case .parkedBehindGap(let parked, let missingSeq):
                log.warning("\(parked) messages parked behind a gap: leaving new ones on the server and fetching from the gap", trace: shedding.message.rawValue, [
                    "conversation": shedding.conversation.rawValue, "missingSeq": String(missingSeq),
                ])
            }
        }
        perform(acceptance.actions)
        return acceptance.accepted
    }

    /// Carries out what the store decided of `accepted`: delivered and released messages to their lanes, the
    /// bot's own to the lanes' ledgers and to the outbox (the store recorded their entries acknowledged),
    /// `receipt.delivered`, gap checks. Returns the messages of conversations the bot does not know yet.
    private func carryOut(_ report: AdmissionReport, of accepted: [Message]) -> [Message] {
        var delivered: [Message] = []
        var stored: [Conversation.ID: Int] = [:]
        var own: [Conversation.ID: [Int]] = [:]
        var ownAcks: [MessageAck] = []
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
                if let clientMessageId = message.clientMessageId {
                    ownAcks.append(MessageAck(
                        clientMessageId: clientMessageId, messageId: message.id, conversationId: message.conversationId,
                        seq: message.seq, createdAt: message.createdAt))
                }
            case .duplicate, .removedConversation:
                break
            case .unknownConversation:
                unknown.append(message)
            }
        }
        for message in report.released { stored[message.conversationId] = max(stored[message.conversationId] ?? 0, message.seq) }
        for (conversation, seqs) in own {
            dispatcher.noteOwn(seqs, in: conversation)
            readState.noteOwn(seqs, in: conversation)
        }
        outbox.ownMessagesFound(ownAcks)
        dispatcher.enqueueHandedOut(delivered + report.released)
        for (conversation, seq) in stored { receipts.delivered(seq, in: conversation) }
        if !parkedIn.isEmpty || !report.released.isEmpty { noteGaps(parkedIn: parkedIn, released: report.released) }
        return unknown
    }

    /// Tells the plan about the gaps an admission opened (messages parked) or closed (parked messages released).
    private func noteGaps(parkedIn: Set<Conversation.ID>, released: [Message]) {
        let memory = store.memory
        let now = clock.now
        let closed = Set(released.map(\.conversationId)).subtracting(parkedIn).filter { !memory.gap(in: $0).isMissing }
        let opened = parkedIn.map { ($0, memory.gap(in: $0).expected) }
        let actions = plan.withLock { plan in
            closed.flatMap { plan.gapClosed($0) } + opened.flatMap { plan.gapFoundOpen($0, waitingFor: $1, now: now) }
        }
        perform(actions)
    }

    /// Ends a fetch: the plan decides what follows (a fetch from a rewound seq, a later gap check, or fetching what
    /// was shed meanwhile).
    private func finishBackfill(_ conversation: Conversation.ID) {
        let gap = store.memory.gap(in: conversation)
        let backlog = dispatcher.backlog(of: .conversation(conversation))
        let now = clock.now
        perform(plan.withLock { $0.backfillFinished(conversation, gap: gap, backlog: backlog, now: now) })
    }

    // MARK: - Gaps

    /// A gap check scheduled on the session's timers is due. Runs on the scheduler's task: it only reads memory
    /// and starts what the plan decides.
    private func gapCheckDue(_ conversation: Conversation.ID) {
        let gap = store.memory.gap(in: conversation)
        let backlog = dispatcher.backlog(of: .conversation(conversation))
        let now = clock.now
        perform(plan.withLock { $0.gapCheckDue(conversation, gap: gap, backlog: backlog, now: now) })
    }

    /// Looks up the conversations of messages that arrived before the bot knew them, records them, and admits
    /// the messages again.
    private func admitDiscovering(_ messages: [Message]) async {
        var byConversation = Dictionary(grouping: messages, by: \.conversationId)
        for (id, batch) in byConversation {
            let (held, dropped) = lookups.withLock { $0.hold(batch, of: id) }
            guard held else { continue }
            byConversation[id] = nil
            logDroppedWhileLookupWaits(dropped, of: id)
        }
        var conversations: [Conversation] = []
        for id in byConversation.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            do {
                conversations.append(try await rest.conversation(id))
                lookups.withLock { $0.found(id) }
            } catch {
                lookupFailed(id, messages: byConversation[id] ?? [], error: error)
            }
        }
        guard !conversations.isEmpty else { return }
        // The messages looked up for are new to the bot even when it starts new conversations after their last message.
        let earliest = Dictionary(byConversation.values.joined().map { ($0.conversationId, $0.seq) }, uniquingKeysWith: min)
        await record(
            conversations, as: .lookedUp, trace: messages.first?.id.rawValue ?? TraceID.make(), startingBefore: earliest)
        let known = Set(conversations.map(\.id))
        let retry = messages.filter { known.contains($0.conversationId) }
        guard let bot = identity.device?.userId, !retry.isEmpty else { return }
        let report: AdmissionReport
        do {
            report = try await store.admit(retry, bot: bot)
        } catch {
            admissionFailed(retry, error)
            return
        }
        // The same follow-ups as any admission: lanes, `receipt.delivered`, gap checks.
        let unknown = carryOut(report, of: retry)
        if !unknown.isEmpty {
            log.warning("\(unknown.count) messages of conversations just recorded are still unknown; they come again with the next sync")
        }
    }

    /// The look-up of `conversation` failed: its messages wait for the next try, or are dropped when it was refused
    /// for good (``ConversationLookups``).
    private func lookupFailed(_ conversation: Conversation.ID, messages: [Message], error: any Error) {
        let now = clock.now
        let (outcome, dropped) = lookups.withLock { $0.failed(conversation, messages: messages, error: error, now: now) }
        switch outcome {
        case .retry(let deadline):
            guard !plan.withLock({ $0.isStopped }) else { return }
            log.warning("message for unknown conversation \(conversation), which could not be looked up: \(error); looking it up again in \(String(format: "%.1f", deadline.timeIntervalSince(now))) s")
            logDroppedWhileLookupWaits(dropped, of: conversation)
            timers.schedule(.conversationLookup(conversation), at: deadline) { [self] in
                let held = lookups.withLock { $0.retryDue(conversation) }
                // Admitting may write to the store: not on the scheduler's task.
                if !held.isEmpty { Task(executorPreference: SessionExecutor.preferred) { self.submit(.messages(held)) } }
            }
        case .dropped(let reason):
            log.warning("\(messages.count) messages of conversation \(conversation) dropped: its look-up was refused (\(reason))")
        }
    }

    private func logDroppedWhileLookupWaits(_ count: Int, of conversation: Conversation.ID) {
        guard count > 0 else { return }
        log.warning("\(count) messages of unknown conversation \(conversation) dropped while its look-up waits; they come again with the next sync")
    }

    // MARK: - Conversations

    /// - Parameter startingBefore: per conversation, a seq a new cursor starts below (the messages a look-up was for).
    private func record(
        _ conversations: [Conversation], as report: ConversationReport, trace: String,
        startingBefore: [Conversation.ID: Int] = [:]
    ) async {
        guard !conversations.isEmpty else { return }
        do {
            var before: [Conversation.ID: ConversationCursor] = [:]
            for conversation in conversations {
                if let cursor = try await store.conversationCursor(conversation.id) { before[conversation.id] = cursor }
            }
            // Messages held for a failed look-up of a conversation recorded now another way go in with it.
            var released: [Message] = []
            var starts = startingBefore
            for conversation in conversations where before[conversation.id] == nil {
                let held = lookups.withLock { $0.release(conversation.id) }
                guard let lowest = held.map(\.seq).min() else { continue }
                timers.cancel(.conversationLookup(conversation.id))
                starts[conversation.id] = min(starts[conversation.id] ?? .max, lowest)
                released += held
            }
            defer { if !released.isEmpty { submit(.messages(released)) } }
            try await store.recordConversations(
                conversations, newConversationsStart: environment.newConversationStart, isRefreshPage: report.isRefreshPage,
                startingBefore: starts)
            for conversation in conversations {
                dispatcher.enqueueReadStateChanges(readState.record(conversation, bot: identity.device?.userId), trace: trace)
            }
            for conversation in conversations {
                let event: BotEvent
                if let cursor = before[conversation.id], !cursor.isRemoved {
                    // A repeated event, or a state a refresh recorded first, is not newer than what is stored.
                    let isNewer = cursor.updatedAt.map { conversation.updatedAt > $0 } ?? true
                    switch report {
                    case .created: continue
                    case .updated:
                        guard isNewer else {
                            log.debug("conversation.updated already recorded", trace: trace, ["conversation": conversation.id.rawValue])
                            continue
                        }
                    case .refreshed, .lookedUp:
                        // A new message moves `updatedAt` too: only a change of what the event tells of counts.
                        let differs = cursor.detailsDigest.map { $0 != conversation.detailsDigest } ?? true
                        guard isNewer && differs else { continue }
                    }
                    event = .conversationUpdated(conversation)
                } else {
                    event = .conversationCreated(conversation)
                }
                dispatcher.enqueue(.event(event, trace: trace), in: .events)
            }
        } catch {
            log.error("could not record \(conversations.count) conversations: \(error)", trace: trace)
        }
    }

    // MARK: - Backlogs

    /// A conversation's lane has nothing queued: a fetch waiting for room goes on, and if the conversation shed
    /// messages, they are fetched now.
    func laneDrained(_ conversation: Conversation.ID) {
        let actions = plan.withLock { $0.laneDrained(conversation) }
        drained.withLock { $0[conversation] }?.wake()
        perform(actions)
    }

    /// Fetches `conversation`'s messages page by page over REST, after `after` (nil: the contiguous seq), each page
    /// once the lane has room, until the server has no more. New live messages are admitted meanwhile (parked
    /// until the pages close the gap before them).
    /// One fetch per conversation at a time: a request while one runs or waits is left to it (it goes on to the
    /// end); a few conversations are fetched at once (``AdmissionPlan/maximumFetches``), the others wait their turn.
    func backfill(_ conversation: Conversation.ID, after: Int?) {
        perform(plan.withLock { $0.requestBackfill(conversation, after: after) })
    }

    /// The fetch of a conversation the plan reserved.
    private func runBackfill(_ conversation: Conversation.ID, after: Int?) async {
        plan.withLock { $0.backfillStarted(conversation) }
        defer { finishBackfill(conversation) }
        let signal = drained.withLock { signals in
            if let signal = signals[conversation] { return signal }
            let signal = WakeSignal(clock: clock)
            signals[conversation] = signal
            return signal
        }
        defer { drained.withLock { _ = $0.removeValue(forKey: conversation) } }
        let lane = HandlerLane.conversation(conversation)
        do {
            var position = after
            if position == nil { position = try await store.conversationCursor(conversation)?.contiguousSeq }
            guard var afterSeq = position else { return }
            while let start = plan.withLock({ $0.pageStart(in: conversation, after: afterSeq) }) {
                afterSeq = start
                if plan.withLock({ $0.waitsForRoom(backlog: dispatcher.backlog(of: lane)) }) {
                    perform(plan.withLock { $0.fetchPaused() })
                    while plan.withLock({ $0.waitsForRoom(backlog: dispatcher.backlog(of: lane)) }) {
                        await signal.wait()
                    }
                    plan.withLock { $0.fetchResumed() }
                }
                let page: MessagePage
                let limit = pageSizes.withLock { $0.limit(in: conversation) }
                do {
                    page = try await rest.messages(in: conversation, afterSeq: afterSeq, limit: limit)
                } catch ChatterClientError.responseTooLarge(let endpoint, let responseLimit) {
                    guard let fewer = pageSizes.withLock({ $0.pageRefused(in: conversation, responseLimit: responseLimit) }) else {
                        throw ChatterClientError.responseTooLarge(endpoint, limit: responseLimit)
                    }
                    log.warning("a page of \(limit) messages after seq \(afterSeq) is larger than the \(responseLimit) bytes this client accepts; asking for \(fewer) at a time", [
                        "conversation": conversation.rawValue,
                    ])
                    continue
                } catch let error as ChatterAPIError where error.code == .rateLimited {
                    // The limit is the device's: the page waits what the service asked, then goes on from there.
                    let delay = RateLimitDelay.asked(by: error) ?? RateLimitDelay.fallback
                    let until = clock.now.adding(delay)
                    log.warning("the page after seq \(afterSeq) was rate limited: asking again in \(delay)", [
                        "conversation": conversation.rawValue,
                    ])
                    while clock.now < until, !plan.withLock({ $0.isStopped }) { await signal.wait(until: until) }
                    continue
                }
                pageSizes.withLock { $0.pageFetched(page.messages, in: conversation) }
                log.debug("fetched \(page.messages.count) messages after seq \(afterSeq) (limit \(limit))", [
                    "conversation": conversation.rawValue, "hasMore": String(page.hasMore),
                ])
                submit(.fetched(page.messages))
                await waitUntilProcessed()
                let gap = store.memory.gap(in: conversation)
                let from = afterSeq
                switch plan.withLock({ $0.afterPage(after: from, lastSeq: page.messages.last?.seq, hasMore: page.hasMore, gap: gap) }) {
                case .nextPage(let last):
                    afterSeq = last
                case .finished:
                    return
                case .missingFromPages(let missingSeq):
                    log.warning("seq \(missingSeq) is missing from the fetched pages too", ["conversation": conversation.rawValue])
                    return
                }
            }
        } catch {
            log.warning("could not fetch the messages of conversation \(conversation): \(error); the next sync goes on from there")
        }
    }
}
