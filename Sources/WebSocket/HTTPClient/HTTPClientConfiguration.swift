/// How an `HTTPClient` connects, how long it waits, and how many idle connections it keeps.
public struct HTTPClientConfiguration: Sendable {
    /// The longest a TCP connect may take.
    public var connectTimeout: Duration
    /// The longest one request may take in all, from connecting to the last byte of its response, when `send` is
    /// not given a timeout of its own.
    public var requestTimeout: Duration
    /// The most idle connections kept per origin; a connection freed beyond it is closed.
    public var maxIdleConnectionsPerOrigin: Int
    /// An idle connection unused this long is closed. Shorter than servers' keep-alive timeouts, so that a kept
    /// connection is rarely one the server is closing just as a request goes out.
    public var idleTimeout: Duration
    /// Limits on a response: header section size and count, body size.
    public var parserLimits: HTTPParserLimits
    /// How `https` servers are verified; nil uses `TLSConfiguration.systemDefault` (the system CA store).
    public var tls: TLSConfiguration?
    /// The event loops that carry the connections.
    public var eventLoopGroup: EventLoopGroup

    /// Defaults: 10 s to connect, 60 s per request in all, up to 64 idle connections per origin (as many as
    /// a bot runtime starts bots at once) closed after 4 s unused, 64 KiB of headers and 16 MiB of body.
    public init(
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(60),
        maxIdleConnectionsPerOrigin: Int = 64, idleTimeout: Duration = .seconds(4),
        parserLimits: HTTPParserLimits = HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: 16 << 20),
        tls: TLSConfiguration? = nil, eventLoopGroup: EventLoopGroup = .shared
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxIdleConnectionsPerOrigin = max(0, maxIdleConnectionsPerOrigin)
        self.idleTimeout = idleTimeout
        self.parserLimits = parserLimits
        self.tls = tls
        self.eventLoopGroup = eventLoopGroup
    }
}
