import Foundation
import TestSupport
import Testing
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import ChatterBots

/// How long a `ChatterHTTPTransport` lets one exchange take.
@Suite struct ChatterHTTPTransportTests {
    @Test(arguments: ["built-in", "URLSession"])
    func anAnswerTrickledPastTheTimeoutFailsAsATimeout(transport name: String) async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/slow", rawBody: "0123456789", trickle: true)
        ])
        defer { server.stop() }
        let transport: ChatterHTTPTransport =
            name == "URLSession" ? .urlSession(URLSession(configuration: .ephemeral)) : .builtIn(HTTPClient(configuration: .patient))
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/slow"))
        let clock = ManualDeadlineClock()
        let answer = Task {
            try await transport.send(
                .init(method: "GET", url: url, headers: [], body: nil), timeout: .seconds(30), deadlineClock: clock)
        }
        try await server.waitUntilTrickling()
        // A byte every 10 s of the 30 s: never silent for the timeout, but longer than it in all.
        for _ in 0..<3 {
            try await server.trickleNextByte()
            clock.advance(by: .seconds(10))
        }
        let error = await #expect(throws: (any Error).self) {
            _ = try await value(of: answer, within: .hangGuard, "the trickled answer to time out")
        }
        switch error {
        case HTTPClientError.timedOut(.response)?: break
        case let error as URLError where error.code == .timedOut: break
        default: Issue.record("expected a timeout, got \(String(describing: error))")
        }
    }
}
