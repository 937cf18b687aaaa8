import ChatterBots
import Foundation
import Synchronization

/// Fires a bot's scheduled jobs: waits until the earliest due job (a deadline on the session's
/// `DeadlineScheduler`, or a change of the schedule), claims what is due (after
/// downtime: everything that came due meanwhile, each once) and hands each occurrence to the dispatcher, one lane
/// per job. A claimed occurrence completes when its unit commits; until then it is not due again, and a crash
/// puts it back on the schedule (the store resets running jobs when it opens), so every job fires at least once.
final class JobScheduler: Sendable {
    /// Where the scheduler's loop is, so that `waitUntilCaughtUp` can tell whether every job due at an instant
    /// has been handed to the dispatcher.
    private enum Phase {
        case notStarted
        /// Claiming due jobs (or about to, after a wake-up).
        case looking
        /// Waiting until this date (nil: until woken) with nothing due before it.
        case waiting(until: Date?)
        case stopped
    }

    private struct State {
        var loop: Task<Void, Never>?
        var isStopped = false
        var phase = Phase.notStarted
        var caughtUpWaiters: [(instant: Date, continuation: CheckedContinuation<Void, Never>)] = []

        func isCaughtUp(with instant: Date) -> Bool {
            switch phase {
            case .notStarted, .looking: false
            case .waiting(let until): until.map { $0 > instant } ?? true
            case .stopped: true
            }
        }

        /// Moves to `phase` and takes the waiters it satisfies.
        mutating func enter(_ next: Phase) -> [CheckedContinuation<Void, Never>] {
            if case .stopped = phase { return [] }
            phase = next
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [(instant: Date, continuation: CheckedContinuation<Void, Never>)] = []
            for waiter in caughtUpWaiters {
                if isCaughtUp(with: waiter.instant) { ready.append(waiter.continuation) } else { waiting.append(waiter) }
            }
            caughtUpWaiters = waiting
            return ready
        }
    }

    private let store: BotStore
    private let clock: any ChatterClock
    private let log: SessionLog
    private let dispatcher: HandlerDispatcher
    private let wakeSignal: WakeSignal
    private let timers: DeadlineScheduler<SessionDeadline>
    private let state = Mutex(State())
    /// Occurrences claimed per look: the rest are claimed on the next one.
    private let claimLimit: Int

    init(
        store: BotStore, clock: any ChatterClock, log: SessionLog, dispatcher: HandlerDispatcher,
        timers: DeadlineScheduler<SessionDeadline>, claimLimit: Int = 64
    ) {
        self.store = store
        self.timers = timers
        self.clock = clock
        self.log = log
        self.dispatcher = dispatcher
        self.claimLimit = claimLimit
        self.wakeSignal = WakeSignal(clock: clock)
    }

    /// Starts watching the schedule.
    func start() {
        state.withLock { state in
            guard state.loop == nil, !state.isStopped else { return }
            state.loop = Task(executorPreference: SessionExecutor.preferred) { await self.run() }
        }
    }

    /// The schedule changed (a job added, cancelled or completed): look again now.
    func wake() {
        state.withLock { state in
            if case .waiting = state.phase { state.phase = .looking }
        }
        wakeSignal.wake()
    }

    /// Returns once every job due at the clock's current instant has been claimed and handed to the dispatcher
    /// (or the scheduler stopped). Not before the scheduler has started.
    func waitUntilCaughtUp() async {
        let instant = clock.now
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let caughtUp = state.withLock { state -> Bool in
                if state.isCaughtUp(with: instant) { return true }
                state.caughtUpWaiters.append((instant, continuation))
                return false
            }
            if caughtUp { continuation.resume() }
        }
    }

    /// Whether every job due at the clock's current instant has been handed to the dispatcher.
    var isCaughtUp: Bool {
        let instant = clock.now
        return state.withLock { $0.isCaughtUp(with: instant) }
    }

    private func enter(_ phase: Phase) {
        let ready = state.withLock { $0.enter(phase) }
        for waiter in ready { waiter.resume() }
    }

    /// Stops firing jobs; claimed occurrences that did not run are scheduled again at the next start.
    func stop() {
        let (loop, waiters) = state.withLock { state -> (Task<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            state.isStopped = true
            defer { state.loop = nil }
            return (state.loop, state.enter(.stopped))
        }
        loop?.cancel()
        timers.cancel(.jobs)
        for waiter in waiters { waiter.resume() }
    }

    private func run() async {
        var failures = 0
        while !Task.isCancelled {
            enter(.looking)
            do {
                let now = clock.now
                // Looked up before claiming: most bots have nothing due, most of the time none scheduled at all, and
                // the claim (a write) compiles and runs a statement several times costlier than this look.
                var next = try await store.nextDueDate()
                if let due = next, due <= now {
                    let claimed = try await store.claimDueJobs(at: now, limit: claimLimit)
                    guard !Task.isCancelled else { return }
                    for occurrence in claimed {
                        log.debug("job due", trace: HandlerWork.job(occurrence).trace, [
                            "job": occurrence.job.name, "dueAt": Timestamp(occurrence.dueAt).iso8601,
                        ])
                        dispatcher.enqueue(.job(occurrence), in: .job(occurrence.job.id))
                    }
                    if claimed.count == claimLimit {
                        failures = 0
                        continue
                    }
                    next = try await store.nextDueDate()
                }
                failures = 0
                guard !Task.isCancelled else { return }
                enter(.waiting(until: next))
                await wait(until: next)
            } catch {
                failures += 1
                log.error("could not read the schedule: \(error)")
                let retry = clock.now.addingTimeInterval(TimeInterval(min(60, 1 << min(failures, 6))))
                enter(.waiting(until: retry))
                await wait(until: retry)
            }
        }
    }

    /// Waits for `wake()` or for `deadline` (nil: no deadline), whichever comes first.
    private func wait(until deadline: Date?) async {
        let signal = wakeSignal
        if let deadline {
            timers.schedule(.jobs, at: deadline) { signal.wake() }
        } else {
            timers.cancel(.jobs)
        }
        await signal.wait()
    }
}
