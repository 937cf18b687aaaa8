import Foundation

/// The heartbeat of one realtime connection, as the seed specifies it: a `ping` every `heartbeatIntervalMs`
/// (25 s by default) from `session.ready`; no `pong` within 10 s of a ping means the connection is dead.
/// It also warns when this client has sent nothing for long enough that the server's 60 s idle close is near
/// (a ping that could not go out, say).
///
/// A plain value: events in, actions out, time passed in with every event. The owner wakes at `nextDeadline`
/// and reports `.tick(now:)`. Use one monitor per connection (or send `.ready` again for a new one).
package struct HeartbeatMonitor: Sendable {
    /// The ping interval when the server does not give a usable one.
    public static let defaultInterval: Duration = .seconds(25)
    /// The shortest ping interval taken from the server: a smaller one (a typo, a unit mistake: 25 for 25,000 ms)
    /// would flood it with pings and earn a rate-limit close.
    public static let minimumInterval: Duration = .seconds(1)
    /// How long a ping may wait for its pong before the connection counts as dead.
    public static let defaultPongTimeout: Duration = .seconds(10)
    /// How long the server keeps a connection on which the client sends nothing.
    public static let defaultServerIdleTimeout: Duration = .seconds(60)

    /// What happened on the connection, with the time it happened.
    public enum Event: Sendable, Equatable {
        /// `session.ready` arrived; `interval` is its `heartbeatIntervalMs` (nil or not positive: the default; below
        /// `minimumInterval`: that).
        case ready(interval: Duration?, now: Date)
        /// The `ping` frame asked for by `.sendPing` was written to the socket.
        case pingSent(now: Date)
        /// A `pong` frame arrived.
        case pongReceived(now: Date)
        /// Any other frame was written to the socket (it also counts as traffic for the server's idle timer).
        case trafficSent(now: Date)
        /// Any other frame arrived. It shows data flows but does not replace the pong the seed asks for.
        case trafficReceived(now: Date)
        /// The owner woke at (or after) `nextDeadline`.
        case tick(now: Date)
    }

    /// What the owner must do.
    public enum Action: Sendable, Equatable {
        /// Send a `ping` frame now, then report `.pingSent`.
        case sendPing
        /// No `pong` came within the pong timeout of the ping sent at `pingSentAt`: drop the connection and reconnect.
        case connectionDead(pingSentAt: Date)
        /// Nothing was sent since `lastSentAt`; the server closes silent connections after its idle timeout,
        /// which is now less than a pong timeout away. Reported once per silence.
        case idleCloseLikely(lastSentAt: Date)
    }

    /// How long a ping may wait for its pong.
    public let pongTimeout: Duration
    /// The server's idle timeout the monitor guards against.
    public let serverIdleTimeout: Duration
    /// The ping interval in force (from the last `.ready`).
    public private(set) var interval: Duration = HeartbeatMonitor.defaultInterval
    /// Whether the connection was declared dead; a dead monitor is silent until the next `.ready`.
    public private(set) var isDead = false
    /// When the last frame arrived from the server (pong or other), for diagnostics.
    public private(set) var lastReceivedAt: Date?

    /// Whether a ping sent waits for its pong.
    public var awaitsPong: Bool { isRunning && oldestUnansweredPingAt != nil }

    private var isRunning = false
    private var nextPingAt: Date?
    private var pingRequested = false
    private var oldestUnansweredPingAt: Date?
    private var lastSentAt: Date?
    private var idleWarned = false

    /// Creates a monitor that waits for `.ready` before pinging.
    public init(
        pongTimeout: Duration = HeartbeatMonitor.defaultPongTimeout,
        serverIdleTimeout: Duration = HeartbeatMonitor.defaultServerIdleTimeout
    ) {
        self.pongTimeout = pongTimeout
        self.serverIdleTimeout = serverIdleTimeout
    }

    /// When the owner must report `.tick` next: the pong deadline, the next ping or the idle warning,
    /// whichever is first; nil before `.ready` and once dead.
    public var nextDeadline: Date? {
        guard isRunning else { return nil }
        var deadlines: [Date] = []
        if let ping = oldestUnansweredPingAt { deadlines.append(ping.adding(pongTimeout)) }
        if !pingRequested, let nextPingAt { deadlines.append(nextPingAt) }
        if let idleWarningAt { deadlines.append(idleWarningAt) }
        return deadlines.min()
    }

    /// When silence on our side makes the server's idle close likely: one pong timeout before it.
    private var idleWarningAt: Date? {
        guard !idleWarned, let lastSentAt else { return nil }
        return lastSentAt.adding(serverIdleTimeout - pongTimeout)
    }

    /// Applies `event` and returns what to do, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .ready(let serverInterval, let now):
            let usable = serverInterval.flatMap { $0 > .zero ? $0 : nil }
            self = HeartbeatMonitor(pongTimeout: pongTimeout, serverIdleTimeout: serverIdleTimeout)
            interval = max(usable ?? Self.defaultInterval, Self.minimumInterval)
            isRunning = true
            nextPingAt = now.adding(interval)
            lastSentAt = now
            lastReceivedAt = now
            return []
        case .pingSent(let now):
            guard isRunning else { return [] }
            if oldestUnansweredPingAt == nil { oldestUnansweredPingAt = now }
            pingRequested = false
            nextPingAt = now.adding(interval)
            noteSent(at: now)
            return []
        case .pongReceived(let now):
            guard isRunning else { return [] }
            oldestUnansweredPingAt = nil
            lastReceivedAt = now
            return []
        case .trafficSent(let now):
            guard isRunning else { return [] }
            noteSent(at: now)
            return []
        case .trafficReceived(let now):
            guard isRunning else { return [] }
            lastReceivedAt = now
            return []
        case .tick(let now):
            return tick(now: now)
        }
    }

    private mutating func noteSent(at now: Date) {
        lastSentAt = max(lastSentAt ?? now, now)
        idleWarned = false
    }

    private mutating func tick(now: Date) -> [Action] {
        guard isRunning else { return [] }
        if let ping = oldestUnansweredPingAt, now >= ping.adding(pongTimeout) {
            isRunning = false
            isDead = true
            return [.connectionDead(pingSentAt: ping)]
        }
        var actions: [Action] = []
        if !pingRequested, let nextPingAt, now >= nextPingAt {
            pingRequested = true
            actions.append(.sendPing)
        }
        if let idleWarningAt, now >= idleWarningAt, let lastSentAt {
            idleWarned = true
            actions.append(.idleCloseLikely(lastSentAt: lastSentAt))
        }
        return actions
    }
}
