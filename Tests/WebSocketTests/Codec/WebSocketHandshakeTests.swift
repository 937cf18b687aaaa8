import Foundation
import Testing
@testable import WebSocket
import TestSupport

/// The opening handshake: key and accept values, request and response validation.
@Suite struct WebSocketHandshakeTests {
    let key = "dGhlIHNhbXBsZSBub25jZQ=="

    var validRequest: HTTPHeaders {
        ["Host": "server.example.com", "Upgrade": "websocket", "Connection": "Upgrade",
         "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13"]
    }

    func requestError(method: String = "GET", version: String = "HTTP/1.1", _ headers: HTTPHeaders) -> WebSocketHandshakeError? {
        do {
            _ = try WebSocketHandshake.validateRequest(method: method, httpVersion: version, headers: headers)
            return nil
        } catch {
            return error
        }
    }

    func without(_ name: String, _ headers: HTTPHeaders) -> HTTPHeaders {
        var copy = headers
        copy.remove(name: name)
        return copy
    }

    func with(_ name: String, _ value: String, _ headers: HTTPHeaders) -> HTTPHeaders {
        var copy = headers
        copy.replaceOrAdd(name: name, value: value)
        return copy
    }

    @Test func acceptValueMatchesTheRFCExample() {
        #expect(WebSocketHandshake.acceptValue(forKey: key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func generatedKeysAreBase64Of16BytesAndDiffer() {
        let first = WebSocketHandshake.generateKey()
        let second = WebSocketHandshake.generateKey()
        #expect(Data(base64Encoded: first)?.count == 16)
        #expect(first.count == 24)
        #expect(first != second)
    }

    @Test func seededKeyGenerationIsReproducible() {
        var a = SeededGenerator(seed: 1)
        var b = SeededGenerator(seed: 1)
        #expect(WebSocketHandshake.generateKey(using: &a) == WebSocketHandshake.generateKey(using: &b))
    }

    @Test func validRequestYieldsItsKey() throws {
        #expect(try WebSocketHandshake.validateRequest(method: "GET", httpVersion: "HTTP/1.1", headers: validRequest) == key)
    }

    @Test func requestHeaderNamesAndTokensAreCaseInsensitive() throws {
        let headers: HTTPHeaders = [
            "host": "a", "UPGRADE": "WebSocket", "connection": "keep-alive, UPGRADE",
            "sec-websocket-key": key, "SEC-WEBSOCKET-VERSION": "13",
        ]
        #expect(try WebSocketHandshake.validateRequest(method: "GET", httpVersion: "HTTP/1.1", headers: headers) == key)
    }

    @Test func postRequestIsRejected() {
        #expect(requestError(method: "POST", validRequest) == .methodNotGET("POST"))
    }

    @Test func http10RequestIsRejected() {
        #expect(requestError(version: "HTTP/1.0", validRequest) == .unsupportedHTTPVersion("HTTP/1.0"))
    }

    @Test func requestWithoutHostIsRejected() {
        #expect(requestError(without("Host", validRequest)) == .missingHost)
    }

    @Test func requestWithoutWebSocketUpgradeIsRejected() {
        #expect(requestError(without("Upgrade", validRequest)) == .upgradeNotWebSocket(nil))
        #expect(requestError(with("Upgrade", "h2c", validRequest)) == .upgradeNotWebSocket("h2c"))
    }

    @Test func requestWhoseConnectionLacksUpgradeIsRejected() {
        #expect(requestError(with("Connection", "keep-alive", validRequest)) == .connectionNotUpgrade("keep-alive"))
    }

    @Test func requestWithAnotherVersionIsRejectedWith426() {
        let error = requestError(with("Sec-WebSocket-Version", "8", validRequest))
        #expect(error == .unsupportedWebSocketVersion("8"))
        #expect(error?.httpStatus == 426)
    }

    @Test(arguments: ["", "abc", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZSEh", "!!!!!!!!!!!!!!!!!!!!!!=="])
    func requestWithAMalformedKeyIsRejected(badKey: String) {
        let error = requestError(with("Sec-WebSocket-Key", badKey, validRequest))
        #expect(error == .invalidKey(badKey))
        #expect(error?.httpStatus == 400)
    }

    @Test func requestWithTwoKeysIsRejected() {
        var headers = validRequest
        headers.add(name: "Sec-WebSocket-Key", value: key)
        #expect(requestError(headers) == .invalidKey(key))
    }

    @Test func responseHeadersAcceptTheKey() throws {
        let headers = WebSocketHandshake.responseHeaders(forKey: key)
        #expect(headers.first(name: "sec-websocket-accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(try WebSocketHandshake.validateResponse(status: 101, headers: headers, key: key) == nil)
    }

    @Test func clientRequestHeadersPassServerValidation() throws {
        let generated = WebSocketHandshake.generateKey()
        let headers = WebSocketHandshake.requestHeaders(host: "example.com:8080", key: generated, additional: ["Authorization": "Bearer t"])
        #expect(try WebSocketHandshake.validateRequest(method: "GET", httpVersion: "HTTP/1.1", headers: headers) == generated)
        #expect(headers.first(name: "authorization") == "Bearer t")
    }

    @Test func responseWithAnotherStatusIsRejected() {
        #expect(throws: WebSocketHandshakeError.unexpectedStatus(403)) {
            try WebSocketHandshake.validateResponse(status: 403, headers: HTTPHeaders(), key: key)
        }
    }

    @Test func responseWithAWrongAcceptIsRejected() {
        var headers = WebSocketHandshake.responseHeaders(forKey: key)
        headers.replaceOrAdd(name: "Sec-WebSocket-Accept", value: "AAAA")
        #expect(throws: WebSocketHandshakeError.acceptMismatch(expected: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", received: "AAAA")) {
            try WebSocketHandshake.validateResponse(status: 101, headers: headers, key: key)
        }
    }

    @Test func responseWithoutAcceptIsRejected() {
        var headers = WebSocketHandshake.responseHeaders(forKey: key)
        headers.remove(name: "Sec-WebSocket-Accept")
        #expect(throws: WebSocketHandshakeError.acceptMismatch(expected: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", received: nil)) {
            try WebSocketHandshake.validateResponse(status: 101, headers: headers, key: key)
        }
    }

    @Test func responseWithoutUpgradeOrConnectionIsRejected() {
        var noUpgrade = WebSocketHandshake.responseHeaders(forKey: key)
        noUpgrade.remove(name: "Upgrade")
        #expect(throws: WebSocketHandshakeError.upgradeNotWebSocket(nil)) {
            try WebSocketHandshake.validateResponse(status: 101, headers: noUpgrade, key: key)
        }
        var noConnection = WebSocketHandshake.responseHeaders(forKey: key)
        noConnection.replaceOrAdd(name: "Connection", value: "close")
        #expect(throws: WebSocketHandshakeError.connectionNotUpgrade("close")) {
            try WebSocketHandshake.validateResponse(status: 101, headers: noConnection, key: key)
        }
    }

    @Test func responseSelectingAnExtensionIsRejected() {
        var headers = WebSocketHandshake.responseHeaders(forKey: key)
        headers.add(name: "Sec-WebSocket-Extensions", value: "permessage-deflate")
        #expect(throws: WebSocketHandshakeError.unexpectedExtensions("permessage-deflate")) {
            try WebSocketHandshake.validateResponse(status: 101, headers: headers, key: key)
        }
    }

    @Test func responseSelectingAnOfferedSubprotocolReturnsIt() throws {
        let headers = WebSocketHandshake.responseHeaders(forKey: key, selectedProtocol: "chat.v2")
        #expect(try WebSocketHandshake.validateResponse(status: 101, headers: headers, key: key, requestedProtocols: ["chat.v1", "chat.v2"]) == "chat.v2")
        #expect(throws: WebSocketHandshakeError.unexpectedSubprotocol("chat.v2")) {
            try WebSocketHandshake.validateResponse(status: 101, headers: headers, key: key)
        }
    }

    @Test func offeredProtocolsAreReadInOrder() {
        let headers = WebSocketHandshake.requestHeaders(host: "h", key: key, protocols: ["a", "b"])
        #expect(WebSocketHandshake.offeredProtocols(in: headers + ["Sec-WebSocket-Protocol": " c ,"]) == ["a", "b", "c"])
    }
}

private func + (lhs: HTTPHeaders, rhs: HTTPHeaders) -> HTTPHeaders {
    var result = lhs
    result.add(contentsOf: rhs)
    return result
}
