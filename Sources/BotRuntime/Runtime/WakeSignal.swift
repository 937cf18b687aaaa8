import ChatterBots
import Foundation
import Synchronization

/// A wake-up call for one waiting task: `wait(until:)` returns when `wake()` is called, when the deadline passes on
/// the clock, or when the task is cancelled. A `wake()` with nobody waiting is kept for the next `wait`, so a
/// wake-up between "nothing to do" and "wait" is never lost.
final class WakeSignal: Sendable {
    private struct State {
        var isPending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let clock: any ChatterClock

    init(clock: any ChatterClock) {
        self.clock = clock
    }

    /// Wakes the waiting task, or the next one to wait.
    func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.isPending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Waits for `wake()`, for `deadline` (nil: no deadline) or for cancellation, whichever comes first.
    func wait(until deadline: Date? = nil) async {
        let id = state.withLock { state -> UInt64? in
            if state.isPending {
                state.isPending = false
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        let clock = clock
        let timer = deadline.map { deadline in
            Task(executorPreference: SessionExecutor.preferred) {
                try? await clock.sleep(until: deadline)
                self.resume(id)
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isPending {
                        state.isPending = false
                        return true
                    }
                    if id != state.nextID { return true }  // already resumed by the timer or a cancellation
                    state.waiter = (id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
        timer?.cancel()
    }

    /// Ends the wait `id` if it is still the current one.
    private func resume(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                // Not registered yet: make the registration see that this wait is over.
                if state.nextID == id { state.nextID += 1 }
                return nil
            }
            guard waiter.id == id else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }
}
