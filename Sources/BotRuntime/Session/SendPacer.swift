import ChatterBots
import Foundation

/// Paces a bot's outgoing frames with a token bucket so that a busy bot does not trip the server's rate limit,
/// and pauses every send when the server rate-limits it anyway (a 4008 close or a 429).
///
/// A plain value with time passed in: the outbox asks `requestSend(now:)` before each frame and sleeps on the
/// injected clock until the instant it is given.
package struct SendPacer: Sendable {
    /// Bucket size and refill rate, as a bot's configuration gives them.
    public typealias Configuration = SendPacing

    /// The answer to "may I send now?".
    public enum Decision: Sendable, Equatable {
        /// Send now; a token was taken.
        case sendNow
        /// Ask again at this instant (nothing was taken).
        case waitUntil(Date)
    }

    /// The pacing in force.
    public let configuration: Configuration
    /// The end of a rate-limit pause, while one is in force or was the last one.
    public private(set) var pausedUntil: Date?

    private var tokens: Double
    private var updatedAt: Date?
    /// A token less than this far away counts as there: `Date` arithmetic rounds to about 0.1 µs, and a caller
    /// that slept exactly as told must be let through rather than sent back for a sub-microsecond wait.
    private static let tolerance: TimeInterval = 0.001

    /// Creates a pacer with a full bucket.
    public init(configuration: Configuration = .conservative) {
        self.configuration = configuration
        self.tokens = Double(configuration.burst)
    }

    /// Takes a token for one send at `now` if one is available and no pause is in force; otherwise says when
    /// to ask again.
    public mutating func requestSend(now: Date) -> Decision {
        if let pausedUntil, now < pausedUntil { return .waitUntil(pausedUntil) }
        refill(now: now)
        let wait = (1 - tokens) / configuration.sendsPerSecond
        if wait <= Self.tolerance {
            tokens = max(0, tokens - 1)
            return .sendNow
        }
        return .waitUntil(now.addingTimeInterval(wait))
    }

    /// The server rate-limited this device: no send goes before `now + retryAfter`. The bucket restarts with a
    /// single token then, so sending resumes at the sustained rate instead of with a burst.
    public mutating func rateLimited(retryAfter: Duration, now: Date) {
        let end = now.adding(max(retryAfter, .zero))
        let until = max(end, pausedUntil ?? end)
        pausedUntil = until
        tokens = 1
        updatedAt = until
    }

    private mutating func refill(now: Date) {
        guard let updatedAt else {
            updatedAt = now
            return
        }
        let elapsed = now.timeIntervalSince(updatedAt)
        guard elapsed > 0 else { return }
        tokens = min(Double(configuration.burst), tokens + elapsed * configuration.sendsPerSecond)
        self.updatedAt = now
    }
}
