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
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.version &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
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
    public func wait(
        until condition: () async throws -> Bool, _ what: @autoclosure () -> String, timeout: Duration = .hangGuard
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let alarm = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            signal()
        }
        defer { alarm.cancel() }
        while true {
            let seen = version
            if try await condition() { return }
            if ContinuousClock.now >= deadline { throw DeadlineExceeded(what(), timeout: timeout) }
            await waitForChange(after: seen)
            try Task.checkCancellation()
        }
    }
}
