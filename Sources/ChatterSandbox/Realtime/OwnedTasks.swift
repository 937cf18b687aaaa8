import Synchronization

/// The tasks a socket owns (delayed acks, its token-expiry timer): each leaves the set when it finishes, so the
/// set holds only what is still pending however many tasks a long-lived socket starts, and `cancelAll` (the
/// socket closed) cancels those and refuses new ones.
final class OwnedTasks: Sendable {
    private struct State {
        var running: [Int: Task<Void, Never>] = [:]
        var nextID = 0
        var isClosed = false
    }

    private let state = Mutex(State())

    /// How many tasks are still running.
    var count: Int { state.withLock { $0.running.count } }

    /// Starts `body` unless the owner is gone, and says whether it did; the task removes itself when it ends.
    @discardableResult
    func spawn(_ body: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            let id = state.nextID
            state.nextID += 1
            // Registered under the lock the task's own removal takes, so the removal always comes after it.
            state.running[id] = Task {
                await body()
                self.finished(id)
            }
            return true
        }
    }

    /// Cancels every running task; later `spawn`s do nothing.
    func cancelAll() {
        let running = state.withLock { state in
            state.isClosed = true
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
    }

    private func finished(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }
}
