import ChatterBots

/// The timers and limits of the sandbox's realtime endpoint. The defaults are the documented values of
/// `seeds/realtime-websocket.txt`; tests shorten them or run them on a `ManualClock`.
public struct RealtimeConfiguration: Sendable, Hashable {
    /// The heartbeat interval announced in `session.ready` (`heartbeatIntervalMs`). Default 25 s.
    public var heartbeatInterval: Duration
    /// A socket that sends nothing for this long is closed (1000, reason `idle timeout`). Default 60 s.
    public var idleTimeout: Duration
    /// Typing ends by itself this long after a member's last `typing.start`. Default 5 s.
    public var typingTimeout: Duration
    /// After a user's last socket closes, `presence {isOnline:false}` waits this long, so that a quick reconnect
    /// is absorbed. Default 10 s.
    public var presenceGracePeriod: Duration
    /// The largest text frame accepted, in bytes; a larger one closes the socket with 1009. Default 64 KiB.
    public var maxFrameBytes: Int

    public init(
        heartbeatInterval: Duration = .seconds(25), idleTimeout: Duration = .seconds(60),
        typingTimeout: Duration = .seconds(5), presenceGracePeriod: Duration = .seconds(10),
        maxFrameBytes: Int = 64 * 1024
    ) {
        self.heartbeatInterval = heartbeatInterval
        self.idleTimeout = idleTimeout
        self.typingTimeout = typingTimeout
        self.presenceGracePeriod = presenceGracePeriod
        self.maxFrameBytes = maxFrameBytes
    }

    /// `heartbeatInterval` in whole milliseconds, as `session.ready` carries it.
    public var heartbeatIntervalMs: Int {
        let (seconds, attoseconds) = heartbeatInterval.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

extension Duration {
    /// This duration in seconds, for `Date` arithmetic on a `ChatterClock`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) * 1e-18
    }
}
