/// Which Chatter service to talk to: the REST base URL, the WebSocket URL and the app's client key.
/// Always configuration (tests and the sandbox use `http://127.0.0.1:<port>/v1`), never a constant.
public struct ChatterServerConfiguration: Hashable, Sendable, Codable {
    /// e.g. `https://api.chatter.maragato.ca/v1`; endpoint paths are appended to it.
    public var apiBaseURL: URL
    /// e.g. `wss://api.chatter.maragato.ca/v1/ws`, without query.
    public var webSocketURL: URL
    /// Sent as `X-Client-Key` on every request and as `clientKey` when connecting.
    public var clientKey: String

    /// A service from its two URLs and the app's client key.
    public init(apiBaseURL: URL, webSocketURL: URL, clientKey: String) {
        self.apiBaseURL = apiBaseURL
        self.webSocketURL = webSocketURL
        self.clientKey = clientKey
    }

    /// The URL of a REST request: base URL, path and query.
    /// - Throws: `ChatterClientError.invalidRequest` for a path parameter that names no single resource (see
    ///   `ChatterRequest.path`) or a base URL that yields no valid URL.
    public func url<Response>(for request: ChatterRequest<Response>) throws(ChatterClientError) -> URL {
        var text = apiBaseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += try request.path
        let query = request.queryString
        if !query.isEmpty { text += "?" + query }
        guard let url = URL(string: text) else {
            throw .invalidRequest(request.endpoint, description: "no valid URL from \(apiBaseURL) and \(text)")
        }
        return url
    }

    /// The URL to open the realtime socket with: `webSocketURL?clientKey=…&token=…`.
    public func webSocketURL(accessToken: String) -> URL? {
        guard var components = URLComponents(url: webSocketURL, resolvingAgainstBaseURL: false) else { return nil }
        let items = [("clientKey", clientKey), ("token", accessToken)].map { name, value in
            name + "=" + PercentEncoding.encode(value)
        }
        components.percentEncodedQuery = ([components.percentEncodedQuery].compactMap { $0 } + items).joined(separator: "&")
        return components.url
    }
}
