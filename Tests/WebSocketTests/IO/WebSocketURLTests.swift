import Foundation
import Testing
@testable import WebSocket

@Suite("WebSocket URLs")
struct WebSocketURLTests {
    private func parse(_ text: String) throws -> WebSocketURL {
        try WebSocketURL(#require(URL(string: text)))
    }

    @Test func keepsThePercentEncodedPathAndQuery() throws {
        let url = try parse("wss://chat.example.com/v1/realtime?token=a%20b&device=x%2Fy")
        #expect(url.isSecure)
        #expect(url.host == "chat.example.com")
        #expect(url.port == 443)
        #expect(url.requestTarget == "/v1/realtime?token=a%20b&device=x%2Fy")
        #expect(url.hostHeader == "chat.example.com")
    }

    @Test func usesSlashForAnEmptyPathAndNamesANonDefaultPort() throws {
        let url = try parse("ws://127.0.0.1:8080")
        #expect(!url.isSecure)
        #expect(url.requestTarget == "/")
        #expect(url.hostHeader == "127.0.0.1:8080")
    }

    @Test func bracketsAnIPv6HostInTheHostHeader() throws {
        let url = try parse("ws://[::1]:9000/socket")
        #expect(url.host == "::1")
        #expect(url.hostHeader == "[::1]:9000")
    }

    @Test(arguments: ["http://example.com/", "ftp://example.com", "ws:///nohost", "wss://example.com:0/"])
    func refusesURLsThatAreNotWebSocketURLs(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: WebSocketError.self) { try WebSocketURL(url) }
    }
}
