import Foundation
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a `ChatterRESTClient` carries its requests to the service.
public enum ChatterHTTPTransport: Sendable {
    /// The WebSocket module's HTTP/1.1 client, on the same event loops as the realtime sockets, with keep-alive
    /// connections shared by every REST client given the same `HTTPClient`. Connects directly (no proxy).
    case builtIn(HTTPClient)
    /// Foundation's `URLSession`, for what it adds: proxies from its configuration, HTTP/2. On Linux give it a
    /// session without a URL cache (`urlCache = nil`): a request cancelled while the cache is consulted traps
    /// FoundationNetworking (swift-corelibs-foundation #3296), which with 10,000 bots signing in crashed a process.
    case urlSession(URLSession)

    /// The built-in client shared by the whole process. On Linux, URLSession's transfers cost several times the
    /// CPU of the request itself (libcurl plus a dispatch source per socket): a bot's sign-in and refresh spent
    /// about a quarter of its reconnect's CPU in them.
    public static var shared: ChatterHTTPTransport { .builtIn(.shared) }

    /// One request and its response, whatever the status; `timeout` bounds the whole exchange, however the server
    /// paces its bytes, measured on `deadlineClock` (nil: the monotonic clock; a test's virtual clock otherwise).
    func send(
        _ request: Request, timeout: Duration, deadlineClock: (any HTTPDeadlineClock)? = nil
    ) async throws -> Response {
        switch self {
        case .builtIn(let client):
            // One parse of the URL for both the origin and the target.
            guard let (origin, target) = HTTPOrigin.parse(request.url, plainScheme: "http", secureScheme: "https") else {
                throw HTTPClientError.invalidURL(request.url.absoluteString)
            }
            var headers = HTTPHeaders()
            for (name, value) in request.headers { headers.add(name: name, value: value) }
            // A response the contract bounds above the client's own limit is read whole, up to that bound.
            let maxBodyBytes = request.largestResponse.map { max($0, client.configuration.parserLimits.maxBodyBytes) }
            let response = try await client.send(
                HTTPRequest(method: HTTPMethod(rawValue: request.method), target: target,
                            headers: headers, body: request.body.map { Array($0) } ?? []),
                to: origin, timeout: timeout, repeatable: request.repeatable, deadlineClock: deadlineClock,
                maxBodyBytes: maxBodyBytes)
            return Response(status: response.status.code, body: Data(response.body)) { response.headers.first(name: $0) }
        case .urlSession(let session):
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            urlRequest.httpBody = request.body
            urlRequest.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            let (data, response) = try await URLSessionTransfer.data(
                for: urlRequest, in: session, timeout: timeout, deadlineClock: deadlineClock)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return Response(status: http.statusCode, body: data) { http.value(forHTTPHeaderField: $0) }
        }
    }

    /// What the REST client sends, independent of the transport.
    struct Request: Sendable {
        var method: String
        var url: URL
        var headers: [(String, String)]
        var body: Data?
        /// Whether sending it twice does no harm though its method is not idempotent, so that the built-in client
        /// sends it again when a kept connection closes under it before any byte of the response.
        var repeatable = false
        /// The most bytes the response can hold by the contract when that may be more than the HTTP client accepts
        /// (`ChatterEndpoint.largestResponse`): the built-in client reads up to that much for this request.
        var largestResponse: Int?
    }

    /// What came back: status, body, and the first value of a header by name (case-insensitive).
    struct Response: Sendable {
        var status: Int
        var body: Data
        var header: @Sendable (String) -> String?
    }
}
