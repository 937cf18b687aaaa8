import ChatterBots
import Foundation

/// How long to wait after the server rate-limited this device: a 4008 close carries the seconds in its close
/// reason (`"30"`), a 429 in its `Retry-After` header.
///
/// An unreadable value waits `fallback` (60 s, twice the backoff cap: the server asked us to slow down and did not
/// say how much, so we err long). Values are clamped to 1 s...24 h, so a "0" cannot cause a reconnect storm and a
/// huge number cannot park a bot forever (after 24 h the server is asked again and can answer with a new 4008).
public struct RateLimitDelay: Sendable, Equatable, CustomStringConvertible {
    /// The wait used when the server's value cannot be read.
    public static let fallback: Duration = .seconds(60)
    /// The shortest wait obeyed.
    public static let minimum: Duration = .seconds(1)
    /// The longest wait obeyed.
    public static let maximum: Duration = .seconds(86_400)

    /// How long to wait.
    public let delay: Duration
    /// The text the server sent, when it could not be read as seconds (nil when it could).
    public let unreadableValue: String?

    /// Reads the seconds of a 4008 close reason (or of a `Retry-After` in seconds) by ChatterBots' `RetryAfter`
    /// rules, the ones `RealtimeCloseReason` and the REST client use. Anything else gives `fallback` and keeps the
    /// text in `unreadableValue`.
    public init(serverValue: String) {
        if let seconds = RetryAfter.seconds(in: serverValue) {
            self.delay = min(max(seconds, Self.minimum), Self.maximum)
            self.unreadableValue = nil
        } else {
            self.delay = Self.fallback
            self.unreadableValue = serverValue
        }
    }

    /// A delay the caller already knows (for example a parsed `Retry-After` header), clamped like a server value.
    public init(delay: Duration) {
        self.delay = min(max(delay, Self.minimum), Self.maximum)
        self.unreadableValue = nil
    }

    /// The wait a failed request asks for, or nil when it was not rate-limited: a `RATE_LIMITED` answer over REST
    /// (its `Retry-After`) or in a realtime `error` frame (its `details.retryAfter`), `fallback` when it gives none.
    package static func asked(by error: any Error) -> Duration? {
        let apiError: ChatterAPIError? =
            if let error = error as? ChatterAPIError { error } else if case .api(let error)? = error as? RealtimeError { error } else { nil }
        guard let apiError, apiError.code == .rateLimited else { return nil }
        if let retryAfter = apiError.retryAfter { return RateLimitDelay(delay: retryAfter).delay }
        return hint(in: apiError.details) ?? fallback
    }

    /// The `retryAfter` seconds of an `error` frame's details, clamped; nil without a finite number.
    static func hint(in details: JSONValue?) -> Duration? {
        guard let seconds = details?["retryAfter"]?.doubleValue, seconds.isFinite else { return nil }
        return RateLimitDelay(delay: .seconds(min(max(seconds, 0), 86_400))).delay
    }

    public var description: String {
        if let unreadableValue {
            return "rate limited; the server's delay \"\(unreadableValue)\" is not a number of seconds, waiting \(delay)"
        }
        return "rate limited; waiting \(delay) as the server asked"
    }
}
