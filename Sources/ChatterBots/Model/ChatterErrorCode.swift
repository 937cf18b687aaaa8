/// An API error code (`code` of an error body). Open: a code this version does not know still decodes.
public struct ChatterErrorCode: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The code as the API writes it, e.g. `NOT_FRIENDS`.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// Missing or unknown client key (401; WebSocket close 4002). A configuration error: do not retry.
    public static let invalidClientKey: ChatterErrorCode = "INVALID_CLIENT_KEY"
    /// Missing, invalid or expired access token (401; WebSocket close 4001). Refresh the token, then retry.
    public static let unauthorized: ChatterErrorCode = "UNAUTHORIZED"
    /// Wrong username or password (401).
    public static let invalidCredentials: ChatterErrorCode = "INVALID_CREDENTIALS"
    /// Refresh token unknown, used twice, or device revoked (401). Sign in again.
    public static let invalidRefreshToken: ChatterErrorCode = "INVALID_REFRESH_TOKEN"
    /// Authenticated but not allowed: not a member, not an admin, not the sender (403).
    public static let forbidden: ChatterErrorCode = "FORBIDDEN"
    /// Messaging, or adding to a group, someone who is not a friend (403).
    public static let notFriends: ChatterErrorCode = "NOT_FRIENDS"
    /// No such resource visible to the caller (404).
    public static let notFound: ChatterErrorCode = "NOT_FOUND"
    /// Friend request to an existing friend (409).
    public static let alreadyFriends: ChatterErrorCode = "ALREADY_FRIENDS"
    /// A pending request between the two users already exists (409).
    public static let requestExists: ChatterErrorCode = "REQUEST_EXISTS"
    /// Malformed JSON or a missing/invalid field; `details.field` names it (400).
    public static let validationFailed: ChatterErrorCode = "VALIDATION_FAILED"
    /// Body over 1 MiB (413).
    public static let payloadTooLarge: ChatterErrorCode = "PAYLOAD_TOO_LARGE"
    /// Too many requests; wait `Retry-After` seconds (429; WebSocket close 4008).
    public static let rateLimited: ChatterErrorCode = "RATE_LIMITED"
    /// Anything else on the service's side (500).
    public static let internalError: ChatterErrorCode = "INTERNAL"

    /// The documented codes, in the order of the contract's table.
    public static let documented: [ChatterErrorCode] = [
        .invalidClientKey, .unauthorized, .invalidCredentials, .invalidRefreshToken, .forbidden, .notFriends,
        .notFound, .alreadyFriends, .requestExists, .validationFailed, .payloadTooLarge, .rateLimited, .internalError,
    ]

    /// The HTTP status the contract gives this code; nil for an unknown code.
    public var documentedHTTPStatus: Int? {
        switch self {
        case .invalidClientKey, .unauthorized, .invalidCredentials, .invalidRefreshToken: 401
        case .forbidden, .notFriends: 403
        case .notFound: 404
        case .alreadyFriends, .requestExists: 409
        case .validationFailed: 400
        case .payloadTooLarge: 413
        case .rateLimited: 429
        case .internalError: 500
        default: nil
        }
    }

    /// Whether the contract documents this code (it is one of `documented`).
    public var isDocumented: Bool { documentedHTTPStatus != nil }

    /// True when the same request may succeed later unchanged: `RATE_LIMITED` and `INTERNAL`. False when retrying
    /// cannot help (bad input, not allowed, not found, bad credentials), and for a code this version does not know:
    /// a new refusal is taken as permanent, so it is reported instead of retried forever. An error with an HTTP
    /// status knows more: see `ChatterAPIError.isTransient`.
    public var isTransient: Bool {
        self == .rateLimited || self == .internalError
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The error object of the API: the body of a failed REST response and the `data` of an `error` frame.
public struct ChatterErrorBody: Hashable, Sendable, Codable {
    /// What went wrong; see `ChatterErrorCode` for what to do.
    public var code: ChatterErrorCode
    /// The service's explanation, for people and logs.
    public var message: String
    /// Extra facts, e.g. `{ "field": "body" }` for `VALIDATION_FAILED`. Omitted from the JSON when nil.
    public var details: JSONValue?

    /// An error body, e.g. for the sandbox to send or a fake to throw.
    public init(code: ChatterErrorCode, message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }
}
