/// Answers the requests an `HTTPServer` receives: with an HTTP response, or by accepting a WebSocket upgrade.
public protocol HTTPResponder: Sendable {
    /// The answer to `request`. Runs on the cooperative pool, one request at a time per connection.
    func respond(to request: HTTPRequest) async -> HTTPServerResponse
}

/// What a responder answers a request with.
public enum HTTPServerResponse: Sendable {
    /// A plain HTTP response (also the way to refuse an upgrade: e.g. 401 or 404).
    case response(HTTPResponse)
    /// Accepts a WebSocket upgrade: the server sends 101 with these extra headers, then runs `handler` with the
    /// connection and closes it (1000) when the handler returns, if it is still open. Valid only for a valid
    /// upgrade request (`HTTPRequest.isWebSocketUpgrade`); otherwise the server answers 400 itself.
    case webSocket(headers: HTTPHeaders = [:], handler: @Sendable (WebSocketConnection) async -> Void)
    /// A response whose body `body` sends in chunks while it runs (server-sent events): the server sends `head`
    /// (its body ignored) with `Transfer-Encoding: chunked`, runs `body`, then ends the response and closes the
    /// connection. The request's connection is not reused.
    case stream(head: HTTPResponse, body: @Sendable (HTTPResponseStream) async -> Void)
}

/// A responder made from a closure.
public struct HTTPClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) async -> HTTPServerResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPServerResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest) async -> HTTPServerResponse {
        await body(request)
    }
}

extension HTTPRequest {
    /// Whether this is a WebSocket opening handshake the server can accept (RFC 6455 §4.2.1).
    public var isWebSocketUpgrade: Bool {
        (try? WebSocketHandshake.validateRequest(method: method.rawValue, httpVersion: version.description, headers: headers)) != nil
    }
}
