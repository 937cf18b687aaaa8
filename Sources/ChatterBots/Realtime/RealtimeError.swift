import WebSocket

/// Why a realtime operation failed: connecting, waiting for `session.ready`, sending a frame or awaiting a reply.
/// Descriptions never contain the access token.
public enum RealtimeError: Error, Sendable, CustomStringConvertible {
    /// The configured WebSocket URL cannot carry the connection (not `ws://`/`wss://`); shown with the token redacted.
    case invalidURL(String)
    /// The WebSocket could not be opened (name resolution, refused connection, TLS, upgrade rejected, timeout), or
    /// a frame could not be written. Retry with backoff. The payload is the WebSocket module's error, for logs: its
    /// `description` says what failed, so bot code handles this case without importing WebSocket.
    case connectionFailed(WebSocketError)
    /// The server did not send `session.ready` within the configured wait; the socket was closed.
    case sessionReadyTimedOut(after: Duration)
    /// The server's `session.ready` frame could not be decoded; the socket was closed.
    case invalidSessionReady(FrameDecodingError)
    /// The connection ended (before `session.ready`, or while a frame was sent or a reply awaited).
    case closed(RealtimeCloseReason)
    /// No reply to the request with this `id` came within `after`. A late reply is delivered as an event.
    case replyTimedOut(requestType: String, id: String, after: Duration)
    /// The server answered the request with an `error` frame; `code` says what to do.
    case api(ChatterAPIError)
    /// The server answered the request, but its reply could not be decoded (the error names the field at fault; the
    /// frame is also reported in `events` as a diagnostic). Whether the request took effect is unknown: resend a
    /// `message.send` with the same `clientMessageId`, which the service turns into the same message.
    case invalidReply(FrameDecodingError)
    /// The server answered with a frame of another type than the request's reply (e.g. `pong` to `message.send`).
    case unexpectedReply(requestType: String, replyType: String)
    /// The request is one the server never answers (receipts, typing): send it with `send(_:)` instead.
    case noReplyExpected(requestType: String)
    /// The request could not be encoded as JSON (e.g. a non-finite number in a `JSONValue`); nothing was sent.
    case unencodableRequest(requestType: String, description: String)
    /// The calling task was cancelled; the request may or may not have reached the server.
    case cancelled

    /// The close reason when the error is `closed`.
    public var closeReason: RealtimeCloseReason? {
        if case .closed(let reason) = self { return reason }
        return nil
    }

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "invalid realtime URL \(url): expected ws:// or wss:// with a host"
        case .connectionFailed(let error):
            "cannot open the realtime connection: \(error)"
        case .sessionReadyTimedOut(let wait):
            "no session.ready within \(wait)"
        case .invalidSessionReady(let error):
            "invalid session.ready: \(error)"
        case .closed(let reason):
            "the realtime connection ended: \(reason)"
        case .replyTimedOut(let type, let id, let wait):
            "no reply to \(type) \(id) within \(wait)"
        case .api(let error):
            error.description
        case .invalidReply(let error):
            "the reply \(error.replyTo ?? "") could not be decoded: \(error)"
        case .unexpectedReply(let type, let reply):
            "the server answered \(type) with \(reply)"
        case .noReplyExpected(let type):
            "the server never replies to \(type): send it without awaiting a reply"
        case .unencodableRequest(let type, let description):
            "\(type) could not be encoded: \(description)"
        case .cancelled:
            "cancelled"
        }
    }
}
