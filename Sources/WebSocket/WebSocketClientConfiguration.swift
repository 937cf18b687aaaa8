/// How `WebSocketClient.connect` opens a connection.
public struct WebSocketClientConfiguration: Sendable {
    /// Headers added to the upgrade request (e.g. `Authorization`); they must not replace the handshake's own.
    public var headers: HTTPHeaders
    /// Subprotocols offered in `Sec-WebSocket-Protocol`, most preferred first; empty offers none.
    public var subprotocols: [String]
    /// Time allowed to open the TCP connection, across all resolved addresses.
    public var connectTimeout: Duration
    /// Time allowed for the TLS handshake (wss) plus the HTTP upgrade, after the TCP connection opened.
    public var handshakeTimeout: Duration
    /// Time a close handshake may take before the connection is dropped.
    public var closeTimeout: Duration
    /// Limits on the frames and messages received.
    public var limits: WebSocketLimits
    /// How `wss://` servers are verified; nil uses `TLSConfiguration.systemDefault` (the system CA store).
    public var tls: TLSConfiguration?
    /// The event loops the connection runs on.
    public var eventLoopGroup: EventLoopGroup

    public init(
        headers: HTTPHeaders = [:], subprotocols: [String] = [], connectTimeout: Duration = .seconds(10),
        handshakeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(5),
        limits: WebSocketLimits = .default, tls: TLSConfiguration? = nil, eventLoopGroup: EventLoopGroup = .shared
    ) {
        self.headers = headers
        self.subprotocols = subprotocols
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
        self.limits = limits
        self.tls = tls
        self.eventLoopGroup = eventLoopGroup
    }
}
