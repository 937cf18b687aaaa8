import ChatterBots
import Foundation

/// A snapshot of one bot for `/healthz` and `/metrics`: where its session is, since when, what went wrong last,
/// and its counters. Taken with `BotSession.status`.
public struct BotStatus: Sendable, Codable, Equatable {
    /// Where a bot's session is, in words an operator reads.
    public enum State: String, Sendable, Codable, Equatable {
        /// Created; `run()` not called yet or opening its store.
        case starting
        /// Signing in (token refresh or password login).
        case signingIn
        /// Opening the realtime connection and waiting for `session.ready`.
        case connecting
        /// Ready; refreshing over REST, syncing and resending the outbox.
        case synchronizing
        /// Connected and synchronized.
        case live
        /// Disconnected, waiting to reconnect (backoff, rate limit).
        case reconnecting
        /// `shutdown(deadline:)` is finishing the running work.
        case stopping
        /// `run()` returned; see `stopReason`.
        case stopped
        /// Stopped because its handlers kept crashing the process (`stopReason` says how to start it again).
        case crashing
    }

    /// The bot's configured name.
    public var name: String
    public var state: State
    /// Whether a realtime connection is ready (synchronizing or live).
    public var connected: Bool
    /// When `state` was entered, on the runtime's clock.
    public var since: Date
    /// The bot's account, once signed in.
    public var userId: User.ID?
    /// The last problem worth an operator's attention (a close code, a failed sign-in, a failed handler).
    public var lastError: String?
    /// Connections opened after the first one.
    public var reconnects: Int
    /// Incoming messages handed to handlers (after dedupe).
    public var messagesIn: Int
    /// Messages the service acknowledged.
    public var messagesOut: Int
    /// Outbox entries waiting for their acknowledgement.
    public var outboxDepth: Int
    /// Outbox entries failed unsent because they outlived the service's idempotency window (a resend could
    /// have duplicated them).
    public var messagesExpired: Int
    /// When the bot first went live in this run; nil until then (`/readyz` waits for it).
    public var firstLiveAt: Date?
    /// Handler work in the bot's quarantine: it crashed the process too many times (`docs/quarantine.md`).
    public var quarantined: Int
    /// How long handlers took.
    public var handlerLatency: HandlerLatencySummary
    /// Why the bot stopped, once `state` is `.stopped`.
    public var stopReason: String?
    /// While `state` is `.reconnecting` and a reconnect is scheduled: when it is due (the end of the backoff or the
    /// rate limit).
    public var reconnectAt: Date?

    public init(
        name: String, state: State, connected: Bool, since: Date, userId: User.ID?, lastError: String?, reconnects: Int,
        messagesIn: Int, messagesOut: Int, outboxDepth: Int, handlerLatency: HandlerLatencySummary, stopReason: String?,
        messagesExpired: Int = 0, quarantined: Int = 0, firstLiveAt: Date? = nil
    ) {
        self.firstLiveAt = firstLiveAt
        self.quarantined = quarantined
        self.name = name
        self.state = state
        self.connected = connected
        self.since = since
        self.userId = userId
        self.lastError = lastError
        self.reconnects = reconnects
        self.messagesIn = messagesIn
        self.messagesOut = messagesOut
        self.outboxDepth = outboxDepth
        self.messagesExpired = messagesExpired
        self.handlerLatency = handlerLatency
        self.stopReason = stopReason
    }
}

/// A histogram of handler durations with fixed buckets, ready for Prometheus (`le` buckets) and JSON.
public struct HandlerLatencySummary: Sendable, Codable, Equatable {
    /// The upper bounds of the buckets, in seconds; a last, unbounded bucket (`+Inf`) follows them.
    public static let bucketBounds: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    /// Handler calls measured.
    public var count: Int
    /// Their total duration, in seconds.
    public var sumSeconds: Double
    /// The longest, in seconds.
    public var maxSeconds: Double
    /// Calls per bucket (not cumulative): `bucketBounds.count + 1` values, the last for `+Inf`.
    public var bucketCounts: [Int]

    /// An empty histogram.
    public init() {
        count = 0
        sumSeconds = 0
        maxSeconds = 0
        bucketCounts = Array(repeating: 0, count: Self.bucketBounds.count + 1)
    }

    /// Counts one call that took `seconds`.
    public mutating func record(seconds: Double) {
        let value = max(0, seconds)
        count += 1
        sumSeconds += value
        maxSeconds = max(maxSeconds, value)
        let index = Self.bucketBounds.firstIndex { value <= $0 } ?? Self.bucketBounds.count
        bucketCounts[index] += 1
    }

    /// Adds the calls `other` counted to these: the histogram of both sets of calls.
    package mutating func add(_ other: HandlerLatencySummary) {
        count += other.count
        sumSeconds += other.sumSeconds
        maxSeconds = max(maxSeconds, other.maxSeconds)
        for index in bucketCounts.indices where index < other.bucketCounts.count {
            bucketCounts[index] += other.bucketCounts[index]
        }
    }

    /// The running totals per bucket, as Prometheus' `le` buckets count them (the last equals `count`).
    public var cumulativeCounts: [Int] {
        var total = 0
        return bucketCounts.map { count in
            total += count
            return total
        }
    }
}
