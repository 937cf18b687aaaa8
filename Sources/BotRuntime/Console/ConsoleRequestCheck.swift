import WebSocket

/// Whether a request to a console route comes from the console's own page: its `Host` names the address the server
/// binds to (any loopback name on a loopback bind, any IP address on a wildcard bind) with the server's port, and
/// its `Origin`, when present, is that same origin. A request that changes something (not GET or HEAD) must carry
/// an `Origin`, and a request a browser marks as coming from another site or another port of this one
/// (`Sec-Fetch-Site` other than `same-origin` or `none`) is refused whatever its method, since some GETs act too
/// (a chat's events sign the test user in). Checked on loopback too: it stops DNS rebinding (a foreign name
/// resolving to 127.0.0.1) and cross-site requests from another page in the operator's browser.
package struct ConsoleRequestCheck: Sendable, Equatable {
    /// The address the HTTP server binds to (`httpBind`).
    package var bind: String
    /// The port it listens on.
    package var port: Int

    package init(bind: String, port: Int) {
        self.bind = bind
        self.port = port
    }

    /// Why `request` is refused (a sentence for the 403), or nil when it may go on.
    package func refusal(of request: HTTPRequest) -> String? {
        guard let hostHeader = request.headers.first(name: "Host")?.lowercased(), !hostHeader.isEmpty else {
            return "the request has no Host header; the console answers only requests for \(expectedOrigin)"
        }
        guard let (host, port) = Self.split(hostHeader), port == self.port, acceptsHost(host) else {
            return "Host \(hostHeader) is not this console's address: open \(expectedOrigin)/console/ "
                + "(names other than the bind address are refused, against DNS rebinding)"
        }
        let answering = "the console answers only its own page (http://\(hostHeader))"
        if let refusal = Self.otherPageRefusal(of: request, host: hostHeader, answering: answering) { return refusal }
        if request.headers.first(name: "Origin") == nil, request.method != .get && request.method != .head {
            return "a console request that changes something must carry an Origin header (send it from the console page)"
        }
        return nil
    }

    /// Why `request` is refused as one a browser sent from another page than this server's (at `host`, the request's
    /// `Host` header): a `Sec-Fetch-Site` other than `same-origin` or `none`, or an `Origin` of another site. nil
    /// when neither says so. `answering` says whom the routes answer instead.
    static func otherPageRefusal(of request: HTTPRequest, host: String, answering: String) -> String? {
        if let site = request.headers.first(name: "Sec-Fetch-Site")?.lowercased(), site != "same-origin", site != "none" {
            return "the browser says this request comes from another page (Sec-Fetch-Site: \(site)): \(answering)"
        }
        if let origin = request.headers.first(name: "Origin"), origin.lowercased() != "http://" + host {
            return "Origin \(origin) is another site: \(answering)"
        }
        return nil
    }

    /// The origin to suggest in a refusal.
    private var expectedOrigin: String {
        let host = ControlAccess.isLoopback(bind) || Self.isWildcard(bind) ? "127.0.0.1" : Self.bracketed(bind)
        return "http://\(host):\(port)"
    }

    private func acceptsHost(_ host: String) -> Bool {
        if host == Self.bracketed(bind.lowercased()) { return true }
        if ControlAccess.isLoopback(bind) { return ControlAccess.isLoopback(host) }
        if Self.isWildcard(bind) { return host == "localhost" || ControlAccess.isIPv4(host) || (host.hasPrefix("[") && host.hasSuffix("]")) }
        return false
    }

    /// The host and port of a `Host` header (`name:port`, `[v6]:port`); port 80 when none is written.
    static func split(_ header: String) -> (host: String, port: Int)? {
        if header.hasPrefix("[") {
            guard let close = header.firstIndex(of: "]") else { return nil }
            let host = String(header[...close])
            let rest = header[header.index(after: close)...]
            if rest.isEmpty { return (host, 80) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else { return nil }
            return (host, port)
        }
        let parts = header.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (header, 80)
        case 2: return Int(parts[1]).map { (String(parts[0]), $0) }
        default: return nil
        }
    }

    private static func isWildcard(_ bind: String) -> Bool {
        ["0.0.0.0", "::", "[::]"].contains(bind)
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
