import Synchronization
import WebSocket

/// A virtual clock for the deadlines of HTTP exchanges: its time moves only when the test calls `advance(by:)`,
/// which expires every deadline it reaches, so a test says exactly when an exchange's time is up, however long the
/// machine takes meanwhile.
package final class ManualDeadlineClock: HTTPDeadlineClock {
    private struct Deadline {
        var at: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    private struct State {
        var now: ContinuousClock.Instant
        var deadlines: [Deadline] = []
    }

    private let state = Mutex(State(now: .now))

    package init() {}

    package var now: ContinuousClock.Instant { state.withLock { $0.now } }

    package func schedule(at deadline: ContinuousClock.Instant, _ expire: @escaping @Sendable () -> Void) {
        let due = state.withLock { state -> Bool in
            guard deadline > state.now else { return true }
            state.deadlines.append(Deadline(at: deadline, expire: expire))
            return false
        }
        if due { expire() }
    }

    /// Moves time forward by `duration` and expires the deadlines reached on the way, earliest first, before it
    /// returns.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Deadline] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            defer { state.deadlines.removeAll { $0.at <= now } }
            return state.deadlines.filter { $0.at <= now }.sorted { $0.at < $1.at }
        }
        for deadline in due { deadline.expire() }
    }
}
