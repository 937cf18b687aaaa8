import ChatterBots
import Foundation
import Synchronization

/// Carries out `QuarantineRules` for one bot: marks each handler's work in the process's `InFlightTable` while it
/// runs, runs suspects one at a time behind the process's `SuspectGate`, records what passed and what was set
/// aside in the bot's store, and stops the bot as crashing when the rules say so.
final class SessionQuarantine: Sendable {
    private let bot: String
    private let table: InFlightTable?
    private let gate: SuspectGate
    private let store: BotStore
    private let dispatcher: HandlerDispatcher
    private let clock: any ChatterClock
    /// The session's timers: the end of a suspect's grace after its timeout.
    private let timers: DeadlineScheduler<SessionDeadline>
    /// How long a suspect keeps its turn alone after its timeout (`SuspectTurnRules`).
    private let grace: Duration
    private let log: SessionLog
    private let metrics: SessionMetrics
    private let rules: Mutex<QuarantineRules>
    private let onCrashing: @Sendable (String) -> Void
    /// How many times `onReady` was queued.
    private let readyCount = Atomic<Int>(0)
    /// The entries whose retry is queued or running: a second request for one of them queues nothing more.
    private let retrying = Mutex<Set<Int64>>([])
    /// The work `readyEnqueued` started, by number, until it ends or `stop()` ends it.
    private let readyWork = Mutex<(next: Int, tasks: [Int: Task<Void, Never>])>((0, [:]))
    /// Set by `stop()`: the session is stopping, so its ready work touches nothing more.
    private let isStopping = Atomic<Bool>(false)
    /// Set by `close()`: the store is about to close, so a suspect's pass records nothing (it stays for the next start).
    private let isClosed = Atomic<Bool>(false)
    /// The suspects' turns alone that have not ended, by identity.
    private let turns = Mutex<[ObjectIdentifier: SuspectTurn]>([:])

    init(
        bot: String, settings: QuarantineSettings, table: InFlightTable?, gate: SuspectGate, store: BotStore,
        dispatcher: HandlerDispatcher, clock: any ChatterClock, timers: DeadlineScheduler<SessionDeadline>,
        handlerTimeout: Duration, log: SessionLog, metrics: SessionMetrics,
        onCrashing: @escaping @Sendable (String) -> Void
    ) {
        self.bot = bot
        self.table = table
        self.gate = gate
        self.store = store
        self.dispatcher = dispatcher
        self.clock = clock
        self.timers = timers
        self.grace = SuspectTurnRules.grace(after: handlerTimeout)
        self.log = log
        self.metrics = metrics
        self.onCrashing = onCrashing
        self.rules = Mutex(QuarantineRules(
            suspects: [], maxAttempts: settings.attempts, maxQuarantinesPerHour: settings.maxPerHour))
    }

    /// Reads the bot's suspects and quarantine; puts the bot on probation when it has suspects. Returns why the
    /// bot must not start (a lifecycle handler keeps crashing the process, or too many quarantines), if it must not.
    func load() async throws(BotStoreError) -> String? {
        // A new store has neither: nothing to read at the start of a new bot.
        guard !store.isNew else { return nil }
        var (suspects, entries) = try await store.crashRecord()
        // A retry that crashed the process again leaves its entry where it was, and is not retried by itself.
        let crashedRetries = suspects.filter { HandlerWork.retriedEntry(inKey: $0.key) != nil }
        suspects.removeAll { HandlerWork.retriedEntry(inKey: $0.key) != nil }
        try await store.record(crashedRetries.compactMap { suspect in
            log.error("the retry of a quarantined \(suspect.handler) crashed the process again: it stays quarantined", trace: suspect.trace)
            return HandlerWork.retriedEntry(inKey: suspect.key).map { .retryCrashed($0) }
        })
        let atLimit = rules.withLock { rules -> [CrashSuspect] in
            rules = QuarantineRules(
                suspects: suspects, maxAttempts: rules.maxAttempts, maxQuarantinesPerHour: rules.maxQuarantinesPerHour)
            return rules.takeLifecycleSuspectsAtLimit()
        }
        for suspect in atLimit { report(suspect) }
        if !atLimit.isEmpty || !crashedRetries.isEmpty {
            try await store.record(atLimit.map { .quarantine($0, work: nil) })
            entries = try await store.quarantined()
        }
        quarantineChanged(entries)
        let (probation, reason) = rules.withLock { ($0.isOnProbation, $0.crashingReason(bot: bot, quarantine: entries, now: clock.now)) }
        if probation {
            log.warning("the process died while \(suspects.count) piece\(suspects.count == 1 ? "" : "s") of this bot's work ran: "
                + "running them one at a time before anything else", ["suspects": suspects.map(\.key).sorted().joined(separator: ",")])
            dispatcher.limitConcurrency(to: 1)
        }
        return reason
    }

    /// Makes `member`'s bot with `making`: alone in the process when a crash caught its `make` before, which is no
    /// longer suspected once it returns, or once the grace after its timeout is over. Nil when the session stopped
    /// first.
    func makeBot(_ member: BotLineup.Member, with making: BotMaking) async -> BotMaking.Outcome? {
        let suspect = rules.withLock { $0.isOnProbation ? $0.suspects[BotMaking.workKey] : nil }
        if let suspect {
            log.notice("making the bot alone, a crash suspect (attempt \(suspect.attempts + 1))", trace: suspect.trace, ["work": suspect.key])
        }
        guard let made = await making.make(member, alone: suspect != nil, log: log) else { return nil }
        if let afterGrace = made.passedAfterGrace { await passed(BotMaking.workKey, afterGrace: afterGrace) }
        return made.outcome
    }

    /// What to do with `work` (see `QuarantineRules.Verdict`).
    func verdict(for work: HandlerWork) -> QuarantineRules.Verdict {
        let (verdict, ended) = rules.withLock { rules -> (QuarantineRules.Verdict, Bool) in
            guard rules.watchesWork else { return (.run, false) }
            let wasOnProbation = rules.isOnProbation
            let verdict = rules.verdict(for: work.workKey)
            return (verdict, wasOnProbation && !rules.isOnProbation)
        }
        if ended { endProbation(forgetting: []) }
        return verdict
    }

    /// Waits until nothing else runs in the process and no suspect before it waits, then holds the gate for the turn
    /// of `suspect`, whose work `run` runs: until its code returns (`returned(_:cancelled:)`), the grace after its
    /// timeout ends, or the session stops (`SuspectTurnRules`); nil, holding nothing, when the session stopped
    /// meanwhile (its task cancelled, or `run` abandoned).
    func enterAlone(_ suspect: CrashSuspect, until run: HandlerRun) async -> SuspectTurn? {
        guard await gate.enter() else { return nil }
        let turn = SuspectTurn(key: suspect.key, grace: grace, gateTurn: SuspectGate.Turn { [gate] in gate.leave() })
        turns.withLock { $0[ObjectIdentifier(turn)] = turn }
        // A completed run's code returns to `returned(_:cancelled:)`; an abandoned one's may never return.
        run.onEnd { [weak run, self] in
            guard let run, run.isAbandoned else { return }
            handle(run.timedOut ? .timedOut : .stopped, of: turn)
        }
        guard !run.isAbandoned, !Task.isCancelled else {
            handle(.stopped, of: turn)
            return nil
        }
        // A turn that began as the session stops keeps no grace either (`stop()` may have missed it).
        if isStopping.load(ordering: .acquiring) { handle(.stopping, of: turn) }
        return turn
    }

    /// The code of `turn`'s suspect returned, `cancelled` when its task was: it passes, unless a stop cut it short.
    func returned(_ turn: SuspectTurn, cancelled: Bool) async {
        if let afterGrace = carryOut(turn.handle(.returned(cancelled: cancelled), now: clock.now), of: turn) {
            await passed(turn.key, afterGrace: afterGrace)
        }
    }

    /// Applies `event` to `turn` where nothing can wait for its pass (a timer, a run's end): the pass, if it comes,
    /// is recorded by a task of its own.
    private func handle(_ event: SuspectTurnRules.Event, of turn: SuspectTurn) {
        guard let afterGrace = carryOut(turn.handle(event, now: clock.now), of: turn) else { return }
        Task(executorPreference: SessionExecutor.preferred) { [self] in await passed(turn.key, afterGrace: afterGrace) }
    }

    /// Carries out the actions of `turn`'s rules but its pass; returns the pass (whether after the grace), if any.
    private func carryOut(_ actions: [SuspectTurnRules.Action], of turn: SuspectTurn) -> Bool? {
        var pass: Bool?
        for action in actions {
            switch action {
            case .scheduleGraceEnd(let end):
                log.notice("the crash suspect keeps its turn alone for \(grace) more: a death now is still blamed on it", ["work": turn.key])
                timers.schedule(.suspectGrace(turn.key), at: end) { [self] in handle(.graceOver, of: turn) }
            case .endTurn:
                timers.cancel(.suspectGrace(turn.key))
                _ = turns.withLock { $0.removeValue(forKey: ObjectIdentifier(turn)) }
            case .pass(let afterGrace):
                pass = afterGrace
            case .returnedAfterStop:
                log.info("the crash suspect's code returned after its session stopped: it stays suspected for the next start", ["work": turn.key])
            }
        }
        return pass
    }

    /// Counts `run`, not a suspect, as running beside the process's other handlers until the returned turn ends,
    /// or `run` completes or is abandoned; nil, counting nothing, while a suspect has its turn or waits for it.
    func enterAsOtherAtOnce(until run: HandlerRun) -> SuspectGate.Turn? {
        guard gate.enterAsOtherAtOnce() else { return nil }
        return turn(of: run) { [gate] in gate.leaveAsOther() }
    }

    /// Waits for the suspects' turns to end, then counts `run` as `enterAsOtherAtOnce(until:)` does; nil when the
    /// session stopped meanwhile.
    func enterAsOther(until run: HandlerRun) async -> SuspectGate.Turn? {
        guard await gate.enterAsOther() else { return nil }
        return turn(of: run) { [gate] in gate.leaveAsOther() }
    }

    /// The turn of `run` at the gate, which `leave` gives back; nil, given back at once, when the run was abandoned
    /// or its task cancelled while it waited.
    private func turn(of run: HandlerRun, leave: @escaping @Sendable () -> Void) -> SuspectGate.Turn? {
        let turn = SuspectGate.Turn(leave: leave)
        run.onEnd { turn.end() }
        guard !run.isAbandoned, !Task.isCancelled else {
            turn.end()
            return nil
        }
        return turn
    }

    /// Marks `work` as running (nil when there is no table, or it is full). A retry of the quarantine entry
    /// `retrying` is marked as that retry: should it crash the process again, the next start finds the entry's
    /// retry to blame, and leaves the entry quarantined instead of retrying it at every start.
    func mark(_ work: HandlerWork, trace: String, retrying: Int64? = nil) -> InFlightTable.Slot? {
        let key = retrying.map(HandlerWork.retryKey(of:)) ?? work.workKey
        return table?.claim(InFlightTable.Record(
            bot: bot, handler: work.name, trace: trace, key: key, summary: work.summary, startedAt: clock.now))
    }

    func unmark(_ slot: InFlightTable.Slot?) {
        if let slot { table?.release(slot) }
    }

    /// The work `key` ran until its code returned (or, `afterGrace`, through its timeout and the grace after it)
    /// without the process dying: if it was a suspect, it is cleared, and the probation ends with the last one.
    func passed(_ key: String, afterGrace: Bool = false) async {
        guard !isClosed.load(ordering: .acquiring) else {
            log.debug("\(key) passed after its session stopped: it stays suspected for the next start")
            return
        }
        guard let (suspect, ended) = rules.withLock({ $0.passed(key) }) else { return }
        if afterGrace {
            log.info("\(suspect.handler) ran through its timeout and the grace after it without the process dying: it is no "
                + "longer suspected, though its code still runs", trace: suspect.trace)
        } else {
            log.info("\(suspect.handler) ran this time without the process dying: it is no longer suspected", trace: suspect.trace)
        }
        do {
            try await store.record([.clearSuspect(key)])
        } catch where isClosed.load(ordering: .acquiring) {
            // The store closed meanwhile, with the session: the suspect stays for the next start, which is right.
        } catch {
            log.warning("could not clear the crash suspect: \(error)", trace: suspect.trace)
        }
        if ended { endProbation(forgetting: []) }
    }

    /// The entry `id` left the quarantine without running (dropped, or a lifecycle handler's, which runs at the next
    /// start).
    func dropped(_ id: Int64) async {
        do {
            _ = try await drop(id)
        } catch {
            log.warning("could not take entry \(id) out of the quarantine: \(error)")
        }
    }

    /// The bot is live and its work so far is done: suspects that did not come back are forgotten and the bot
    /// runs handlers concurrently again. A suspect that still has its turn (its code runs past its timeout, in its
    /// grace) stays one until the turn ends.
    func endProbationIfOn() async {
        let running = Set(turns.withLock { $0.values.filter(\.hasTurn).map(\.key) })
        let left = rules.withLock { $0.isOnProbation ? $0.endProbation(keeping: running) : nil }
        guard let left else { return }
        if !left.isEmpty {
            do {
                try await store.clearCrashSuspects(left)
            } catch {
                log.warning("could not clear the crash suspects that did not come back: \(error)")
            }
        }
        endProbation(forgetting: left)
    }

    private func endProbation(forgetting left: [String]) {
        if !left.isEmpty {
            log.info("crash suspects that did not come back are forgotten", ["suspects": left.joined(separator: ",")])
        }
        log.info("probation over: handlers run concurrently again")
        dispatcher.limitConcurrency(to: nil)
    }

    /// `onReady` is queued, after the connection's sync: entries whose retry was asked for while the bot was not
    /// running go to their handlers, and once everything the sync brought is admitted (`admitted` returns when what
    /// was submitted so far is) and handled, a probation ends.
    func readyEnqueued(admitted: @escaping @Sendable () async -> Void) {
        let first = readyCount.add(1, ordering: .relaxed).newValue == 1
        let onProbation = rules.withLock { $0.isOnProbation }
        guard first || onProbation else { return }
        readyWork.withLock { work in
            let number = work.next
            work.next += 1
            work.tasks[number] = Task(executorPreference: SessionExecutor.preferred) { [self] in
                await carryOutReady(first: first, onProbation: onProbation, admitted: admitted)
                _ = readyWork.withLock { $0.tasks.removeValue(forKey: number) }
            }
        }
    }

    /// Ends the work `readyEnqueued` started, when the session begins to stop (before its admission and handlers
    /// stop, which would let that work think everything was handled): it reads and writes nothing more, so a
    /// probation the stop interrupts goes on at the next start with its suspects. A suspect's grace ends now, not at
    /// its end or the shutdown's deadline: nothing is left to protect once the session stops.
    func stop() {
        isStopping.store(true, ordering: .releasing)
        let tasks = readyWork.withLock { work in
            defer { work.tasks = [:] }
            return Array(work.tasks.values)
        }
        for task in tasks { task.cancel() }
        let open = turns.withLock { Array($0.values) }
        for turn in open { handle(.stopping, of: turn) }
    }

    /// The session tears down, its handlers abandoned, before its store closes: the suspects' turns that have not
    /// ended end now (the timer of a grace stops with the session), those suspects stay suspected for the next
    /// start, and a pass that comes later records nothing.
    func close() {
        isClosed.store(true, ordering: .releasing)
        let open = turns.withLock { Array($0.values) }
        for turn in open { handle(.stopped, of: turn) }
    }

    private func carryOutReady(first: Bool, onProbation: Bool, admitted: @escaping @Sendable () async -> Void) async {
        if first, !isStopping.load(ordering: .acquiring) {
            do {
                for entry in try await store.quarantined() where entry.retryRequested { retry(entry) }
            } catch {
                log.warning("could not read the quarantine for retries: \(error)")
            }
        }
        if onProbation {
            // Handled work can admit more (a gap's fetch): settled once both are idle after one another.
            repeat {
                await admitted()
                await dispatcher.waitUntilIdle()
                await admitted()
            } while !dispatcher.isIdle && !isStopping.load(ordering: .acquiring)
            // A session that stops ends no probation: its work was left for the next start, not handled.
            guard !isStopping.load(ordering: .acquiring) else { return }
            await endProbationIfOn()
        }
    }

    /// Queues the retry of a quarantined entry, in the events lane, unless its retry is already queued or running.
    func retry(_ entry: QuarantineEntry) {
        guard retrying.withLock({ $0.insert(entry.id).inserted }) else { return }
        dispatcher.enqueue(.retry(entry), in: .events)
    }

    /// The retry of entry `id` ran (or was given up): a later request queues it again.
    func retryFinished(_ id: Int64) {
        _ = retrying.withLock { $0.remove(id) }
    }

    /// Forgets the entry `id`; returns whether there was one.
    func drop(_ id: Int64) async throws(BotStoreError) -> Bool {
        let dropped = try await store.dropQuarantined(id)
        if dropped { await reread() }
        return dropped
    }

    /// Reads the quarantine again after it changed (an entry added, dropped, retried, or asked to be retried).
    func reread() async {
        do {
            quarantineChanged(try await store.quarantined())
        } catch {
            log.warning("could not read the quarantine: \(error)")
        }
    }

    /// The entries counted in the bot's status, and the keys later work is passed over for.
    private func quarantineChanged(_ entries: [QuarantineEntry]) {
        rules.withLock { $0.quarantineChanged(entries) }
        metrics.quarantined.store(entries.count, ordering: .relaxed)
    }

    /// The bookkeeping that quarantines `suspect`, logged at error level.
    func report(_ suspect: CrashSuspect) {
        log.error(
            "\(suspect.handler) was running each of the last \(suspect.attempts) times the process died: quarantined, "
                + "not run again (see `quarantine list`); the bot goes on with its next work",
            trace: suspect.trace, ["handler": suspect.handler, "work": suspect.key, "summary": suspect.summary])
        metrics.setLastError("quarantined \(suspect.handler) (trace \(suspect.trace)) after \(suspect.attempts) crashes")
    }

    /// A quarantine was committed: counts it and stops the bot when it has had too many within the hour.
    func quarantineCommitted() async {
        await reread()
        let count: Int
        do {
            count = try await store.quarantinedCount(since: clock.now.addingTimeInterval(-3600))
        } catch {
            log.warning("could not count the quarantine: \(error)")
            return
        }
        if let reason = rules.withLock({ $0.tooManyQuarantines(count) }) { onCrashing(reason) }
    }
}

/// How many crashes set work aside, and how many quarantines in an hour stop a bot (`quarantine` in bots.json).
public struct QuarantineSettings: Sendable, Hashable, Codable {
    /// The crashes a piece of work may cause before it is quarantined. Default 2.
    public var attempts: Int
    /// Quarantines within an hour beyond which the bot is stopped as crashing. Default 5.
    public var maxPerHour: Int

    public init(attempts: Int = 2, maxPerHour: Int = 5) {
        self.attempts = attempts
        self.maxPerHour = maxPerHour
    }

    public static let `default` = QuarantineSettings()
}
