import Synchronization

/// Lets one suspect (work a crash caught before) run at a time in the whole process, so that when the process
/// dies again, the one suspect running is the one to blame, and no innocent suspect is counted twice.
package final class SuspectGate: Sendable {
    private struct State {
        var isHeld = false
        /// In arrival order; resumed with true when handed the gate, false when their task was cancelled first.
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter: UInt64 = 0
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

    /// Waits for the gate, then holds it until `leave()`; false, holding nothing, when the task was cancelled
    /// while it waited.
    @discardableResult
    func enter() async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (entered, watchers) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    guard state.isHeld else {
                        state.isHeld = true
                        return (true, [])
                    }
                    guard !Task.isCancelled else { return (false, []) }
                    state.waiters.append((id, continuation))
                    let count = state.waiters.count
                    defer { state.watchers.removeAll { $0.count <= count } }
                    return (nil, state.watchers.filter { $0.count <= count }.map(\.continuation))
                }
                for watcher in watchers { watcher.resume() }
                if let entered { continuation.resume(returning: entered) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }

    /// Whether no suspect holds the gate or waits for it (for tests).
    var isFree: Bool { state.withLock { !$0.isHeld && $0.waiters.isEmpty } }
}
