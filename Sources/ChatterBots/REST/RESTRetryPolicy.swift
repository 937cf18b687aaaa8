/// Whether `ChatterRESTClient` waits out a `RATE_LIMITED` answer itself and sends the request again.
///
/// A 429 means the service did not act on the request, so sending it again is safe for every endpoint. The client
/// waits the response's `Retry-After` (seconds, a fraction, or an HTTP-date) on its clock, at most `maxRetries`
/// times per call; a wait longer than `maxWait`, or a 429 without a readable `Retry-After`, is thrown at once for
/// the caller to schedule. Opt-in: a client retries only when given a policy, because a caller with its own
/// rate-limit handling (the bot runtime's sign-in) would otherwise wait twice.
public struct RESTRetryPolicy: Hashable, Sendable {
    /// How many times one call is sent again after `RATE_LIMITED`; 0 never retries.
    public var maxRetries: Int
    /// The longest `Retry-After` the client waits out; a longer one is thrown (with `retryAfter` set).
    public var maxWait: Duration

    /// A policy of `maxRetries` retries, each waiting at most `maxWait`. The default, one retry after at most
    /// 10 seconds, rides out a brief burst without holding a caller (e.g. a bot's handler) for long.
    public init(maxRetries: Int = 1, maxWait: Duration = .seconds(10)) {
        self.maxRetries = max(0, maxRetries)
        self.maxWait = maxWait
    }

    /// Never retries: every `RATE_LIMITED` is thrown at once. A client's default.
    public static let never = RESTRetryPolicy(maxRetries: 0)

    /// How long to wait before retry number `retry` (from 1) of a request refused with `error`; nil to throw it.
    func wait(before retry: Int, after error: ChatterAPIError) -> Duration? {
        guard error.code == .rateLimited, retry <= maxRetries, let wait = error.retryAfter, wait <= maxWait else { return nil }
        return wait
    }
}
