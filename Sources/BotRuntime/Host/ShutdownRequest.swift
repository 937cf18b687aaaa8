import Synchronization

/// A one-way latch that asks a long-running command to stop: the signal handler (or a test) calls `request()`,
/// and everything awaiting `wait()` resumes, also those that start waiting afterwards.
public final class ShutdownRequest: Sendable {
    private struct State {
        var requested = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// A request not made yet.
    public init() {}

    /// Whether a stop was requested.
    public var isRequested: Bool { state.withLock { $0.requested } }

    /// Requests the stop; later calls do nothing.
    public func request() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.requested else { return [] }
            state.requested = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a stop is requested, or when the calling task is cancelled.
    public func wait() async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.requested || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
