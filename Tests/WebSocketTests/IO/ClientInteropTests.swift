import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
@testable import WebSocket

/// Our client against a Python `websockets` 17.4 server (Peers/ws_server.py).
@Suite("Client against the websockets server")
struct ClientInteropTests {
    private static func withPeerServer(_ body: (PeerProcess, Int) async throws -> Void) async throws {
        let peer = try PeerProcess(script: "ws_server.py")
        let port = try await peer.port()
        try await body(peer, port)
    }

    private static func url(_ port: Int, _ pathAndQuery: String) throws -> URL {
        try #require(URL(string: "ws://127.0.0.1:\(port)\(pathAndQuery)"))
    }

    @Test func echoesTextAndBinaryMessagesUpTo1MiB() async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/echo"), configuration: .patient)
            var replies = connection.messages.makeAsyncIterator()
            for size in [0, 1, 125, 126, 65535, 65536, 1 << 20] {
                let text = String(repeating: "é", count: size / 2)
                try await connection.send(text: text)
                #expect(await replies.next() == .text(text))
                let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
                try await connection.send(binary: bytes)
                #expect(await replies.next() == .binary(bytes))
            }
            let info = await connection.close()
            #expect(info == WebSocketCloseInfo(code: .normalClosure, initiator: .local))
        }
    }

    @Test func sendsTheQueryStringAndExtraHeaders() async throws {
        try await Self.withPeerServer { peer, port in
            var configuration = WebSocketClientConfiguration.patient
            configuration.headers = ["Authorization": "Bearer abc", "X-Device": "bot-1"]
            let connection = try await WebSocketClient.connect(
                to: Self.url(port, "/echo?token=a%20b&since=4"), configuration: configuration)
            let open = try await peer.nextEvent()
            #expect(open["path"] as? String == "/echo")
            #expect(open["query"] as? String == "token=a%20b&since=4")
            let headers = try #require(open["headers"] as? String).split(separator: "\n")
            #expect(headers.contains("Authorization: Bearer abc"))
            #expect(headers.contains("X-Device: bot-1"))
            #expect(headers.contains("Host: 127.0.0.1:\(port)"))
            await connection.close()
        }
    }

    @Test func reassemblesFragmentedMessages() async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/fragments"), configuration: .patient)
            var replies = connection.messages.makeAsyncIterator()
            let text = String(repeating: "fragmentéd ", count: 3000)
            try await connection.send(text: "7:\(text)")
            #expect(await replies.next() == .text(text))
            await connection.close()
        }
    }

    @Test func answersTheServersPingWithAPong() async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/ping"), configuration: .patient)
            var replies = connection.messages.makeAsyncIterator()
            #expect(await replies.next() == .text("pong received"))
            _ = try await peer.nextEvent()  // open
            #expect(try await peer.nextEvent()["event"] as? String == "pong")
            await connection.close()
        }
    }

    @Test func receivesThePongOfItsOwnPing() async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/echo"), configuration: .patient)
            let pongs = AsyncStream<[UInt8]>.makeStream()
            connection.onPong { payload in pongs.continuation.yield(payload) }
            try await connection.ping(Array("heartbeat-1".utf8))
            var iterator = pongs.stream.makeAsyncIterator()
            #expect(await iterator.next() == Array("heartbeat-1".utf8))
            await connection.close()
        }
    }

    @Test(arguments: [(1000, ""), (1001, "going away"), (4001, "token expired"), (4008, "30")])
    func reportsTheServersCloseCodeAndReason(code: Int, reason: String) async throws {
        try await Self.withPeerServer { peer, port in
            let query = "code=\(code)&reason=\(reason.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/close?\(query)"), configuration: .patient)
            for await _ in connection.messages {}
            let info = await connection.closeInfo
            #expect(info == WebSocketCloseInfo(code: WebSocketCloseCode(UInt16(code)), reason: reason, initiator: .peer))
        }
    }

    @Test(arguments: [(1000, "bye"), (1001, "shutting down"), (4001, "unauthorized"), (4008, "30")])
    func deliversItsCloseCodeAndReasonToTheServer(code: Int, reason: String) async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/echo"), configuration: .patient)
            _ = try await peer.nextEvent()  // open
            let info = await connection.close(code: WebSocketCloseCode(UInt16(code)), reason: reason)
            // websockets echoes the code and reason of our close frame.
            #expect(info == WebSocketCloseInfo(code: WebSocketCloseCode(UInt16(code)), reason: reason, initiator: .local))
            let closed = try await peer.nextEvent()
            #expect(closed["code"] as? Int == code)
            #expect(closed["reason"] as? String == reason)
        }
    }

    @Test func detectsAServerThatDropsTheConnectionAs1006() async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/vanish"), configuration: .patient)
            for await _ in connection.messages {}
            let info = await connection.closeInfo
            #expect(info.code == .abnormalClosure)
            #expect(info.initiator == .transport)
        }
    }

    @Test func detectsAKilledServerProcessAs1006() async throws {
        try await Self.withPeerServer { peer, port in
            let connection = try await WebSocketClient.connect(to: Self.url(port, "/echo"), configuration: .patient)
            peer.kill()
            for await _ in connection.messages {}
            #expect(await connection.closeInfo.code == .abnormalClosure)
            await #expect(throws: WebSocketError.self) { try await connection.send(text: "anyone?") }
        }
    }

    @Test func reportsARefusedUpgradeWithItsStatusAndBody() async throws {
        try await Self.withPeerServer { peer, port in
            let url = try Self.url(port, "/reject")
            await #expect {
                _ = try await WebSocketClient.connect(to: url, configuration: .patient)
            } throws: { error in
                guard case WebSocketError.handshakeRejected(let status, _, let body) = error else { return false }
                return status == 403 && String(decoding: body, as: UTF8.self) == "go away!!\n"
            }
        }
    }
}

/// Connection setup failures that need no peer.
@Suite("Client connection failures")
struct ClientFailureTests {
    @Test func aClosedPortIsConnectionRefused() async throws {
        // Below the ephemeral range and handed out once: no other test's listener takes it meanwhile.
        let port = try FreePort.take()
        await #expect {
            _ = try await WebSocketClient.connect(to: URL(string: "ws://127.0.0.1:\(port)/")!, configuration: .patient)
        } throws: { error in
            guard case WebSocketError.connectionFailed(_, let code) = error else { return false }
            return code == ECONNREFUSED
        }
    }

    @Test func aServerThatNeverAnswersTimesOutInTheHandshakePhase() async throws {
        // A listening socket nobody accepts from: the TCP connection opens (backlog), the upgrade gets no answer.
        let fd = try Socket.listen(on: #require(SocketAddress(ipLiteral: "127.0.0.1", port: 0)))
        defer { Glibc.close(fd) }
        let port = try #require(Socket.localAddress(of: fd)).port
        var configuration = WebSocketClientConfiguration.patient
        configuration.handshakeTimeout = .milliseconds(300)
        await #expect {
            _ = try await WebSocketClient.connect(to: URL(string: "ws://127.0.0.1:\(port)/")!, configuration: configuration)
        } throws: { error in
            guard case WebSocketError.timedOut(.handshake) = error else { return false }
            return true
        }
    }

    @Test func cancellingTheConnectingTaskThrowsCancelled() async throws {
        let fd = try Socket.listen(on: #require(SocketAddress(ipLiteral: "127.0.0.1", port: 0)))
        defer { Glibc.close(fd) }
        let port = try #require(Socket.localAddress(of: fd)).port
        let url = try #require(URL(string: "ws://127.0.0.1:\(port)/"))
        let attempt = Task { () throws(WebSocketError) -> WebSocketConnection in
            try await WebSocketClient.connect(to: url)
        }
        attempt.cancel()
        await #expect {
            _ = try await attempt.value
        } throws: { error in
            guard case WebSocketError.cancelled = error else { return false }
            return true
        }
    }

    @Test func anUnknownHostFailsNameResolution() async throws {
        await #expect {
            _ = try await WebSocketClient.connect(to: URL(string: "ws://no-such-host.invalid/")!)
        } throws: { error in
            guard case WebSocketError.nameResolutionFailed = error else { return false }
            return true
        }
    }

    @Test func anHTTPURLIsRefused() async throws {
        await #expect {
            _ = try await WebSocketClient.connect(to: URL(string: "http://127.0.0.1/")!)
        } throws: { error in
            guard case WebSocketError.invalidURL = error else { return false }
            return true
        }
    }
}

/// Closing against a peer that never answers (Peers/silent_server.py).
@Suite("Close against a silent peer")
struct SilentPeerTests {
    @Test func closeFinishesWithinTheCloseTimeoutWhenThePeerNeverAnswers() async throws {
        let peer = try PeerProcess(script: "silent_server.py")
        let port = try await peer.port()
        var configuration = WebSocketClientConfiguration.patient
        configuration.closeTimeout = .milliseconds(300)
        let connection = try await WebSocketClient.connect(
            to: #require(URL(string: "ws://127.0.0.1:\(port)/")), configuration: configuration)
        // Without the close timeout the close would wait for good: the hang guard fails it then.
        let info = try await withDeadline(.hangGuard, "the close to give up on the silent peer") {
            await connection.close(code: WebSocketCloseCode(4001), reason: "leaving")
        }
        #expect(info == WebSocketCloseInfo(code: .abnormalClosure, initiator: .local))
        for await _ in connection.messages {}
    }
}
