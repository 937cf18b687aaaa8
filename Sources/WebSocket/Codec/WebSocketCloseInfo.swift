/// How a WebSocket connection ended: the code and reason that describe the close, who started it, and the peer's
/// protocol violation when that is why it closed.
public struct WebSocketCloseInfo: Sendable, Hashable, CustomStringConvertible {
    /// Who started the close.
    public enum Initiator: Sendable, Hashable {
        /// This endpoint: the application called close, or this endpoint failed the connection on a protocol error.
        case local
        /// The peer sent the first close frame.
        case peer
        /// The transport closed without any close frame.
        case transport
    }

    /// The code of the first close frame received (1005 if it had none, 1006 if none arrived), or the code this
    /// endpoint sent when it failed the connection.
    public var code: WebSocketCloseCode
    /// The reason that accompanied `code`, possibly empty.
    public var reason: String
    /// Who started the close.
    public var initiator: Initiator
    /// The peer's protocol violation when this endpoint failed the connection.
    public var error: WebSocketProtocolError?

    /// Creates close information; `reason` defaults to empty and `error` to none.
    public init(code: WebSocketCloseCode, reason: String = "", initiator: Initiator, error: WebSocketProtocolError? = nil) {
        self.code = code
        self.reason = reason
        self.initiator = initiator
        self.error = error
    }

    /// Whether a close handshake took place (a close frame was received) without a protocol error.
    public var isClean: Bool {
        error == nil && code != .abnormalClosure
    }

    public var description: String {
        var text = "closed by \(initiator) with \(code)"
        if !reason.isEmpty { text += ": \(reason)" }
        if let error { text += " [\(error)]" }
        return text
    }
}
