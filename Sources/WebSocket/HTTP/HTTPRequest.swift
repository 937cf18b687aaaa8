import Foundation

/// An HTTP/1.1 request: what the server's responder receives and what the WebSocket client sends to upgrade.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    /// The request target as sent: the path, percent-encoded, and the query (e.g. `/messages?afterSeq=4`).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: HTTPMethod = .get, target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The path part of the target, still percent-encoded (so `%2F` stays distinct from `/`).
    public var path: String {
        String(target.prefix { $0 != "?" && $0 != "#" })
    }

    /// The raw query string after `?`, or nil if the target has none.
    public var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        let rest = target[target.index(after: mark)...]
        return String(rest.prefix { $0 != "#" })
    }

    /// The query's `name=value` pairs in order, percent-decoded (a `+` stays a `+`, as in URLComponents).
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            return (name.removingPercentEncoding ?? name, value.removingPercentEncoding ?? value)
        }
    }

    /// The first value of the query parameter `name`, percent-decoded.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Whether the client wants the connection kept open after the response (HTTP/1.1 unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive`).
    public var keepAlive: Bool {
        if headers.contains(token: "close", inHeader: "Connection") { return false }
        if version == .http1_0 { return headers.contains(token: "keep-alive", inHeader: "Connection") }
        return true
    }

    /// The request as HTTP/1.1 bytes; adds `Content-Length` when there is a body and none was set.
    public func serialized() -> [UInt8] {
        var text = "\(method.rawValue) \(target) \(version)\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        if !headers.contains(name: "Content-Length") && !headers.contains(name: "Transfer-Encoding")
            && (!body.isEmpty || method == .post || method == .put || method == .patch) {
            text += "Content-Length: \(body.count)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8) + body
    }
}
