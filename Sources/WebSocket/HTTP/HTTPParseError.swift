/// Why bytes received are not an acceptable HTTP/1.1 message; `status` is what a server answers before closing.
public enum HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request line is not `METHOD target HTTP/1.x`.
    case malformedRequestLine
    /// The status line is not `HTTP/1.x code reason`.
    case malformedStatusLine
    /// A header line is not `name: value` with a token name (obsolete line folding is refused too).
    case malformedHeader
    /// The message is HTTP but not version 1.0 or 1.1.
    case unsupportedVersion(String)
    /// The request line and headers together exceed the limit, or there are too many header fields.
    case headersTooLarge(limit: Int)
    /// The body is larger than the limit.
    case bodyTooLarge(limit: Int)
    /// `Content-Length` is not a number, or appears twice with different values, or with `Transfer-Encoding`.
    case invalidContentLength
    /// A `Transfer-Encoding` other than `chunked`.
    case unsupportedTransferEncoding(String)
    /// A chunked body whose chunk sizes or delimiters are malformed.
    case malformedChunkedBody
    /// The connection ended in the middle of a message.
    case truncatedMessage

    /// The status a server sends for this error: 400, 413, 431, 501 or 505.
    public var status: HTTPStatus {
        switch self {
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .payloadTooLarge
        case .unsupportedTransferEncoding: .notImplemented
        case .unsupportedVersion: .httpVersionNotSupported
        default: .badRequest
        }
    }

    public var description: String {
        switch self {
        case .malformedRequestLine: "malformed request line"
        case .malformedStatusLine: "malformed status line"
        case .malformedHeader: "malformed header field"
        case .unsupportedVersion(let version): "unsupported HTTP version \(version)"
        case .headersTooLarge(let limit): "header section larger than \(limit) bytes or too many fields"
        case .bodyTooLarge(let limit): "body larger than \(limit) bytes"
        case .invalidContentLength: "invalid Content-Length"
        case .unsupportedTransferEncoding(let coding): "unsupported Transfer-Encoding \(coding)"
        case .malformedChunkedBody: "malformed chunked body"
        case .truncatedMessage: "connection closed in the middle of a message"
        }
    }
}

/// Bounds on what a peer can make the HTTP parser buffer.
public struct HTTPParserLimits: Sendable, Hashable {
    /// The largest request/status line plus header fields, in bytes (over it: 431).
    public var maxHeaderBytes: Int
    /// The most header fields (over it: 431).
    public var maxHeaderCount: Int
    /// The largest body, in bytes (over it: 413).
    public var maxBodyBytes: Int

    /// Defaults: 16 KiB of headers, 100 fields, 8 MiB of body.
    public init(maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 8 << 20) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
