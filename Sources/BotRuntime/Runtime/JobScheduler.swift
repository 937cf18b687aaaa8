import ChatterBots
import Foundation
import Synchronization

/// Fires a bot's scheduled jobs: sleeps on the clock until the earliest due job, claims what is due (after
/// downtime: everything that came due meanwhile, each once) and hands each occurrence to the dispatcher, one lane
/// per job. A claimed occurrence completes when its unit commits; until then it is not due again, and a crash
/// puts it back on the schedule (the store resets running jobs when it opens), so every job fires at least once.
final class JobScheduler: Sendable {
    private struct State {
        var loop: Task<Void, Never>?
        var isStopped = false
    }

    private let store: BotStore
    private let clock: any ChatterClock
    private let log: SessionLog
    private let dispatcher: HandlerDispatcher
    private let wakeSignal: WakeSignal
    private let state = Mutex(State())
    /// Occurrences claimed per look: the rest are claimed on the next one.
    private let claimLimit: Int

    init(store: BotStore, clock: any ChatterClock, log: SessionLog, dispatcher: HandlerDispatcher, claimLimit: Int = 64) {
        self.store = store
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
            state.loop = Task { await self.run() }
        }
    }

    /// The schedule changed (a job added, cancelled or completed): look again now.
    func wake() {
        wakeSignal.wake()
    }

    /// Stops firing jobs; claimed occurrences that did not run are scheduled again at the next start.
    func stop() {
        let loop = state.withLock { state -> Task<Void, Never>? in
            state.isStopped = true
            defer { state.loop = nil }
            return state.loop
        }
        loop?.cancel()
    }

    private func run() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let now = clock.now
                let claimed = try await store.claimDueJobs(at: now, limit: claimLimit)
                guard !Task.isCancelled else { return }
                for occurrence in claimed {
                    log.debug("job due", trace: HandlerWork.job(occurrence).trace, [
                        "job": occurrence.job.name, "dueAt": Timestamp(occurrence.dueAt).iso8601,
                    ])
                    dispatcher.enqueue(.job(occurrence), in: .job(occurrence.job.id))
                }
                failures = 0
                if claimed.count == claimLimit { continue }
                let next = try await store.nextDueDate()
                guard !Task.isCancelled else { return }
                await wakeSignal.wait(until: next)
            } catch {
                failures += 1
                log.error("could not read the schedule: \(error)")
                await wakeSignal.wait(until: clock.now.addingTimeInterval(TimeInterval(min(60, 1 << min(failures, 6)))))
            }
        }
    }
}
