/// An error the Chatter API reported: a REST error response or a WebSocket `error` frame.
///
/// `code` says what happened (see `ChatterErrorCode` for what to do); `isTransient` says whether the
/// same request may succeed later; `retryAfter` is the `Retry-After` of a `RATE_LIMITED` response.
public struct ChatterAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, e.g. `NOT_FRIENDS`; a code this version does not know is kept as it came.
    public var code: ChatterErrorCode
    /// The service's explanation, for people and logs (not for program logic: match `code`).
    public var message: String
    /// Extra facts the service attached, e.g. `{ "field": "body" }` for `VALIDATION_FAILED`.
    public var details: JSONValue?
    /// The HTTP status; nil when the error came in a WebSocket `error` frame.
    public var httpStatus: Int?
    /// How long to wait before retrying, from `Retry-After` (seconds or an HTTP-date, read by `RetryAfter`).
    public var retryAfter: Duration?
    /// The REST endpoint that failed; nil for WebSocket errors.
    public var endpoint: ChatterEndpoint?

    /// An error with every field given, e.g. to fake a refusal in a test.
    public init(
        code: ChatterErrorCode, message: String, details: JSONValue? = nil, httpStatus: Int? = nil,
        retryAfter: Duration? = nil, endpoint: ChatterEndpoint? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.endpoint = endpoint
    }

    /// The error an error body stands for, with what the response around it added (status, `Retry-After`).
    public init(_ body: ChatterErrorBody, httpStatus: Int? = nil, retryAfter: Duration? = nil, endpoint: ChatterEndpoint? = nil) {
        self.init(
            code: body.code, message: body.message, details: body.details, httpStatus: httpStatus,
            retryAfter: retryAfter, endpoint: endpoint)
    }

    /// The error object as the API writes it.
    public var body: ChatterErrorBody { ChatterErrorBody(code: code, message: message, details: details) }

    /// True when retrying the same request later may succeed: a documented code says so itself
    /// (`ChatterErrorCode.isTransient`); an unknown code is permanent unless its HTTP status is 429 or 5xx, the
    /// statuses that mean "later" whatever the code (a WebSocket `error` frame has no status, so it is permanent).
    public var isTransient: Bool {
        if code.isDocumented { return code.isTransient }
        guard let httpStatus else { return false }
        return httpStatus == 429 || (500...599).contains(httpStatus)
    }

    public var description: String {
        var text = code.rawValue
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let endpoint { text += " on \(endpoint.method.rawValue) \(endpoint.pathTemplate)" }
        text += ": \(message)"
        if let details { text += " \(details)" }
        if let retryAfter { text += "; retry after \(retryAfter)" }
        return text
    }
}

/// A REST call that failed without an API error: nothing was sent, no response came, or the response
/// was not the documented shape.
public enum ChatterClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A user endpoint was called while the token store is empty: sign in (login or register) first.
    case notSignedIn(ChatterEndpoint)
    /// A developer endpoint was called on a client made without a client secret.
    case missingClientSecret(ChatterEndpoint)
    /// The request could not be built (an unencodable body, a base URL that yields no valid URL).
    case invalidRequest(ChatterEndpoint, description: String)
    /// No HTTP response (connection refused, timeout, DNS, TLS): retry later with backoff.
    case transport(ChatterEndpoint, description: String)
    /// A success status whose body is not the documented shape; `field` is the coding path at fault.
    case invalidResponse(ChatterEndpoint, httpStatus: Int, field: String, description: String)
    /// The response was larger than the HTTP client accepts (`limit` bytes), so it was not read: asking again for
    /// the same fails the same way. Ask for less (a smaller `limit` of a page), or give the client a larger limit.
    /// `GET /conversations` takes no `limit`: its page is read up to the most the contract lets it hold.
    case responseTooLarge(ChatterEndpoint, limit: Int)

    /// The endpoint the call was for.
    public var endpoint: ChatterEndpoint {
        switch self {
        case .notSignedIn(let endpoint), .missingClientSecret(let endpoint), .invalidRequest(let endpoint, _),
            .transport(let endpoint, _), .invalidResponse(let endpoint, _, _, _), .responseTooLarge(let endpoint, _):
            endpoint
        }
    }

    public var description: String {
        let call = "\(endpoint.method.rawValue) \(endpoint.pathTemplate)"
        switch self {
        case .notSignedIn: return "\(call) needs a signed-in device: log in or register first"
        case .missingClientSecret: return "\(call) is a developer endpoint: create the client with the workspace's client secret"
        case .invalidRequest(_, let description): return "\(call) could not be sent: \(description)"
        case .transport(_, let description): return "\(call) got no response: \(description)"
        case .invalidResponse(_, let status, let field, let description):
            return "\(call) answered \(status) with an unexpected body at '\(field)': \(description)"
        case .responseTooLarge(let endpoint, let limit) where endpoint.largestResponse != nil:
            return "\(call) answered with more than the \(limit) bytes this client accepts for it (the contract's bound, "
                + "or the client's own limit if larger); it takes no page limit, so only a larger limit helps: raise "
                + "HTTPClientConfiguration.parserLimits.maxBodyBytes of the REST transport"
        case .responseTooLarge(_, let limit):
            return "\(call) answered with more than the \(limit) bytes this client accepts: ask for less (a smaller page "
                + "limit), or raise the limit (HTTPClientConfiguration.parserLimits.maxBodyBytes of the REST transport)"
        }
    }
}
