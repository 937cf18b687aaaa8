import ChatterBots
import Foundation

/// Carries out the dispatcher's work: builds the handler's `RuntimeBotContext`, calls the bot, measures it, and
/// commits (or, when the handler threw, records only that the event was handled). A throwing handler is logged
/// and the bot goes on; a friend request's decision is applied with the configured policy.
final class HandlerRunner: HandlerDispatcher.Runner {
    private let bot: any Bot
    private let identity: SessionIdentity
    private let contexts: RuntimeBotContext.Dependencies
    private let friendRequests: FriendRequestPolicy
    private let dispatcher: HandlerDispatcher
    private let friends: FriendDirectory
    private let ignoredRequests: IgnoredFriendRequests
    private let admission: AdmissionQueue
    private let metrics: SessionMetrics
    private let quarantine: SessionQuarantine
    /// The messages handled recently, which the first update of each is compared with.
    private let recentMessages = RecentMessageVersions()
    /// Requests whose decision was carried out (accepted, declined, left pending, or found no longer pending): one
    /// whose answer failed is not among them, so it is asked about again when it comes back.
    private let decidedRequests = RecentFriendRequests()
    /// Requests whose `friend_request.cancelled` reached the bot.
    private let cancelledRequests = RecentFriendRequests()

    /// - Parameters:
    ///   - contexts: what the handlers' contexts act through.
    ///   - friendRequests: the configured policy a friend request's decision falls back to.
    init(
        bot: any Bot, identity: SessionIdentity, contexts: RuntimeBotContext.Dependencies,
        friendRequests: FriendRequestPolicy, dispatcher: HandlerDispatcher, friends: FriendDirectory,
        ignoredRequests: IgnoredFriendRequests, admission: AdmissionQueue, metrics: SessionMetrics,
        quarantine: SessionQuarantine
    ) {
        self.quarantine = quarantine
        self.bot = bot
        self.identity = identity
        self.contexts = contexts
        self.friendRequests = friendRequests
        self.dispatcher = dispatcher
        self.friends = friends
        self.ignoredRequests = ignoredRequests
        self.admission = admission
        self.metrics = metrics
    }

    private var log: SessionLog { contexts.log }
    private var clock: any ChatterClock { contexts.clock }

    func run(_ work: HandlerWork, _ run: HandlerRun) async {
        await self.run(work, run, onTurn: {})
    }

    /// Runs `work` as the quarantine says; `onTurn` is called as its handler's turn comes (a crash suspect waits
    /// until nothing else runs in the process, other work while a suspect has its turn): its timeout counts from
    /// then.
    func run(_ work: HandlerWork, _ run: HandlerRun, onTurn: () -> Void) async {
        switch quarantine.verdict(for: work) {
        case .run:
            // While a suspect of the process has its turn, nothing else runs; waiting for it is not running. A
            // handler whose session stopped while it waited does not run.
            var turn = quarantine.enterAsOtherAtOnce(until: run)
            if turn == nil {
                dispatcher.holdTimeout(of: run)
                turn = await quarantine.enterAsOther(until: run)
                dispatcher.restartTimeout(of: run)
                guard turn != nil else {
                    _ = run.abandon()
                    return
                }
            }
            onTurn()
            await perform(work, run)
            turn?.end()
        case .runAsSuspect(let suspect):
            // The handler's timeout counts from its turn: waiting for the process's other handlers is not running.
            dispatcher.holdTimeout(of: run)
            // A suspect whose session stopped while it waited stays suspect, for the next start.
            guard let turn = await quarantine.enterAlone(suspect, until: run) else {
                _ = run.abandon()
                return
            }
            dispatcher.restartTimeout(of: run)
            onTurn()
            log.notice("running crash suspect alone (attempt \(suspect.attempts + 1))", trace: suspect.trace, ["work": suspect.key])
            await perform(work, run)
            // It passes now unless a stop of the session cut it short (`SuspectTurnRules`).
            await quarantine.returned(turn, cancelled: Task.isCancelled)
        case .quarantine(let suspect):
            await setAside(work, suspect, run)
        case .passOver:
            await passOver(work, run)
        }
    }

    /// Runs `work`'s handler; `retrying` names the quarantine entry it is a retry of.
    private func perform(_ work: HandlerWork, _ run: HandlerRun, retrying: Int64? = nil) async {
        guard let identity = identity.bot else { return }
        let bot = bot
        let trace = work.trace
        switch work {
        case .message(let message):
            metrics.countIn()
            recentMessages.remember(message)
            log.debug("onMessage", trace: trace, ["conversation": message.conversationId.rawValue, "seq": String(message.seq)])
            let context = RuntimeBotContext(
                contexts, bot: identity, trigger: .message(message), lane: .conversation(message.conversationId),
                trace: trace, run: run, retrying: retrying)
            // A message deleted for everyone before the bot handled it counts as handled without reaching the bot:
            // nothing may answer what its sender took back.
            await call(work, context, run) {
                guard !message.isDeleted else { return }
                try await bot.onMessage(IncomingMessage(message), context: context)
            }

        case .messageUpdated(let message, _):
            let fingerprint = MessageUpdateFingerprint(message)
            let handled = await handledUpdates(of: message)
            let deduplication = MessageUpdateDeduplication(update: fingerprint, handled: handled)
            var decision = deduplication.decision
            if retrying == nil, decision == .askService {
                decision = deduplication.decision(givenCurrent: await currentState(of: message, trace: trace))
            }
            guard retrying != nil || decision == .handle else {
                log.debug("message.updated already handled", trace: trace, ["message": message.id.rawValue])
                _ = run.complete()
                return
            }
            let changes = MessageChanges(from: handled.last ?? recentMessages.version(of: message.id), to: message)
            let context = RuntimeBotContext(
                contexts, bot: identity, trigger: .update(message, fingerprint, handled: handled),
                lane: .conversation(message.conversationId), trace: trace, run: run, retrying: retrying)
            await call(work, context, run) {
                try await bot.onMessageUpdated(message, context: context)
                if changes.isDeleted { try await bot.onMessageDeleted(message, context: context) }
                if let edit = changes.edit {
                    try await bot.onMessageEdited(message, previousBody: edit.previousBody, context: context)
                }
                if !changes.added.isEmpty || !changes.removed.isEmpty {
                    try await bot.onReactionsChanged(message, added: changes.added, removed: changes.removed, context: context)
                }
            }

        case .job(let occurrence):
            let next = nextDueDate(after: occurrence, trace: trace)
            let job = ScheduledJob(
                id: occurrence.job.id, name: occurrence.job.name, dueAt: occurrence.dueAt,
                repeatRule: repeatRule(of: occurrence, trace: trace), payload: occurrence.job.payload,
                occurrence: occurrence.number)
            log.debug("onScheduledJob", trace: trace, ["job": job.name, "dueAt": Timestamp(job.dueAt).iso8601])
            let context = RuntimeBotContext(
                contexts, bot: identity, trigger: .occurrence(occurrence, nextDueAt: next), lane: .job(occurrence.job.id),
                trace: trace, run: run, retrying: retrying)
            await call(work, context, run) { try await bot.onScheduledJob(job, context: context) }

        case .event(let event, let trace):
            await runEvent(event, work: work, identity: identity, trace: trace, run: run, retrying: retrying)

        case .retry(let entry):
            await performRetry(of: entry, run)
        }
    }

    /// The updates of `message` handled recently: committed, or queued for commit in its lane (the lane runs one
    /// handler at a time, so no update of the message is being handled meanwhile).
    private func handledUpdates(of message: Message) async -> HandledMessageUpdates {
        let key = MessageUpdateFingerprint.storageKey(of: message.id)
        let data: Data?
        if let queued = contexts.writer.pendingState(forKey: key, in: .global, lane: .conversation(message.conversationId)) {
            data = queued
        } else {
            do {
                data = try await contexts.store.stateData(forKey: key, in: .global)
            } catch {
                log.warning("could not read whether an update was handled (\(error)); handling it", ["message": message.id.rawValue])
                return HandledMessageUpdates()
            }
        }
        return data.flatMap(HandledMessageUpdates.init(stored:)) ?? HandledMessageUpdates()
    }

    /// The state `message` is in now, as the service returns it in its conversation's page at its seq; unknown
    /// when the request fails or the page lacks it.
    private func currentState(of message: Message, trace: String) async -> MessageUpdateDeduplication.CurrentState {
        let fields = ["message": message.id.rawValue, "conversation": message.conversationId.rawValue]
        do {
            let page = try await contexts.rest.messages(in: message.conversationId, afterSeq: message.seq - 1, limit: 1)
            guard let current = page.messages.first(where: { $0.id == message.id }) else {
                log.warning("the service did not return an updated message; handling its update", trace: trace, fields)
                return .unknown
            }
            return .known(MessageUpdateFingerprint(current))
        } catch {
            log.warning("could not read an updated message's state (\(error)); handling its update", trace: trace, fields)
            return .unknown
        }
    }

    private func runEvent(
        _ event: BotEvent, work: HandlerWork, identity: BotIdentity, trace: String, run: HandlerRun, retrying: Int64?
    ) async {
        func context(_ key: String?) -> RuntimeBotContext {
            RuntimeBotContext(contexts, bot: identity, trigger: .event(key: key), lane: .events, trace: trace, run: run, retrying: retrying)
        }
        switch event {
        case .start:
            let context = context(nil)
            await call(work, context, run) { try await bot.onStart(context: context) }

        case .ready(let ready):
            let context = context(nil)
            await call(work, context, run) { try await bot.onReady(ready, context: context) }

        case .friendRequest(let request):
            guard retrying != nil || !decidedRequests.contains(request.id) else {
                log.debug("friend request already decided", trace: trace, ["request": request.id.rawValue])
                _ = run.complete()
                return
            }
            await decide(request, work: work, context: context("friend-request:\(request.id.rawValue)"), run: run)

        case .friendAdded(let friend, let isRecorded):
            if retrying == nil, !isRecorded, await !friends.add(friend) {
                log.debug("friend already known", trace: trace, ["user": friend.user.id.rawValue])
                _ = run.complete()
                return
            }
            let context = context("friend-added:\(friend.user.id.rawValue)@\(friend.since.iso8601)")
            await call(work, context, run) { try await bot.onFriendAdded(friend, context: context) }

        case .friendRemoved(let userId, let isRecorded):
            if retrying == nil, !isRecorded, await !friends.remove(userId) {
                _ = run.complete()
                return
            }
            contexts.presence.remove(userId)
            let context = context(nil)
            await call(work, context, run) { try await bot.onFriendRemoved(userId, context: context) }

        case .presenceSnapshot(let presences):
            let context = context(nil)
            await call(work, context, run) { try await bot.onPresenceSnapshot(presences, context: context) }

        case .presenceChanged(let presence):
            let context = context(nil)
            await call(work, context, run) { try await bot.onPresenceChanged(presence, context: context) }

        case .conversationCreated(let conversation):
            let context = context(event.workKey)
            await call(work, context, run) { try await bot.onConversationCreated(conversation, context: context) }

        case .conversationUpdated(let conversation):
            // One state of the conversation is one key: its replies keep their clientMessageIds if it runs again.
            let context = context(event.workKey)
            await call(work, context, run) { try await bot.onConversationUpdated(conversation, context: context) }

        case .conversationRemoved(let id):
            let context = context(nil)
            await call(work, context, run) { try await bot.onConversationRemoved(id, context: context) }

        case .friendRequestCancelled(let id):
            guard retrying != nil || cancelledRequests.insert(id) else {
                log.debug("friend request cancellation already handled", trace: trace, ["request": id.rawValue])
                _ = run.complete()
                return
            }
            let context = context("friend-request-cancelled:\(id.rawValue)")
            await call(work, context, run) { try await bot.onFriendRequestCancelled(id, context: context) }

        case .userUpdated(let user), .userUpdatedWhileAway(let user):
            // A live change the refresh already found (and reported) while this event waited is not news.
            if retrying == nil, case .userUpdated = event, await !friends.updateProfile(user) {
                log.debug("profile change already known", trace: trace, ["user": user.id.rawValue])
                _ = run.complete()
                return
            }
            let context = context(nil)
            await call(work, context, run) { try await bot.onUserUpdated(user, context: context) }

        case .readStateChanged(let receipt):
            let context = context(nil)
            await call(work, context, run) { try await bot.onReadStateChanged(receipt, context: context) }

        case .typing(let typing):
            let context = context(nil)
            await call(work, context, run) { try await bot.onTyping(typing, context: context) }
        }
    }

    /// Runs a quarantined entry's handler again, out of its order: the unit commits its effects and takes the entry
    /// out of the quarantine, and marks nothing handled (the work was passed over when it was set aside).
    private func performRetry(of entry: QuarantineEntry, _ run: HandlerRun) async {
        defer { quarantine.retryFinished(entry.id) }
        let work: HandlerWork
        switch entry.work {
        case .message(let message)?:
            work = .message(message)
        case .messageUpdated(let message)?:
            work = .messageUpdated(message, trace: entry.trace)
        case .event(let event)?:
            work = .event(event, trace: entry.trace)
        case .job(let id, let number)?:
            let record: ScheduledJobRecord?
            do {
                record = try await contexts.store.job(id)
            } catch {
                log.error("cannot retry quarantined entry \(entry.id): \(error)", trace: entry.trace)
                _ = run.complete()
                return
            }
            guard let record else {
                log.warning("quarantined entry \(entry.id) is a job that no longer exists: dropped", trace: entry.trace)
                _ = run.complete()
                await quarantine.dropped(entry.id)
                return
            }
            work = .job(JobOccurrence(job: record, number: number))
        case nil:
            // make, onStart and onReady run again at the bot's next start; the retry takes them out of the quarantine.
            _ = run.complete()
            await quarantine.dropped(entry.id)
            log.notice("quarantined \(entry.handler) (entry \(entry.id)) ran at this start: it leaves the quarantine", trace: entry.trace)
            return
        }
        log.notice("retrying quarantined \(entry.handler) (entry \(entry.id))", trace: entry.trace)
        await perform(work, run, retrying: entry.id)
        // The entry leaves the quarantine with the retry's unit: the bot's status counts what is left once it has.
        await contexts.writer.waitUntilDrained(work.lane)
        await quarantine.reread()
    }

    /// Sets quarantined work aside: it counts as handled (the message passed over, the occurrence done) without
    /// running, and the entry is recorded with it in one transaction.
    private func setAside(_ work: HandlerWork, _ suspect: CrashSuspect, _ run: HandlerRun) async {
        defer { _ = run.complete() }
        quarantine.report(suspect)
        guard let handling = await unitOfHandling(work) else { return }
        var unit = handling.unit
        let lane = work.lane
        if case .job(let occurrence) = work, occurrence.job.repeatRule != nil {
            unit.crashBookkeeping.append(.pauseJobIfQuarantinedBefore(occurrence.job.id))
        }
        unit.crashBookkeeping.insert(.quarantine(suspect, work: handling.stored), at: 0)
        let ticket = contexts.writer.submit(unit, in: lane, trace: work.trace, epoch: run.epoch)
        await contexts.writer.waitUntilCommitted(ticket, in: lane)
        await quarantine.quarantineCommitted()
    }

    /// Passes over work a standing quarantine entry holds, come again: it counts as handled without running.
    private func passOver(_ work: HandlerWork, _ run: HandlerRun) async {
        defer { _ = run.complete() }
        log.notice(
            "\(work.name) passed over: the same work is in the quarantine (see `quarantine list`; retry or drop it)",
            trace: work.trace, ["work": work.workKey])
        guard let (unit, _) = await unitOfHandling(work), !unit.hasNoEffects else { return }
        contexts.writer.submit(unit, in: work.lane, trace: work.trace, epoch: run.epoch)
    }

    /// The unit that marks `work` handled without running it (in `work.lane`), and what a quarantine entry keeps of
    /// it to retry it; nil for a retry, or before the session knows its account.
    private func unitOfHandling(_ work: HandlerWork) async -> (unit: UnitOfWork, stored: QuarantinedWork)? {
        guard let identity = identity.bot else { return nil }
        switch work {
        case .message(let message):
            let unit = UnitOfWork(
                handling: message, bot: identity.userId, traceID: work.trace, derivation: contexts.store.clientMessageIDDerivation)
            return (unit, .message(message))
        case .messageUpdated(let message, _):
            let unit = RuntimeBotContext.unitRecording(
                MessageUpdateFingerprint(message), of: message, after: await handledUpdates(of: message), bot: identity.userId,
                trace: work.trace)
            return (unit, .messageUpdated(message))
        case .job(let occurrence):
            let unit = UnitOfWork(
                running: occurrence, nextDueAt: nextDueDate(after: occurrence, trace: work.trace), bot: identity.userId,
                traceID: work.trace)
            return (unit, .job(occurrence.job.id, occurrence: occurrence.number))
        case .event(let event, _):
            return (UnitOfWork(bot: identity.userId, traceID: work.trace), .event(event))
        case .retry:
            return nil
        }
    }

    /// Calls a handler, then commits its work, or only the trigger when it threw. Nothing is committed when the
    /// watchdog abandoned the call meanwhile: the dispatcher's `recover` records the event instead.
    private func call(
        _ work: HandlerWork, _ context: RuntimeBotContext, _ run: HandlerRun, _ body: () async throws -> Void
    ) async {
        let started = clock.now
        var failure: (any Error)?
        // Marked while the bot's code runs: a handler still running when the process dies is a crash suspect. One
        // abandoned by its timeout stays marked until it returns, since it still runs.
        let slot = quarantine.mark(work, trace: work.trace, retrying: context.retrying)
        do {
            try await body()
        } catch {
            failure = error
        }
        quarantine.unmark(slot)
        metrics.recordHandler(seconds: clock.now.timeIntervalSince(started))
        guard run.complete() else { return }
        if let failure { report(failure, of: work) }
        context.finish(discarding: failure != nil)
    }

    private func report(_ error: any Error, of work: HandlerWork) {
        log.error("\(work.name) threw \(error); its changes are discarded and the bot goes on", trace: work.trace)
        metrics.setLastError("\(work.name) threw: \(error)")
    }

    /// Asks the bot about a friend request and carries out its decision (or the configured policy's).
    private func decide(_ request: FriendRequest, work: HandlerWork, context: RuntimeBotContext, run: HandlerRun) async {
        let started = clock.now
        var decision = FriendRequestDecision.useConfiguredPolicy
        var failure: (any Error)?
        let slot = quarantine.mark(work, trace: work.trace, retrying: context.retrying)
        do {
            decision = try await bot.onFriendRequest(request, context: context)
        } catch {
            failure = error
        }
        quarantine.unmark(slot)
        metrics.recordHandler(seconds: clock.now.timeIntervalSince(started))
        guard run.complete() else { return }
        if let failure { report(failure, of: work) }
        context.finish(discarding: failure != nil)
        let resolved = friendRequests.resolve(decision, for: request)
        let fields = ["from": request.fromUser.username, "request": request.id.rawValue, "decision": "\(resolved)"]
        do {
            switch resolved {
            case .accept:
                let accepted = try await contexts.rest.acceptFriendRequest(request.id)
                log.info("friend request accepted", trace: work.trace, fields)
                if await friends.add(accepted.friend) {
                    dispatcher.enqueue(
                        .event(.friendAdded(accepted.friend, isRecorded: true), trace: work.trace), in: .events)
                }
            case .decline:
                try await contexts.rest.declineFriendRequest(request.id)
                log.info("friend request declined", trace: work.trace, fields)
            case .ignore, .useConfiguredPolicy:
                await ignoredRequests.remember(request.id)
                log.info("friend request left pending", trace: work.trace, fields)
            }
            decidedRequests.insert(request.id)
        } catch let error as ChatterAPIError where error.code == .notFound || error.code == .alreadyFriends {
            decidedRequests.insert(request.id)
            log.info("friend request no longer pending: \(error.code)", trace: work.trace, fields)
        } catch {
            log.warning("could not answer the friend request: \(error)", trace: work.trace, fields)
            metrics.setLastError("friend request \(request.id): \(error)")
        }
    }

    /// Runs `onStart` (once per process, after the first sign-in), giving up on it `timeout` after its turn came,
    /// a deadline on the session's `timers`.
    func runStart(timeout: Duration, timers: DeadlineScheduler<SessionDeadline>) async {
        let run = HandlerRun()
        let done = WakeSignal(clock: clock)
        let clock = clock
        let start = HandlerWork.event(.start, trace: "start")
        let handler = Task(executorPreference: SessionExecutor.preferred) {
            await self.run(start, run) {
                timers.schedule(.startTimeout, at: clock.now.adding(timeout)) { done.wake() }
            }
            done.wake()
        }
        // A session that stops ends its `onStart`: one still waiting for its turn does not run after the stop.
        await withTaskCancellationHandler {
            await done.wait()
        } onCancel: {
            handler.cancel()
        }
        timers.cancel(.startTimeout)
        if Task.isCancelled {
            _ = run.abandon()
            return
        }
        if run.abandon(atTimeout: true) {
            handler.cancel()
            log.error("onStart did not return within \(timeout): cancelled, its changes are discarded and the bot goes on", trace: "start")
            metrics.setLastError("onStart timed out after \(timeout)")
        }
    }

    func recover(_ work: HandlerWork, _ run: HandlerRun, timedOutAfter timeout: Duration) async {
        if let context = run.contextID { contexts.typing.hideAll(of: context) }
        log.error("\(work.name) did not return within \(timeout): cancelled, its changes are discarded and the bot goes on", trace: work.trace)
        metrics.setLastError("\(work.name) timed out after \(timeout)")
        guard let identity = identity.bot else { return }
        switch work {
        case .message(let message):
            contexts.writer.submit(
                UnitOfWork(
                    handling: message, bot: identity.userId, traceID: work.trace, derivation: contexts.store.clientMessageIDDerivation),
                in: .conversation(message.conversationId),
                trace: work.trace, epoch: run.epoch)
        case .job(let occurrence):
            let next = nextDueDate(after: occurrence, trace: work.trace)
            contexts.writer.submit(
                UnitOfWork(running: occurrence, nextDueAt: next, bot: identity.userId, traceID: work.trace), in: .job(occurrence.job.id),
                trace: work.trace)
        case .messageUpdated(let message, _):
            let handled = await handledUpdates(of: message)
            contexts.writer.submit(
                RuntimeBotContext.unitRecording(
                    MessageUpdateFingerprint(message), of: message, after: handled, bot: identity.userId, trace: work.trace),
                in: .conversation(message.conversationId), trace: work.trace, epoch: run.epoch)
        case .event, .retry:
            break
        }
    }

    func laneDrained(_ conversation: Conversation.ID) {
        admission.laneDrained(conversation)
    }

    func contiguousSeq(of conversation: Conversation.ID) async throws -> Int? {
        try await contexts.store.conversationCursor(conversation)?.contiguousSeq
    }

    // MARK: - Repeating jobs

    private func repeatRule(of occurrence: JobOccurrence, trace: String) -> RepeatRule? {
        guard let json = occurrence.job.repeatRule else { return nil }
        do {
            return try json.decode(as: RepeatRule.self)
        } catch {
            log.error("job \(occurrence.job.name) has an unreadable repeat rule (\(error)); it runs once", trace: trace)
            return nil
        }
    }

    /// When a job runs after this occurrence: the rule's next occurrence after now (missed ones are skipped, the
    /// rhythm is kept); nil for a one-off job.
    private func nextDueDate(after occurrence: JobOccurrence, trace: String) -> Date? {
        repeatRule(of: occurrence, trace: trace)?.nextOccurrence(following: occurrence.dueAt, after: clock.now)
    }
}
