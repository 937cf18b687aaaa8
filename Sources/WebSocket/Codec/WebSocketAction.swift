/// One thing the I/O layer must do for a `WebSocketProtocolState`; carry actions out in the order given.
public enum WebSocketAction: Sendable, Hashable {
    /// Write these bytes to the transport (after any bytes queued earlier).
    case write([UInt8])
    /// Hand this complete message to the application.
    case deliver(WebSocketMessage)
    /// A pong arrived with this payload (for heartbeats); the state machine already ignores it otherwise.
    case pong([UInt8])
    /// Start the close timer; call `closeTimedOut()` if the transport is still open when it fires.
    case startCloseTimer
    /// Flush queued writes, then close the transport (prefer shutdown(SHUT_WR) and a short drain so a
    /// pending close frame is not lost to a TCP reset). Do not call `transportClosed()` for it.
    case closeTransport
    /// The connection is over; no further action will follow. Cancel the close timer.
    case finished(WebSocketCloseInfo)
}
