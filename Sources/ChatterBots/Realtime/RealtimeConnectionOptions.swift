import WebSocket

/// How a `ChatterRealtimeConnection` connects and how long it waits.
public struct RealtimeConnectionOptions: Sendable {
    /// How long to wait for `session.ready` once the WebSocket is open.
    public var sessionReadyTimeout: Duration
    /// How long a request waits for its reply unless the call gives its own timeout. The seed's heartbeat rule
    /// (no `pong` within 10 s means the connection is dead) makes 10 s the default.
    public var requestTimeout: Duration
    /// How many unread events may wait before the connection reports its consumer as behind, with a
    /// `RealtimeDiagnostic.eventBacklog` event. The socket is still read: replies never wait behind unread events.
    public var eventBufferLimit: Int
    /// How many unread events may wait before the consumer is taken as stuck: the connection then closes (1008) and
    /// ends with `RealtimeCloseReason.eventBufferOverflow`; reconnect and sync to recover. Never below
    /// `eventBufferLimit`.
    public var eventBufferHardLimit: Int
    /// The clock of the `session.ready` wait and of the request timeouts (a virtual clock in tests).
    public var clock: any ChatterClock
    /// How the WebSocket is opened: connect and handshake timeouts, TLS trust, frame limits, event loops. The
    /// defaults suit the live service; only a runtime or a test that needs its own trust roots or timeouts sets it
    /// (importing WebSocket for that), so bot code never has to.
    public var webSocket: WebSocketClientConfiguration
    /// The executor the connection's own tasks (its frame reader and timeout watchdog) prefer; nil for the global
    /// concurrent one. A runtime passes one of `webSocket.eventLoopGroup`'s executors and connects from a task
    /// that prefers it too: the socket then lives on that loop, and a frame goes from the socket to its reader
    /// without waking another thread.
    public var taskExecutor: (any TaskExecutor)?

    /// Options with the seed's timing; `eventBufferHardLimit` defaults to 16 times `eventBufferLimit`.
    public init(
        sessionReadyTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(10),
        eventBufferLimit: Int = 1024, eventBufferHardLimit: Int? = nil, clock: any ChatterClock = SystemClock(),
        webSocket: WebSocketClientConfiguration = .init(), taskExecutor: (any TaskExecutor)? = nil
    ) {
        self.sessionReadyTimeout = sessionReadyTimeout
        self.requestTimeout = requestTimeout
        self.eventBufferLimit = eventBufferLimit
        self.eventBufferHardLimit = max(eventBufferLimit, eventBufferHardLimit ?? eventBufferLimit * 16)
        self.clock = clock
        self.webSocket = webSocket
        self.taskExecutor = taskExecutor
    }
}
