import Synchronization

/// Sleeping on the event loop that runs the caller. The timer is the loop's own (its `epoll_wait` timeout), so the
/// sleeper resumes on the loop's thread with no other thread woken; `Task.sleep` fires on a thread of the global
/// pool, which then has to wake the loop, a futex and an eventfd write for every timer of every bot.
package enum EventLoopSleep {
    /// Sleeps for `duration` on the current event loop and returns true; returns false at once when the caller runs
    /// on no event loop (then sleep some other way). A loop that stops ends the sleep early: callers re-read the time
    /// left, and sleep on elsewhere.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the time is up.
    package static func sleep(for duration: Duration) async throws -> Bool {
        guard let loop = EventLoop.current else { return false }
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let timer = loop.scheduleTimer(in: duration, firesOnStop: true) { sleeper.finish(nil) }
                sleeper.start(continuation, timer: timer)
            }
        } onCancel: {
            sleeper.finish(CancellationError())
        }
        return true
    }
}

/// A timer on the event loop behind a task executor: its work runs on the loop's thread at the deadline, with no
/// task, no continuation and no other thread involved. For a scheduler that keeps one wake-up for many deadlines.
package struct EventLoopAlarm: Sendable {
    private let timer: EventLoopTimer

    /// Runs `work` on the thread of `executor`'s loop once `delay` has passed, or when the loop stops first; never on
    /// the caller's stack. Nil, running nothing, when `executor` is not an event loop or its loop has stopped or
    /// closed: then wait some other way.
    package init?(on executor: any TaskExecutor, in delay: Duration, _ work: @escaping @Sendable () -> Void) {
        guard let loop = executor as? EventLoop else { return nil }
        self.init(on: loop, in: delay, work)
    }

    /// The same on the event loop that runs the caller; nil, running nothing, when the caller runs on no event loop.
    package init?(onCurrentLoopIn delay: Duration, _ work: @escaping @Sendable () -> Void) {
        guard let loop = EventLoop.current else { return nil }
        self.init(on: loop, in: delay, work)
    }

    private init?(on loop: EventLoop, in delay: Duration, _ work: @escaping @Sendable () -> Void) {
        guard !loop.isStopped, let timer = loop.scheduleTimerIfOpen(in: delay, work) else { return nil }
        self.timer = timer
    }

    /// Keeps the work from running if it has not run yet; the loop then does not wake for it.
    package func cancel() {
        timer.cancel()
    }

    /// How many alarms and other timers of `executor`'s loop are still to run; nil when it is not an event loop.
    /// For diagnostics and tests: a wake-up the loop will take.
    package static func pendingCount(on executor: any TaskExecutor) -> Int? {
        (executor as? EventLoop)?.liveTimerCount
    }
}

/// One sleep: its continuation and timer, resumed exactly once by whichever comes first (the timer, or the
/// cancellation, which may come before the continuation exists).
private final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var timer: EventLoopTimer?
        var isFinished = false
        var error: (any Error)?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Void, any Error>, timer: EventLoopTimer) {
        let finished = state.withLock { state -> (any Error)?? in
            guard state.isFinished else {
                state.continuation = continuation
                state.timer = timer
                return nil
            }
            return .some(state.error)
        }
        guard let finished else { return }
        timer.cancel()
        if let error = finished { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    func finish(_ error: (any Error)?) {
        let (continuation, timer) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, EventLoopTimer?) in
            guard !state.isFinished else { return (nil, nil) }
            state.isFinished = true
            state.error = error
            defer { (state.continuation, state.timer) = (nil, nil) }
            return (state.continuation, state.timer)
        }
        if let error {
            timer?.cancel()
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume()
        }
    }
}
