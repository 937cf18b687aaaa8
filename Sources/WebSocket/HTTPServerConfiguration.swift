/// How an `HTTPServer` treats its connections.
public struct HTTPServerConfiguration: Sendable {
    /// Limits on request heads and bodies (exceeding them answers 431 or 413 and closes the connection).
    public var parserLimits: HTTPParserLimits
    /// A connection with no request in progress for this long is closed (keep-alive idle timeout); it also bounds
    /// how long a client may take to send a request (and, with TLS, to complete the handshake), and how long a client
    /// that pipelines requests may go without reading any of the responses waiting for it.
    public var idleTimeout: Duration
    /// Limits on the frames and messages of upgraded WebSocket connections.
    public var webSocketLimits: WebSocketLimits
    /// How long a WebSocket close handshake may take before the connection is dropped.
    public var webSocketCloseTimeout: Duration
    /// The `Server` header sent with every response; nil sends none.
    public var serverName: String?
    /// The event loops that run the listener and the connections.
    public var eventLoopGroup: EventLoopGroup
    /// Where responders and WebSocket handlers run; nil runs them on the global concurrent executor (the
    /// cooperative pool). A dedicated executor keeps latency-sensitive handlers responsive while other work
    /// saturates the pool.
    public var taskExecutor: (any TaskExecutor)?
    /// The most connections (HTTP and WebSocket) open at once; a connection accepted beyond it is closed at once,
    /// so that idle clients cannot take every file descriptor of the process. nil: no limit.
    public var maxConnections: Int?

    public init(
        parserLimits: HTTPParserLimits = .init(), idleTimeout: Duration = .seconds(60),
        webSocketLimits: WebSocketLimits = .default, webSocketCloseTimeout: Duration = .seconds(5),
        serverName: String? = "ChatterBots", eventLoopGroup: EventLoopGroup = .shared,
        taskExecutor: (any TaskExecutor)? = nil, maxConnections: Int? = nil
    ) {
        self.parserLimits = parserLimits
        self.idleTimeout = idleTimeout
        self.webSocketLimits = webSocketLimits
        self.webSocketCloseTimeout = webSocketCloseTimeout
        self.serverName = serverName
        self.eventLoopGroup = eventLoopGroup
        self.taskExecutor = taskExecutor
        self.maxConnections = maxConnections
    }
}
