import Synchronization

/// Lets one suspect (work a crash caught before) run at a time in the whole process, so that when the process
/// dies again, the one suspect running is the one to blame, and no innocent suspect is counted twice.
package final class SuspectGate: Sendable {
    private struct State {
        var isHeld = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Who waits for a number of waiters (`waitUntilWaiting(_:)`).
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Returns once `count` suspects wait for the gate (for tests).
    func waitUntilWaiting(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                guard state.waiters.count < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Waits for the gate, then holds it until `leave()`.
    func enter() async {
        await withCheckedContinuation { continuation in
            let (entered, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard state.isHeld else {
                    state.isHeld = true
                    return (true, [])
                }
                state.waiters.append(continuation)
                let count = state.waiters.count
                defer { state.watchers.removeAll { $0.count <= count } }
                return (false, state.watchers.filter { $0.count <= count }.map(\.continuation))
            }
            for watcher in watchers { watcher.resume() }
            if entered { continuation.resume() }
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
