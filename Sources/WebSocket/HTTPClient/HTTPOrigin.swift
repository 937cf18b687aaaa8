import Foundation

/// Where an `HTTPClient` connects: scheme, host and port. Connections are kept and reused per origin.
public struct HTTPOrigin: Sendable, Hashable, CustomStringConvertible {
    /// Whether requests go over TLS (`https`).
    public var isSecure: Bool
    /// The host as written, without IPv6 brackets.
    public var host: String
    public var port: Int

    public init(isSecure: Bool, host: String, port: Int) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
    }

    /// The origin of an `http://` or `https://` URL with a host.
    public init(url: URL) throws(HTTPClientError) {
        guard let (origin, _) = Self.parse(url, plainScheme: "http", secureScheme: "https") else {
            throw .invalidURL(url.absoluteString)
        }
        self = origin
    }

    /// The origin and request target of `url` when its scheme is `plainScheme` or `secureScheme`, it has a host and
    /// its port is valid: the HTTP client's `http`/`https` and the WebSocket client's `ws`/`wss` alike.
    package static func parse(_ url: URL, plainScheme: String, secureScheme: String) -> (origin: HTTPOrigin, target: String)? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == plainScheme || scheme == secureScheme,
              let rawHost = components.host, !rawHost.isEmpty
        else { return nil }
        let isSecure = scheme == secureScheme
        let port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        return (HTTPOrigin(isSecure: isSecure, host: host, port: port), HTTPRequest.target(of: components))
    }

    /// The Host header: the host (bracketed for IPv6) with the port unless it is the scheme's default.
    public var hostHeader: String {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    public var description: String { "\(isSecure ? "https" : "http")://\(hostHeader)" }
}

extension HTTPRequest {
    /// The request target of `url` as sent on the wire: its percent-encoded path (`/` when empty) and query.
    public static func target(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false).map(target(of:)) ?? "/"
    }

    static func target(of components: URLComponents) -> String {
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
