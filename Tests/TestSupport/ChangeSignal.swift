import Synchronization

/// A condition variable for tests: whatever a test watches (a store, a bot's state, a handler's calls) calls
/// `signal()` when it changes, and `wait(until:)` re-checks its condition on each change instead of on a timer.
///
/// A change counts from the moment it is signalled: a wait reads the version before it checks its condition, so a
/// change between the check and the wait is never missed.
public final class ChangeSignal: Sendable {
    private struct State {
        var version: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many changes were signalled so far.
    public var version: UInt64 { state.withLock { $0.version } }

    /// Something changed: every waiting task looks again.
    public func signal() {
        signalled()
    }

    /// Signals a change and returns its version.
    @discardableResult
    private func signalled() -> UInt64 {
        let (version, waiters) = state.withLock { state -> (UInt64, [CheckedContinuation<Void, Never>]) in
            state.version &+= 1
            defer { state.waiters = [:] }
            return (state.version, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume() }
        return version
    }

    /// Returns once a change after `seen` was signalled, or the task is cancelled.
    public func waitForChange(after seen: UInt64) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.version == seen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Returns once `condition` holds, checking it now and after each change; throws `DeadlineExceeded` naming
    /// `what` when it still does not hold after `timeout` (a hang guard: it only bounds a wait that would hang).
    /// A condition that came to hold with no change signalled, found only by the check at the deadline, throws
    /// too: the test would otherwise pass after waiting the whole hang guard.
    public func wait(
        until condition: () async throws -> Bool, _ what: @autoclosure () -> String, timeout: Duration = .hangGuard
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let alarmVersion = Atomic<UInt64>(0)
        let alarm = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            alarmVersion.store(signalled(), ordering: .sequentiallyConsistent)
        }
        defer { alarm.cancel() }
        var seen = version
        while true {
            let woken = version
            if try await condition() {
                // The one change since the last check was the alarm's.
                let onlyTheAlarm = woken == seen &+ 1 && alarmVersion.load(ordering: .sequentiallyConsistent) == woken
                guard onlyTheAlarm else { return }
                throw DeadlineExceeded("\(what()), which held without a change signalled: signal that change", timeout: timeout)
            }
            if ContinuousClock.now >= deadline { throw DeadlineExceeded(what(), timeout: timeout) }
            await waitForChange(after: woken)
            try Task.checkCancellation()
            seen = woken
        }
    }
}
