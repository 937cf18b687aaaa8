import Foundation

/// The reconnect backoff of the realtime seed: 1, 2, 4, 8, 16, then 30 s for every further attempt, each
/// randomised by ±20 % so that many bots dropped at once do not reconnect in lockstep. Reset after `session.ready`.
///
/// A value type with no clock and no randomness of its own: the caller passes the generator, so tests seed it.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The seed's schedule: 1, 2, 4, 8, 16 and 30 s; the last delay repeats.
    public static let standardDelays: [Duration] = [1, 2, 4, 8, 16, 30].map { .seconds($0) }

    /// The delays before attempt 1, 2, 3…; attempts beyond the list use the last delay (the cap).
    public let delays: [Duration]
    /// The relative random spread applied to each delay: 0.2 draws from 80 % to 120 % of it.
    public let jitter: Double
    /// How many delays were handed out since creation or the last `reset()`.
    public private(set) var attempts: Int = 0

    /// Creates a policy with the given schedule and jitter.
    ///
    /// - Precondition: `delays` is not empty and `jitter` is within 0...1 (programming errors, not input data).
    public init(delays: [Duration] = ReconnectPolicy.standardDelays, jitter: Double = 0.2) {
        precondition(!delays.isEmpty, "ReconnectPolicy needs at least one delay")
        precondition((0...1).contains(jitter), "ReconnectPolicy jitter must be within 0...1, got \(jitter)")
        self.delays = delays
        self.jitter = jitter
    }

    /// The delay before the next attempt, jittered with `generator`; counts the attempt.
    public mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Duration {
        let base = baseDelay(forAttempt: attempts + 1)
        attempts += 1
        guard jitter > 0 else { return base }
        let factor = 1 + Double.random(in: -jitter...jitter, using: &generator)
        return .seconds(base.timeInterval * factor)
    }

    /// The delay before attempt `attempt` (1-based) without jitter.
    public func baseDelay(forAttempt attempt: Int) -> Duration {
        delays[min(max(attempt, 1), delays.count) - 1]
    }

    /// Starts the schedule over at its first delay; called after a successful `session.ready`.
    public mutating func reset() {
        attempts = 0
    }
}
