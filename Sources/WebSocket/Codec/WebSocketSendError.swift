/// Why the protocol state refused to produce bytes for an outgoing frame.
public enum WebSocketSendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A close frame was sent or received; no further messages or pings may be sent. Wait for the close to finish.
    case closing
    /// The connection is closed, as described by the info.
    case closed(WebSocketCloseInfo)
    /// A ping or pong payload was longer than the 125 bytes a control frame may carry.
    case controlPayloadTooLong(Int)

    public var description: String {
        switch self {
        case .closing: "the close handshake has started"
        case .closed(let info): "the connection is \(info)"
        case .controlPayloadTooLong(let length): "control payload of \(length) bytes exceeds 125"
        }
    }
}
