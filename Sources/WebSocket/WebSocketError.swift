import Glibc

/// Why a WebSocket operation failed, with what is needed to act on it.
public enum WebSocketError: Error, Sendable, CustomStringConvertible {
    /// The phase of connection setup or teardown that ran out of time.
    public enum Phase: String, Sendable, Hashable {
        /// Opening the TCP connection (connectTimeout).
        case connect
        /// The TLS handshake of a `wss://` connection (handshakeTimeout).
        case tlsHandshake
        /// The HTTP upgrade request and its 101 response (handshakeTimeout).
        case handshake
    }

    /// The URL is not a `ws://` or `wss://` URL with a host.
    case invalidURL(String)
    /// The host name could not be resolved; check the spelling and the network.
    case nameResolutionFailed(host: String, reason: String)
    /// The TCP connection failed with this errno (e.g. ECONNREFUSED: nothing listens on that port).
    case connectionFailed(address: String, errno: Int32)
    /// The phase did not finish within its configured timeout.
    case timedOut(Phase)
    /// The server answered the upgrade request with something other than 101; the status and body say why.
    case handshakeRejected(status: Int, headers: HTTPHeaders, body: [UInt8])
    /// The server's 101 response breaks RFC 6455 (e.g. a wrong Sec-WebSocket-Accept): it is not a WebSocket server.
    case invalidHandshakeResponse(reason: String)
    /// The TLS handshake or session failed; the error says why (untrusted CA, host name mismatch, ...).
    case tls(TLSError)
    /// The connection has ended as described (code 1006 when the transport dropped without a close frame).
    case connectionClosed(WebSocketCloseInfo)
    /// A close handshake has started: no more messages or pings can be sent. Await `closeInfo`.
    case closing
    /// A ping payload was longer than the 125 bytes a control frame can carry.
    case controlPayloadTooLong(Int)
    /// The task waiting for the operation was cancelled.
    case cancelled
    /// The event loops that carry every socket could not start (no file descriptor left, typically): the error
    /// says which call failed, its errno and what to do (raise RLIMIT_NOFILE). Nothing was opened.
    case eventLoopUnavailable(EventLoopStartError)
    /// The event-loop group of the configuration was shut down: use a running group (or `.shared`).
    case eventLoopGroupShutDown

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "invalid WebSocket URL \(url): expected ws:// or wss:// with a host"
        case .nameResolutionFailed(let host, let reason):
            "cannot resolve \(host): \(reason)"
        case .connectionFailed(let address, let code):
            "cannot connect to \(address): \(String(cString: strerror(code))) (errno \(code))"
        case .timedOut(let phase):
            "timed out during the \(phase.rawValue) phase"
        case .handshakeRejected(let status, _, let body):
            "the server refused the WebSocket upgrade with HTTP \(status)"
                + (body.isEmpty ? "" : ": \(String(decoding: body.prefix(200), as: UTF8.self))")
        case .invalidHandshakeResponse(let reason):
            "invalid WebSocket handshake response: \(reason)"
        case .tls(let error):
            error.description
        case .connectionClosed(let info):
            "the WebSocket connection is \(info)"
        case .closing:
            "the WebSocket close handshake has started; no more messages can be sent"
        case .controlPayloadTooLong(let length):
            "a ping payload of \(length) bytes exceeds the 125 bytes allowed"
        case .cancelled:
            "cancelled"
        case .eventLoopUnavailable(let error):
            error.description
        case .eventLoopGroupShutDown:
            "the event-loop group was shut down; connect or listen with a running group"
        }
    }

    /// The error `send`/`ping` report when the protocol state refuses to produce a frame.
    init(_ error: WebSocketSendError) {
        switch error {
        case .closing: self = .closing
        case .closed(let info): self = .connectionClosed(info)
        case .controlPayloadTooLong(let length): self = .controlPayloadTooLong(length)
        }
    }
}
