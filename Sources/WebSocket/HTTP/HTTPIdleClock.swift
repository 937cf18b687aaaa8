/// When an HTTP server connection is idle: for a whole timeout its peer sent no request bytes and, while a response
/// waits for the peer to read it, took none of that response either. A slow reader that keeps reading is not idle.
struct HTTPIdleClock: Sendable {
    /// What the connection's idle timer does when it fires.
    enum Verdict: Equatable, Sendable {
        case close
        case checkAgain(after: Duration)
    }

    private let timeout: UInt64
    private var lastActivity: UInt64
    /// The response bytes the peer had not read when last looked at, while the connection waits for it to read.
    private var unsentSeen: Int?

    /// A clock started at `now` (nanoseconds on the monotonic clock).
    init(timeout: Duration, now: UInt64) {
        self.timeout = timeout.nanoseconds
        self.lastActivity = now
    }

    /// Whether the connection waits for its peer to read a response before it reads on.
    var isWaitingForPeer: Bool { unsentSeen != nil }

    /// The peer sent bytes, or the connection went back to reading requests.
    mutating func recordActivity(at now: UInt64) {
        lastActivity = now
    }

    /// A response left `unsent` bytes past the high watermark: the connection waits for the peer to read them.
    mutating func startWaitingForPeer(unsent: Int, at now: UInt64) {
        unsentSeen = unsent
        lastActivity = now
    }

    /// The peer read enough of the response for the connection to read on.
    mutating func stopWaitingForPeer(at now: UInt64) {
        unsentSeen = nil
        lastActivity = now
    }

    /// At the idle timer, with `unsent` bytes still queued: fewer than last time means the peer read some, which
    /// counts as activity.
    mutating func check(unsent: Int, at now: UInt64) -> Verdict {
        if let seen = unsentSeen, unsent < seen {
            unsentSeen = unsent
            lastActivity = now
        }
        let elapsed = now >= lastActivity ? now - lastActivity : 0
        return elapsed >= timeout ? .close : .checkAgain(after: .nanoseconds(timeout - elapsed))
    }
}
