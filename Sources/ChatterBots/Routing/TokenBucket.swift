import Foundation

/// A token bucket: up to `capacity` tokens, one more every `refillInterval`, one taken per event. Pure:
/// time comes in as `now`, so tests drive it with any clock.
struct TokenBucket: Codable, Hashable, Sendable {
    /// Tokens left as of `updatedAt` (fractional while refilling).
    var tokens: Double
    var updatedAt: Date

    /// A full bucket.
    init(capacity: Int, at now: Date) {
        tokens = Double(max(capacity, 1))
        updatedAt = now
    }

    /// Takes a token if one is there. Returns nil when taken, or how long until the next token.
    /// A clock that went backwards refills nothing.
    mutating func take(at now: Date, capacity: Int, refillInterval: Duration) -> Duration? {
        let capacity = Double(max(capacity, 1))
        let interval = Self.seconds(refillInterval)
        guard interval > 0 else {
            tokens = capacity
            updatedAt = now
            return nil
        }
        if now > updatedAt {
            tokens = min(capacity, tokens + now.timeIntervalSince(updatedAt) / interval)
            updatedAt = now
        }
        tokens = min(tokens, capacity)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return .milliseconds(Int64(((1 - tokens) * interval * 1000).rounded(.up)))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
