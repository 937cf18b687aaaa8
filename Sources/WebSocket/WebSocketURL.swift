import Foundation

/// The parts of a `ws://` or `wss://` URL the client needs: where to connect and what to request.
struct WebSocketURL: Sendable, Equatable {
    /// Scheme (`wss` is secure), host and port, parsed as the HTTP client parses `http` and `https`.
    var origin: HTTPOrigin
    /// The percent-encoded path and query, e.g. `/realtime?token=a%20b`; `/` when the URL has no path.
    var requestTarget: String

    var isSecure: Bool { origin.isSecure }
    /// The host as written, without IPv6 brackets.
    var host: String { origin.host }
    var port: Int { origin.port }
    /// The Host header: the host (bracketed for IPv6) with the port unless it is the scheme's default.
    var hostHeader: String { origin.hostHeader }

    init(_ url: URL) throws(WebSocketError) {
        guard let (origin, target) = HTTPOrigin.parse(url, plainScheme: "ws", secureScheme: "wss") else {
            throw .invalidURL(url.absoluteString)
        }
        self.origin = origin
        self.requestTarget = target
    }
}
