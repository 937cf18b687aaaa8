import COpenSSL
import Foundation

/// The opening handshake of RFC 6455 §4 as pure functions over plain values: key generation, the
/// Sec-WebSocket-Accept computation, and validation of a client's upgrade request and a server's 101 response.
public enum WebSocketHandshake {
    /// The GUID that RFC 6455 appends to the key before hashing.
    public static let keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The only protocol version this implementation speaks.
    public static let version = "13"

    /// A fresh Sec-WebSocket-Key: 16 bytes from a cryptographically secure generator, base64-encoded.
    public static func generateKey() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        if RAND_bytes(&bytes, Int32(bytes.count)) != 1 {
            var generator = SystemRandomNumberGenerator()
            return generateKey(using: &generator)
        }
        return Data(bytes).base64EncodedString()
    }

    /// A Sec-WebSocket-Key drawn from `generator` (for reproducible tests).
    public static func generateKey(using generator: inout some RandomNumberGenerator) -> String {
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// The Sec-WebSocket-Accept value for `key`: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        let input = Array((String(key.trimmingOWS()) + keyGUID).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = SHA1(input, input.count, &digest)
        return Data(digest).base64EncodedString()
    }

    // MARK: Client side

    /// The headers of a client's upgrade request. `host` is the Host value (with the port when not the default);
    /// `additional` headers follow the required ones.
    public static func requestHeaders(
        host: String, key: String, protocols: [String] = [], additional: HTTPHeaders = HTTPHeaders()
    ) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Host": host, "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": version,
        ]
        if !protocols.isEmpty { headers.add(name: "Sec-WebSocket-Protocol", value: protocols.joined(separator: ", ")) }
        headers.add(contentsOf: additional)
        return headers
    }

    /// Checks a server's answer to the upgrade request that carried `key`; returns the subprotocol the server
    /// selected, if any. No extensions are offered, so a response that selects one is rejected.
    @discardableResult
    public static func validateResponse(
        status: Int, headers: HTTPHeaders, key: String, requestedProtocols: [String] = []
    ) throws(WebSocketHandshakeError) -> String? {
        guard status == 101 else { throw .unexpectedStatus(status) }
        guard headers.contains(token: "websocket", inHeader: "Upgrade") else {
            throw .upgradeNotWebSocket(headers.first(name: "Upgrade"))
        }
        guard headers.contains(token: "upgrade", inHeader: "Connection") else {
            throw .connectionNotUpgrade(headers.first(name: "Connection"))
        }
        let expected = acceptValue(forKey: key)
        let accepts = headers["Sec-WebSocket-Accept"]
        guard accepts.count == 1, let accept = accepts.first, accept.trimmingOWS() == expected else {
            throw .acceptMismatch(expected: expected, received: accepts.first)
        }
        let extensions = headers["Sec-WebSocket-Extensions"].filter { !$0.trimmingOWS().isEmpty }
        guard extensions.isEmpty else { throw .unexpectedExtensions(extensions.joined(separator: ", ")) }
        guard let selected = headers.first(name: "Sec-WebSocket-Protocol").map({ String($0.trimmingOWS()) }) else {
            return nil
        }
        guard requestedProtocols.contains(selected) else { throw .unexpectedSubprotocol(selected) }
        return selected
    }

    // MARK: Server side

    /// Checks a client's upgrade request and returns its Sec-WebSocket-Key. `httpVersion` is the request line's
    /// version, such as "HTTP/1.1". On error, answer with `error.httpStatus`.
    public static func validateRequest(
        method: String, httpVersion: String, headers: HTTPHeaders
    ) throws(WebSocketHandshakeError) -> String {
        guard method == "GET" else { throw .methodNotGET(method) }
        guard isHTTP11OrLater(httpVersion) else { throw .unsupportedHTTPVersion(httpVersion) }
        guard headers.contains(name: "Host") else { throw .missingHost }
        guard headers.contains(token: "websocket", inHeader: "Upgrade") else {
            throw .upgradeNotWebSocket(headers.first(name: "Upgrade"))
        }
        guard headers.contains(token: "upgrade", inHeader: "Connection") else {
            throw .connectionNotUpgrade(headers.first(name: "Connection"))
        }
        let versions = headers["Sec-WebSocket-Version"]
        guard versions.count == 1, let clientVersion = versions.first, clientVersion.trimmingOWS() == version else {
            throw .unsupportedWebSocketVersion(versions.first)
        }
        let keys = headers["Sec-WebSocket-Key"]
        guard keys.count == 1, let key = keys.first.map({ String($0.trimmingOWS()) }), isValidKey(key) else {
            throw .invalidKey(keys.first)
        }
        return key
    }

    /// The headers of the 101 response that accepts a request carrying `key`, selecting `selectedProtocol` if given.
    public static func responseHeaders(forKey key: String, selectedProtocol: String? = nil) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": acceptValue(forKey: key),
        ]
        if let selectedProtocol { headers.add(name: "Sec-WebSocket-Protocol", value: selectedProtocol) }
        return headers
    }

    /// The subprotocols a client offered in Sec-WebSocket-Protocol, in its order of preference.
    public static func offeredProtocols(in headers: HTTPHeaders) -> [String] {
        headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",").map { String($0.trimmingOWS()) } }
            .filter { !$0.isEmpty }
    }

    private static func isValidKey(_ key: String) -> Bool {
        key.utf8.count == 24 && Data(base64Encoded: key)?.count == 16
    }

    /// Whether `version` is "HTTP/x.y" with x.y at least 1.1.
    private static func isHTTP11OrLater(_ version: String) -> Bool {
        guard version.hasPrefix("HTTP/") else { return false }
        let numbers = version.dropFirst(5).split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 2, let major = Int(numbers[0]), let minor = Int(numbers[1]) else { return false }
        return major > 1 || (major == 1 && minor >= 1)
    }
}
