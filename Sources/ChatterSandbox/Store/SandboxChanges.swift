import Synchronization

/// Tells observers that the sandbox's state changed: a write transaction committed, or a device's socket opened or
/// closed. For tests that wait for a state of the sandbox (a reply stored, a watermark moved, a device connected)
/// instead of polling it. With nobody observing, a change costs a lock and an empty loop.
package final class SandboxChanges: Sendable {
    /// Ends an observation.
    package struct Observation: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct State {
        var observers: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Calls `observer` after each change from now on (on the thread that made the change: keep it short).
    package func observe(_ observer: @escaping @Sendable () -> Void) -> Observation {
        state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = observer
            return Observation(id: state.nextID)
        }
    }

    package func stopObserving(_ observation: Observation) {
        _ = state.withLock { $0.observers.removeValue(forKey: observation.id) }
    }

    /// The sandbox's state changed.
    func noteChange() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer() }
    }
}
