import Foundation

/// Token buckets per key (a device, a client key): each holds up to `limit.requests` requests and refills at
/// `limit.requests` per `limit.window`. Pure: time comes in with every call.
struct RateLimiter: Sendable {
    /// The outcome of one request.
    enum Decision: Hashable, Sendable {
        case allowed
        /// Refused: retry after this many whole seconds (at least 1).
        case limited(retryAfterSeconds: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    private var buckets: [String: Bucket] = [:]
    /// Above this many buckets, full ones are dropped (they carry no information).
    private let pruneThreshold = 10_000

    /// Takes one request from `key`'s bucket at `now`.
    mutating func admit(_ key: String, limit: SandboxRateLimit, at now: Date) -> Decision {
        let capacity = Double(max(1, limit.requests))
        let windowSeconds = max(0.001, Double(limit.window.components.seconds) + Double(limit.window.components.attoseconds) * 1e-18)
        let refillPerSecond = capacity / windowSeconds
        var bucket = buckets[key] ?? Bucket(tokens: capacity, updatedAt: now)
        let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
        bucket.tokens = min(capacity, bucket.tokens + elapsed * refillPerSecond)
        bucket.updatedAt = now
        defer {
            buckets[key] = bucket
            if buckets.count > pruneThreshold { prune(now: now, capacity: capacity, refillPerSecond: refillPerSecond) }
        }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return .allowed
        }
        let wait = (1 - bucket.tokens) / refillPerSecond
        return .limited(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }

    private mutating func prune(now: Date, capacity: Double, refillPerSecond: Double) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + now.timeIntervalSince(bucket.updatedAt) * refillPerSecond < capacity
        }
    }
}
