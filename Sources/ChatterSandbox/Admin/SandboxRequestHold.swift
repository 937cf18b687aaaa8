import Synchronization

/// Requests to one endpoint kept unanswered until `release()` (`SandboxAdmin.holdRequests(to:)`), so that a test
/// can act while a client's request is known to be in flight.
package final class SandboxRequestHold: Sendable {
    private struct State {
        var isReleased = false
        var held: [CheckedContinuation<Void, Never>] = []
        var heldCount = 0
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// Returns once `count` requests in all have been held (at once when they already were).
    package func waitUntilHeld(count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                guard state.heldCount < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Lets the held requests go on to be answered, and every later one through.
    package func release() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isReleased = true
            defer { state.held = [] }
            return state.held
        }
        for request in held { request.resume() }
    }

    /// Waits until released; at once when already released.
    func hold() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (passes, reached) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard !state.isReleased else { return (true, []) }
                state.held.append(continuation)
                state.heldCount += 1
                let count = state.heldCount
                let reached = state.watchers.filter { $0.count <= count }.map(\.continuation)
                state.watchers.removeAll { $0.count <= count }
                return (false, reached)
            }
            for watcher in reached { watcher.resume() }
            if passes { continuation.resume() }
        }
    }
}
