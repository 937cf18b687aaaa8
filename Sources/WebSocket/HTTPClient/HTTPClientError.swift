/// Why an `HTTPClient` request got no response, with what is needed to act on it.
public enum HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// The phase of a request that ran out of time.
    public enum Phase: String, Sendable, Hashable {
        /// Opening the TCP connection (`connectTimeout`).
        case connect
        /// The TLS handshake of an `https` connection (within the request's timeout).
        case tlsHandshake
        /// Sending the request and reading its whole response (the request's timeout).
        case response
    }

    /// The URL is not an `http://` or `https://` URL with a host.
    case invalidURL(String)
    /// The host name could not be resolved; check the spelling and the network.
    case nameResolutionFailed(host: String, reason: String)
    /// The TCP connection failed with this errno (e.g. ECONNREFUSED: nothing listens on that port).
    case connectionFailed(address: String, errno: Int32)
    /// The phase did not finish in time; the request may or may not have reached the server.
    case timedOut(Phase)
    /// The TLS handshake or session failed; the error says why (untrusted CA, host name mismatch, ...).
    case tls(TLSError)
    /// The connection ended before the response was complete; the request may or may not have been processed.
    case connectionClosed(reason: String)
    /// The server's bytes are not an HTTP/1.1 response within the client's limits.
    case invalidResponse(reason: String)
    /// The response's body is larger than `limit` bytes (`HTTPClientConfiguration.parserLimits.maxBodyBytes`); the
    /// connection was closed. Ask for less (a smaller page), or raise the limit.
    case responseTooLarge(limit: Int)
    /// The task waiting for the response was cancelled; the connection was closed.
    case cancelled
    /// The event loops that carry every socket could not start (no file descriptor left, typically): raise
    /// RLIMIT_NOFILE. Nothing was sent.
    case eventLoopUnavailable(EventLoopStartError)
    /// The event-loop group of the configuration was shut down: use a running group (or `.shared`).
    case eventLoopGroupShutDown

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "invalid HTTP URL \(url): expected http:// or https:// with a host"
        case .timedOut(let phase):
            "timed out during the \(phase.rawValue) phase"
        case .connectionClosed(let reason):
            "the connection closed before the response was complete: \(reason)"
        case .invalidResponse(let reason):
            "invalid HTTP response: \(reason)"
        case .responseTooLarge(let limit):
            "the response body is larger than this client's limit of \(limit) bytes: ask for less (a smaller page) "
                + "or raise HTTPClientConfiguration.parserLimits.maxBodyBytes"
        case .eventLoopGroupShutDown:
            "the event-loop group was shut down; send with a running group"
        // Connecting is the WebSocket client's too: the same words.
        case .nameResolutionFailed(let host, let reason):
            WebSocketError.nameResolutionFailed(host: host, reason: reason).description
        case .connectionFailed(let address, let code):
            WebSocketError.connectionFailed(address: address, errno: code).description
        case .tls(let error):
            WebSocketError.tls(error).description
        case .cancelled:
            WebSocketError.cancelled.description
        case .eventLoopUnavailable(let error):
            WebSocketError.eventLoopUnavailable(error).description
        }
    }

    /// The error of a response the parser refused: too large a body, or not HTTP/1.1 within the limits.
    init(refusing error: HTTPParseError) {
        if case .bodyTooLarge(let limit) = error {
            self = .responseTooLarge(limit: limit)
        } else {
            self = .invalidResponse(reason: error.description)
        }
    }

    /// The error of a connection step shared with the WebSocket client (resolving, connecting, the event loops).
    init(_ error: WebSocketError) {
        switch error {
        case .invalidURL(let url): self = .invalidURL(url)
        case .nameResolutionFailed(let host, let reason): self = .nameResolutionFailed(host: host, reason: reason)
        case .connectionFailed(let address, let code): self = .connectionFailed(address: address, errno: code)
        case .timedOut(.connect): self = .timedOut(.connect)
        case .timedOut(.tlsHandshake): self = .timedOut(.tlsHandshake)
        case .timedOut(.handshake): self = .timedOut(.response)
        case .tls(let tlsError): self = .tls(tlsError)
        case .cancelled: self = .cancelled
        case .eventLoopUnavailable(let startError): self = .eventLoopUnavailable(startError)
        case .eventLoopGroupShutDown: self = .eventLoopGroupShutDown
        default: self = .connectionClosed(reason: error.description)
        }
    }
}
