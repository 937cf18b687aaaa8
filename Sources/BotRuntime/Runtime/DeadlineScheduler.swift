import ChatterBots
import Foundation
import Synchronization

/// The one timer of a session: keeps its deadlines in a `DeadlineSchedule` and runs each one's action when it is
/// due on the session's clock. A single task sleeps until the earliest deadline and runs what is due, then sleeps
/// until the next; it is replaced only when a deadline earlier than the one it sleeps for is scheduled, and there
/// is none while nothing is scheduled. Actions run on that task, in deadline order: they must be short and must
/// not wait (post an input, add a task to a connection's scope).
///
/// ```swift
/// let timers = DeadlineScheduler<SessionDeadline>(clock: clock)
/// timers.schedule(.lifecycle, at: deadline) { inputs.yield(.lifecycleDue) }
/// timers.stop()   // when the session ends
/// ```
package final class DeadlineScheduler<Key: Hashable & Sendable>: Sendable {
    private struct State {
        var schedule = DeadlineSchedule<Key>()
        var actions: [Key: @Sendable () -> Void] = [:]
        /// The sleeping task and the deadline it sleeps for.
        var timer: (id: UInt64, deadline: Date, task: Task<Void, Never>)?
        var nextTimerID: UInt64 = 0
        var isStopped = false
    }

    private let state = Mutex(State())
    private let clock: any ChatterClock
    private let executor: (any TaskExecutor)?

    /// A scheduler on `clock` whose task prefers `executor` (the session's, so its actions run where the session's
    /// tasks run).
    package init(clock: any ChatterClock, executor: (any TaskExecutor)? = SessionExecutor.preferred) {
        self.clock = clock
        self.executor = executor
    }

    /// Runs `action` once `deadline` has passed on the clock, replacing what `key` had scheduled.
    package func schedule(_ key: Key, at deadline: Date, _ action: @escaping @Sendable () -> Void) {
        let replaced = state.withLock { state -> Task<Void, Never>? in
            guard !state.isStopped else { return nil }
            state.schedule.schedule(key, at: deadline)
            state.actions[key] = action
            if let timer = state.timer, timer.deadline <= deadline { return nil }
            let replaced = state.timer?.task
            startTimer(until: deadline, in: &state)
            return replaced
        }
        replaced?.cancel()
    }

    /// Removes `key`'s deadline; its action does not run. The sleeping task wakes at the deadline it had and
    /// sleeps on: a cancelled deadline costs no new task.
    package func cancel(_ key: Key) {
        state.withLock { state in
            state.schedule.cancel(key)
            state.actions[key] = nil
        }
    }

    /// The deadline `key` has, if any.
    package func deadline(of key: Key) -> Date? {
        state.withLock { $0.schedule.deadline(of: key) }
    }

    /// Drops every deadline and ends the task; later `schedule` calls do nothing.
    package func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.isStopped = true
            state.schedule = DeadlineSchedule()
            state.actions = [:]
            return state.timer.take()?.task
        }
        task?.cancel()
    }

    private func startTimer(until deadline: Date, in state: inout State) {
        state.nextTimerID += 1
        let id = state.nextTimerID
        let task = Task(executorPreference: executor) { await self.runTimer(id, until: deadline) }
        state.timer = (id, deadline, task)
    }

    /// Sleeps until `deadline`, runs what is due, and goes on with the next deadline while this is the timer.
    private func runTimer(_ id: UInt64, until first: Date) async {
        var deadline = first
        while true {
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            let now = clock.now
            let due = state.withLock { state -> [@Sendable () -> Void]? in
                guard state.timer?.id == id else { return nil }
                return state.schedule.takeDue(at: now).compactMap { state.actions.removeValue(forKey: $0) }
            }
            guard let due else { return }
            for action in due { action() }
            let next = state.withLock { state -> Date? in
                guard state.timer?.id == id else { return nil }
                guard let earliest = state.schedule.earliest else {
                    state.timer = nil
                    return nil
                }
                state.timer?.deadline = earliest
                return earliest
            }
            guard let next else { return }
            deadline = next
        }
    }
}
