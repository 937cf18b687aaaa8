import Synchronization

/// Lets one suspect (work a crash caught before) run at a time in the whole process, so that when the process
/// dies again, the one suspect running is the one to blame, and no innocent suspect is counted twice.
package final class SuspectGate: Sendable {
    private struct State {
        var isHeld = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// How many suspects wait for the gate.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Waits for the gate, then holds it until `leave()`.
    func enter() async {
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state -> Bool in
                guard state.isHeld else {
                    state.isHeld = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
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
