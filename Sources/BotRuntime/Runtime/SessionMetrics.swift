import Synchronization

/// The counters of one bot, updated from any task without a hop to the session actor.
final class SessionMetrics: Sendable {
    let messagesIn = Atomic<Int>(0)
    let messagesOut = Atomic<Int>(0)
    let reconnects = Atomic<Int>(0)
    let messagesExpired = Atomic<Int>(0)
    /// Entries in the bot's quarantine now.
    let quarantined = Atomic<Int>(0)
    private let latency = Mutex(HandlerLatencySummary())
    private let error = Mutex<String?>(nil)

    func countIn(_ count: Int = 1) { messagesIn.add(count, ordering: .relaxed) }
    func countOut(_ count: Int = 1) { messagesOut.add(count, ordering: .relaxed) }
    func countReconnect() { reconnects.add(1, ordering: .relaxed) }
    func countExpired() { messagesExpired.add(1, ordering: .relaxed) }

    func recordHandler(seconds: Double) {
        latency.withLock { $0.record(seconds: seconds) }
    }

    var handlerLatency: HandlerLatencySummary { latency.withLock { $0 } }

    /// The last problem worth reporting in `BotStatus.lastError`.
    var lastError: String? {
        get { error.withLock { $0 } }
    }

    func setLastError(_ text: String) {
        error.withLock { $0 = text }
    }
}
