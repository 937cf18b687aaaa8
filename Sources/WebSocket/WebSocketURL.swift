import Foundation

/// The parts of a `ws://` or `wss://` URL the client needs: where to connect and what to request.
struct WebSocketURL: Sendable, Equatable {
    var isSecure: Bool
    /// The host as written, without IPv6 brackets.
    var host: String
    var port: Int
    /// The percent-encoded path and query, e.g. `/realtime?token=a%20b`; `/` when the URL has no path.
    var requestTarget: String

    /// The Host header: the host (bracketed for IPv6) with the port unless it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    init(_ url: URL) throws(WebSocketError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              let rawHost = components.host, !rawHost.isEmpty
        else { throw .invalidURL(url.absoluteString) }
        isSecure = scheme == "wss"
        host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65535).contains(port) else { throw .invalidURL(url.absoluteString) }
        self.port = port
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
