/// Why an opening handshake (RFC 6455 §4) was rejected, with the detail needed to fix the peer or the request.
public enum WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The upgrade request's method was not GET.
    case methodNotGET(String)
    /// The request was not HTTP/1.1 or later.
    case unsupportedHTTPVersion(String)
    /// The request had no Host header.
    case missingHost
    /// The Upgrade header was missing (nil) or did not name "websocket".
    case upgradeNotWebSocket(String?)
    /// The Connection header was missing (nil) or did not list "Upgrade".
    case connectionNotUpgrade(String?)
    /// Sec-WebSocket-Version was missing (nil) or not 13; answer 426 with `Sec-WebSocket-Version: 13`.
    case unsupportedWebSocketVersion(String?)
    /// Sec-WebSocket-Key was missing (nil), repeated, or not the base64 encoding of 16 bytes.
    case invalidKey(String?)
    /// The server answered with this status instead of 101 Switching Protocols.
    case unexpectedStatus(Int)
    /// The server's Sec-WebSocket-Accept (nil if missing) did not match the key the client sent.
    case acceptMismatch(expected: String, received: String?)
    /// The server selected extensions the client did not offer.
    case unexpectedExtensions(String)
    /// The server selected a subprotocol the client did not offer.
    case unexpectedSubprotocol(String)

    /// The HTTP status a server should answer a rejected upgrade request with.
    public var httpStatus: Int {
        switch self {
        case .unsupportedWebSocketVersion: 426
        default: 400
        }
    }

    public var description: String {
        switch self {
        case .methodNotGET(let method): "WebSocket upgrade must use GET, not \(method)"
        case .unsupportedHTTPVersion(let version): "WebSocket upgrade needs HTTP/1.1 or later, not \(version)"
        case .missingHost: "WebSocket upgrade request has no Host header"
        case .upgradeNotWebSocket(let value): "Upgrade header is \(value.map { "'\($0)'" } ?? "missing"), expected 'websocket'"
        case .connectionNotUpgrade(let value): "Connection header is \(value.map { "'\($0)'" } ?? "missing"), expected it to list 'Upgrade'"
        case .unsupportedWebSocketVersion(let value): "Sec-WebSocket-Version is \(value.map { "'\($0)'" } ?? "missing"), only 13 is supported"
        case .invalidKey(let value): "Sec-WebSocket-Key is \(value.map { "'\($0)'" } ?? "missing"), expected base64 of 16 bytes"
        case .unexpectedStatus(let status): "server answered HTTP \(status) instead of 101 Switching Protocols"
        case .acceptMismatch(let expected, let received): "Sec-WebSocket-Accept is \(received.map { "'\($0)'" } ?? "missing"), expected '\(expected)'"
        case .unexpectedExtensions(let value): "server selected extensions that were not offered: \(value)"
        case .unexpectedSubprotocol(let value): "server selected a subprotocol that was not offered: \(value)"
        }
    }
}
