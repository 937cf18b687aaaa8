/// How fast a bot may send: a token bucket that lets `burst` messages go back to back after a quiet period, then
/// `sendsPerSecond` sustained. The runtime's `SendPacer` carries it out.
public struct SendPacing: Sendable, Equatable {
    /// Sustained sends per second (the refill rate of the bucket).
    public var sendsPerSecond: Double
    /// Sends that may go back to back after a quiet period (the bucket's size).
    public var burst: Int

    /// The default, deliberately conservative: Chatter publishes no rate limit, so a bot answers a burst of
    /// 10 messages at once and then sustains 2 per second (120 a minute), far above what one conversation
    /// needs and well below what a chat service tolerates from a single device.
    public static let conservative = SendPacing(sendsPerSecond: 2, burst: 10)

    /// Creates a pacing.
    ///
    /// - Precondition: `sendsPerSecond` is finite and positive, `burst` at least 1 (programming errors; `bots.json`
    ///   is checked before it gets here).
    public init(sendsPerSecond: Double, burst: Int) {
        precondition(sendsPerSecond.isFinite && sendsPerSecond > 0, "sendsPerSecond must be > 0")
        precondition(burst >= 1, "burst must be at least 1")
        self.sendsPerSecond = sendsPerSecond
        self.burst = burst
    }
}
