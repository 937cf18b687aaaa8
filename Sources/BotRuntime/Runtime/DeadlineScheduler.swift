import ChatterBots
import Foundation
import Synchronization
import WebSocket

/// The one timer of a session: keeps its deadlines in a `DeadlineSchedule` and runs each one's action when it is
/// due on the session's clock. One waker waits for the earliest deadline and runs what is due, then waits for the
/// next; it is replaced when a deadline earlier than the one it waits for is scheduled (an alarm also when its
/// deadline is rescheduled later), and there is none while nothing is scheduled. On the real clock with an event
/// loop as executor, the waker is an alarm of the loop (no task: an idle bot's heartbeat costs a timer of the loop);
/// otherwise it is a task that sleeps on the clock (a virtual clock's sleeps are what tests advance). Actions run in deadline order: they must be short and must not
/// wait (post an input, add a task to a connection's scope).
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
        /// The waker and the deadline it waits for.
        var timer: (id: UInt64, deadline: Date, waker: Waker)?
        var nextTimerID: UInt64 = 0
        var isStopped = false
    }

    /// What waits for the earliest deadline.
    private enum Waker {
        case task(Task<Void, Never>)
        case alarm(EventLoopAlarm)

        func cancel() {
            switch self {
            case .task(let task): task.cancel()
            case .alarm(let alarm): alarm.cancel()
            }
        }
    }

    /// The longest an alarm waits before the wall clock is read again (a wall-clock jump is noticed by then).
    private static var longestAlarm: TimeInterval { 3_600 }

    private let state = Mutex(State())
    private let clock: any ChatterClock
    private let executor: (any TaskExecutor)?
    /// Whether deadlines may wait on alarms of the executor's event loop: on the real clock only.
    private let mayUseAlarms: Bool

    /// A scheduler on `clock` whose actions run where the session's tasks run: on `executor` (the session's).
    package init(clock: any ChatterClock, executor: (any TaskExecutor)? = SessionExecutor.preferred) {
        self.clock = clock
        self.executor = executor
        self.mayUseAlarms = clock is SystemClock && executor != nil
    }

    /// Runs `action` once `deadline` has passed on the clock, replacing what `key` had scheduled.
    package func schedule(_ key: Key, at deadline: Date, _ action: @escaping @Sendable () -> Void) {
        let replaced = state.withLock { state -> Waker? in
            guard !state.isStopped else { return nil }
            state.schedule.schedule(key, at: deadline)
            state.actions[key] = action
            guard let earliest = state.schedule.earliest else { return nil }
            if let timer = state.timer {
                // A task keeps waiting for an earlier deadline than needed (it then sleeps on); an alarm is cheaper
                // moved than rung for nothing (a heartbeat's pong deadline, gone once the pong came).
                let isAlarm = if case .alarm = timer.waker { true } else { false }
                if timer.deadline == earliest || (timer.deadline < earliest && !isAlarm) { return nil }
            }
            let replaced = state.timer?.waker
            startTimer(until: earliest, in: &state)
            return replaced
        }
        replaced?.cancel()
    }

    /// Removes `key`'s deadline; its action does not run. The waker wakes at the deadline it had and waits on: a
    /// cancelled deadline costs no new waker.
    package func cancel(_ key: Key) {
        state.withLock { state in
            state.schedule.cancel(key)
            state.actions[key] = nil
        }
    }

    /// The deadline the waker waits for, if one waits.
    package var wakerDeadline: Date? {
        state.withLock { $0.timer?.deadline }
    }

    /// The deadline `key` has, if any.
    package func deadline(of key: Key) -> Date? {
        state.withLock { $0.schedule.deadline(of: key) }
    }

    /// Drops every deadline and ends the waker; later `schedule` calls do nothing.
    package func stop() {
        let waker = state.withLock { state -> Waker? in
            state.isStopped = true
            state.schedule = DeadlineSchedule()
            state.actions = [:]
            return state.timer.take()?.waker
        }
        waker?.cancel()
    }

    private func startTimer(until deadline: Date, in state: inout State) {
        state.nextTimerID += 1
        let id = state.nextTimerID
        if mayUseAlarms, let executor {
            let delay = min(max(deadline.timeIntervalSince(clock.now), 0), Self.longestAlarm)
            if let alarm = EventLoopAlarm(on: executor, in: .seconds(delay), { [self] in alarmRang(id) }) {
                state.timer = (id, deadline, .alarm(alarm))
                return
            }
        }
        let task = Task(executorPreference: executor) { await self.runTimer(id, until: deadline) }
        state.timer = (id, deadline, .task(task))
    }

    /// The alarm `id` rang: runs what is due, then waits for the next deadline with a new waker.
    private func alarmRang(_ id: UInt64) {
        let now = clock.now
        let due = state.withLock { state -> [@Sendable () -> Void]? in
            guard state.timer?.id == id else { return nil }
            return state.schedule.takeDue(at: now).compactMap { state.actions.removeValue(forKey: $0) }
        }
        guard let due else { return }
        // As on a task of the session: what the actions start prefers the session's executor too.
        SessionExecutor.$preferred.withValue(executor) {
            for action in due { action() }
        }
        state.withLock { state in
            guard state.timer?.id == id else { return }
            state.timer = nil
            if let earliest = state.schedule.earliest { startTimer(until: earliest, in: &state) }
        }
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
