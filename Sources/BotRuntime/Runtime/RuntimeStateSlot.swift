import Synchronization

/// One value the runtime keeps for itself under a global state key of its own namespace (the bot's friends, the
/// friend requests it ignored): read once at start, then written after each change, the latest change last.
///
/// Writers number their changes; a write that finds a newer one stored or under way does nothing, so concurrent
/// changes never leave an older value in the store.
final class RuntimeStateSlot<Value: Codable & Sendable>: Sendable {
    private struct State {
        var pending: (version: Int, value: Value)?
        var writtenVersion = Int.min
        var isWriting = false
    }

    private let key: String
    private let name: String
    private let store: BotStore
    private let log: SessionLog
    private let state = Mutex(State())

    /// - Parameter name: what the value is, for log lines ("the friends list").
    init(key: String, name: String, store: BotStore, log: SessionLog) {
        self.key = key
        self.name = name
        self.store = store
        self.log = log
    }

    /// The stored value, nil on a new store. A value that cannot be decoded is logged and read as nil: the runtime
    /// rebuilds it rather than refusing to start.
    func load() async throws(BotStoreError) -> Value? {
        do {
            return try await store.value(Value.self, forKey: key, in: .global)
        } catch {
            guard case .undecodableValue = error else { throw error }
            log.warning("\(name) stored under \(key) cannot be read (\(error)); it is started afresh")
            return nil
        }
    }

    /// Stores `value`, the state after change number `version`, unless a later change is stored or being stored.
    func write(_ value: Value, version: Int) async {
        let mustWrite = state.withLock { state -> Bool in
            if version > max(state.writtenVersion, state.pending?.version ?? Int.min) {
                state.pending = (version, value)
            }
            guard !state.isWriting, state.pending != nil else { return false }
            state.isWriting = true
            return true
        }
        guard mustWrite else { return }
        while let (version, value) = state.withLock({ state -> (Int, Value)? in
            guard let next = state.pending else {
                state.isWriting = false
                return nil
            }
            state.pending = nil
            return next
        }) {
            do {
                try await store.setValue(value, forKey: key, in: .global)
            } catch {
                log.warning("could not store \(name): \(error)")
            }
            state.withLock { $0.writtenVersion = version }
        }
    }
}
