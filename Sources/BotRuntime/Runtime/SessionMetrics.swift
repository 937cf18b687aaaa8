import ChatterBots
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
    /// Messages in and out per minute over the last hour, on `clock`.
    private let rate = Mutex(MessageRateHistory())
    private let clock: any ChatterClock

    init(clock: any ChatterClock) {
        self.clock = clock
    }

    func countIn(_ count: Int = 1) {
        messagesIn.add(count, ordering: .relaxed)
        recordRate(count)
    }

    func countOut(_ count: Int = 1) {
        messagesOut.add(count, ordering: .relaxed)
        recordRate(count)
    }

    private func recordRate(_ count: Int) {
        guard count > 0 else { return }
        let now = clock.now
        rate.withLock { $0.record(count, at: now) }
    }

    /// Messages in and out per minute over the last hour, oldest first.
    var messagesPerMinute: [Int] {
        let now = clock.now
        return rate.withLock { $0.perMinute(at: now) }
    }
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
