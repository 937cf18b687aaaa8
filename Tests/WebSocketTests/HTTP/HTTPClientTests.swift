import Foundation
import Glibc
import TestSupport
import Testing
@testable import WebSocket

/// `HTTPClient` against Python's own `http.server` and a few scripted servers (Peers/http_peer.py), on loopback.
///
/// The client's own bounds are out of reach of a stalled machine (a kept connection is not closed as idle between
/// two requests of a test) unless a test is about one: then its expiry is the only outcome (a peer that never
/// answers) or a virtual clock says when time is up. Waits for the idle pool follow the client's signal.
@Suite("HTTP client")
struct HTTPClientTests {
    private func startPeer(_ arguments: [String] = []) async throws -> (PeerProcess, HTTPOrigin) {
        let peer = try PeerProcess(script: "http_peer.py", arguments: arguments)
        return (peer, HTTPOrigin(isSecure: false, host: "127.0.0.1", port: try await peer.port()))
    }

    /// A client with hang guards for its connect and request timeouts and an hour of idle timeout, changed by
    /// `configure`; it signals `changes` whenever its idle pool changes.
    private func makeClient(
        changes: ChangeSignal = ChangeSignal(), _ configure: (inout HTTPClientConfiguration) -> Void = { _ in }
    ) -> HTTPClient {
        var configuration = HTTPClientConfiguration(
            connectTimeout: .hangGuard, requestTimeout: .hangGuard, idleTimeout: .seconds(3_600))
        configure(&configuration)
        return HTTPClient(configuration: configuration, idlePoolChanged: { changes.signal() })
    }

    private func get(_ target: String) -> HTTPRequest { HTTPRequest(method: .get, target: target) }

    @Test func sendsSeveralRequestsOverOneKeptConnection() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        var ports: Set<String> = []
        for _ in 0..<3 {
            let response = try await client.send(get("/echo"), to: origin)
            #expect(response.status.code == 200)
            ports.insert(response.headers.first(name: "X-Peer-Port") ?? "")
        }
        #expect(ports.count == 1)
        #expect(client.idleConnectionCount == 1)
        client.closeIdleConnections()
        _ = peer
    }

    @Test func sendsABodyAndItsHeadersAndReadsTheAnswer() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let request = HTTPRequest(
            method: .post, target: "/echo?name=a%20b", headers: ["Content-Type": "application/octet-stream", "X-Token": "t1"],
            body: body)
        let response = try await client.send(request, to: origin)
        #expect(response.status.code == 200)
        #expect(response.body == body)
        #expect(response.headers.first(name: "X-Method") == "POST")
        #expect(response.headers.first(name: "X-Header-X-Token") == "t1")
        #expect(response.headers.first(name: "X-Header-Host") == "127.0.0.1:\(origin.port)")
        _ = peer
    }

    @Test func readsAChunkedBodyAndKeepsTheConnection() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let response = try await client.send(get("/chunked"), to: origin)
        #expect(String(decoding: response.body, as: UTF8.self) == "alpha-beta-gamma")
        let next = try await client.send(get("/echo"), to: origin)
        #expect(next.headers.first(name: "X-Peer-Port") == response.headers.first(name: "X-Peer-Port"))
        _ = peer
    }

    @Test func readsNoBodyForHeadOrA204AndKeepsTheConnection() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let head = try await client.send(HTTPRequest(method: .head, target: "/echo"), to: origin)
        #expect(head.status.code == 200)
        #expect(head.body.isEmpty)
        let empty = try await client.send(get("/no-content"), to: origin)
        #expect(empty.status.code == 204)
        #expect(empty.headers.first(name: "X-Peer-Port") == head.headers.first(name: "X-Peer-Port"))
        _ = peer
    }

    @Test func timesOutWhenTheResponseKeepsTricklingPastTheTimeout() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let clock = ManualDeadlineClock()
        let answer = Task {
            try await client.send(
                get("/trickle"), to: origin, timeout: .seconds(30), repeatable: false, deadlineClock: clock)
        }
        try await peer.expectLine("TRICKLING")
        // A byte every 10 s of the 30 s: never silent for the timeout, but longer than it in all.
        for _ in 0..<3 {
            peer.send(line: "next")
            try await peer.expectLine("TRICKLED")
            clock.advance(by: .seconds(10))
        }
        await #expect {
            _ = try await value(of: answer, within: .hangGuard, "the trickled response to time out")
        } throws: { error in
            guard case HTTPClientError.timedOut(.response) = error else { return false }
            return true
        }
        #expect(client.idleConnectionCount == 0)
        _ = peer
    }

    @Test func readsABodyThatEndsWithTheConnectionAndDoesNotKeepIt() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let response = try await client.send(get("/until-close"), to: origin)
        #expect(String(decoding: response.body, as: UTF8.self) == "all of it, until the end")
        #expect(client.idleConnectionCount == 0)
        _ = peer
    }

    @Test func opensANewConnectionAfterAResponseWithConnectionClose() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let closing = try await client.send(get("/close"), to: origin)
        #expect(String(decoding: closing.body, as: UTF8.self) == "bye")
        #expect(client.idleConnectionCount == 0)
        let next = try await client.send(get("/echo"), to: origin)
        #expect(next.status.code == 200)
        #expect(next.headers.first(name: "X-Peer-Port") != closing.headers.first(name: "X-Peer-Port"))
        _ = peer
    }

    @Test func repeatsAGetOnANewConnectionWhenTheKeptOneClosesUnderIt() async throws {
        let (peer, origin) = try await startPeer(["--mode", "close-second"])
        let client = makeClient()
        let first = try await client.send(get("/a"), to: origin)
        let second = try await client.send(get("/b"), to: origin)
        #expect(String(decoding: second.body, as: UTF8.self) == "first")
        #expect(second.headers.first(name: "X-Peer-Port") != first.headers.first(name: "X-Peer-Port"))
        _ = peer
    }

    @Test func doesNotRepeatAPostWhenTheKeptConnectionClosesUnderIt() async throws {
        let (peer, origin) = try await startPeer(["--mode", "close-second"])
        let client = makeClient()
        _ = try await client.send(get("/a"), to: origin)
        await #expect {
            _ = try await client.send(HTTPRequest(method: .post, target: "/b", body: Array("x".utf8)), to: origin)
        } throws: { error in
            guard case HTTPClientError.connectionClosed = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func repeatsAPostCarryingAnIdempotencyKey() async throws {
        let (peer, origin) = try await startPeer(["--mode", "close-second"])
        let client = makeClient()
        _ = try await client.send(get("/a"), to: origin)
        let response = try await client.send(
            HTTPRequest(method: .post, target: "/b", headers: ["Idempotency-Key": "k1"], body: Array("x".utf8)), to: origin)
        #expect(String(decoding: response.body, as: UTF8.self) == "first")
        _ = peer
    }

    @Test func repeatsAPostItsCallerSaysMayBeRepeated() async throws {
        let (peer, origin) = try await startPeer(["--mode", "close-second"])
        let client = makeClient()
        _ = try await client.send(get("/a"), to: origin)
        let response = try await client.send(
            HTTPRequest(method: .post, target: "/media", body: Array("x".utf8)), to: origin, timeout: nil, repeatable: true)
        #expect(String(decoding: response.body, as: UTF8.self) == "first")
        _ = peer
    }

    @Test func forgetsAKeptConnectionTheServerClosedWhileIdle() async throws {
        let (peer, origin) = try await startPeer()
        let changes = ChangeSignal()
        let client = makeClient(changes: changes)
        let first = try await client.send(get("/echo"), to: origin)
        #expect(client.idleConnectionCount == 1)
        peer.send(line: "close")
        try await peer.expectLine("CLOSED")
        try await changes.wait(until: { client.idleConnectionCount == 0 }, "the client to forget the closed connection")
        let response = try await client.send(get("/echo"), to: origin)
        #expect(response.status.code == 200)
        #expect(response.headers.first(name: "X-Peer-Port") != first.headers.first(name: "X-Peer-Port"))
        _ = peer
    }

    @Test func closesItsIdleConnectionsAfterTheIdleTimeout() async throws {
        let (peer, origin) = try await startPeer()
        let changes = ChangeSignal()
        let client = makeClient(changes: changes) { $0.idleTimeout = .milliseconds(100) }
        _ = try await client.send(get("/echo"), to: origin)
        try await changes.wait(until: { client.idleConnectionCount == 0 }, "the idle connection to be closed")
        _ = peer
    }

    @Test func keepsNoMoreIdleConnectionsThanItsLimit() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient { $0.maxIdleConnectionsPerOrigin = 2 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { _ = try await client.send(HTTPRequest(method: .get, target: "/echo"), to: origin) } }
            try await group.waitForAll()
        }
        #expect(client.idleConnectionCount <= 2)
        _ = peer
    }

    @Test func timesOutWhenTheResponseDoesNotCome() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()  // /slow never answers: the timeout's expiry is the only outcome
        await #expect {
            _ = try await client.send(get("/slow"), to: origin, timeout: .milliseconds(300))
        } throws: { error in
            guard case HTTPClientError.timedOut(.response) = error else { return false }
            return true
        }
        #expect(client.idleConnectionCount == 0)
        _ = peer
    }

    @Test func failsWithCancelledWhenItsTaskIsCancelled() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient()
        let request = Task { try await client.send(HTTPRequest(method: .get, target: "/slow"), to: origin) }
        // Cancelled while it waits for the response: the peer has the request.
        #expect(try await peer.nextLine() == "SLOW")
        request.cancel()
        await #expect {
            _ = try await request.value
        } throws: { error in
            guard case HTTPClientError.cancelled = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func reportsAConnectionClosedWithoutAnAnswer() async throws {
        let (peer, origin) = try await startPeer()
        await #expect {
            _ = try await makeClient().send(get("/drop"), to: origin)
        } throws: { error in
            guard case HTTPClientError.connectionClosed = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func rejectsBytesThatAreNotAnHTTPResponse() async throws {
        let (peer, origin) = try await startPeer()
        await #expect {
            _ = try await makeClient().send(get("/garbage"), to: origin)
        } throws: { error in
            guard case HTTPClientError.invalidResponse = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func refusesABodyOverItsLimitAsTooLargeSayingWhatToDo() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient { $0.parserLimits = HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: 64 * 1024) }
        let request = HTTPRequest(method: .post, target: "/echo", body: Array(repeating: UInt8(ascii: "x"), count: 100_000))
        await #expect {
            _ = try await client.send(request, to: origin)
        } throws: { error in
            guard case HTTPClientError.responseTooLarge(let limit) = error else { return false }
            return limit == 64 * 1024 && "\(error)".contains("maxBodyBytes") && "\(error)".contains("ask for less")
        }
        #expect(client.idleConnectionCount == 0)
        _ = peer
    }

    @Test func aRequestGivenItsOwnBodyLimitReadsALargerBodyAndTheNextRequestHasTheClientsLimitAgain() async throws {
        let (peer, origin) = try await startPeer()
        var configuration = HTTPClientConfiguration.patient
        configuration.parserLimits = HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: 64 * 1024)
        let client = HTTPClient(configuration: configuration)
        let request = HTTPRequest(method: .post, target: "/echo", body: Array(repeating: UInt8(ascii: "x"), count: 100_000))
        let large = try await client.send(request, to: origin, timeout: nil, repeatable: false, maxBodyBytes: 128 * 1024)
        #expect(large.body.count == 100_000)
        #expect(client.idleConnectionCount == 1)
        await #expect {
            _ = try await client.send(request, to: origin)
        } throws: { error in
            guard case HTTPClientError.responseTooLarge(limit: 64 * 1024) = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func refusesAChunkedBodyOverItsLimitAsTooLarge() async throws {
        let (peer, origin) = try await startPeer()
        let client = makeClient { $0.parserLimits = HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: 8) }
        await #expect {
            _ = try await client.send(get("/chunked"), to: origin)
        } throws: { error in
            guard case HTTPClientError.responseTooLarge(limit: 8) = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func reportsARefusedConnectionWithItsErrno() async throws {
        // Below the ephemeral range and handed out once: no other test's listener takes it meanwhile.
        let port = try FreePort.take()
        await #expect {
            _ = try await makeClient().send(get("/"), to: HTTPOrigin(isSecure: false, host: "127.0.0.1", port: port))
        } throws: { error in
            guard case HTTPClientError.connectionFailed(_, let code) = error else { return false }
            return code == ECONNREFUSED
        }
    }

    @Test func talksHTTPSToAServerItTrusts() async throws {
        let certificates = try await TestCertificates.shared()
        let peer = try PeerProcess(
            script: "http_peer.py",
            arguments: ["--cert", certificates.localhost.certificatePath, "--key", certificates.localhost.privateKeyPath])
        let origin = try HTTPOrigin(url: #require(URL(string: "https://localhost:\(try await peer.port())/")))
        let tls = try certificates.clientConfiguration()
        let client = makeClient { $0.tls = tls }
        let first = try await client.send(HTTPRequest(method: .post, target: "/echo", body: Array("secret".utf8)), to: origin)
        let second = try await client.send(get("/echo"), to: origin)
        #expect(String(decoding: first.body, as: UTF8.self) == "secret")
        #expect(second.headers.first(name: "X-Peer-Port") == first.headers.first(name: "X-Peer-Port"))
        _ = peer
    }

    @Test func refusesAnHTTPSServerItDoesNotTrust() async throws {
        let certificates = try await TestCertificates.shared()
        let peer = try PeerProcess(
            script: "http_peer.py",
            arguments: ["--cert", certificates.unknownAuthority.certificatePath, "--key", certificates.unknownAuthority.privateKeyPath])
        let origin = HTTPOrigin(isSecure: true, host: "localhost", port: try await peer.port())
        let tls = try certificates.clientConfiguration()
        let client = makeClient { $0.tls = tls }
        await #expect {
            _ = try await client.send(get("/echo"), to: origin)
        } throws: { error in
            guard case HTTPClientError.tls = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func takesTheOriginAndTargetOfAURL() throws {
        let url = try #require(URL(string: "https://[::1]:8443/v1/conversations?updatedSince=2026-01-01T00%3A00%3A00Z"))
        let origin = try HTTPOrigin(url: url)
        #expect(origin == HTTPOrigin(isSecure: true, host: "::1", port: 8443))
        #expect(origin.hostHeader == "[::1]:8443")
        #expect(HTTPRequest.target(of: url) == "/v1/conversations?updatedSince=2026-01-01T00%3A00%3A00Z")
        #expect(throws: HTTPClientError.self) { try HTTPOrigin(url: #require(URL(string: "ws://example.com/"))) }
    }
}
