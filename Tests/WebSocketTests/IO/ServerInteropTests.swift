import Foundation
import TestSupport
import Testing
@testable import WebSocket

/// Our server against the Python `websockets` 17.4 client (Peers/ws_client.py).
@Suite("Server against the websockets client")
struct ServerInteropTests {
    /// A server whose WebSocket handler echoes until the peer closes, then reports how the connection ended.
    /// On `/close?code=C&reason=R` it closes at once with that code and reason instead. Its idle close and close
    /// handshake wait hang guards: no test here is about them.
    private struct EchoServer {
        let server: HTTPServer
        let closes: AsyncStream<WebSocketCloseInfo>

        static func start() async throws -> EchoServer {
            let (closes, continuation) = AsyncStream<WebSocketCloseInfo>.makeStream()
            let server = try await HTTPServer.start(configuration: .patient) { request in
                .webSocket { connection in
                    if request.path == "/close", let code = request.queryValue("code").flatMap(UInt16.init) {
                        continuation.yield(await connection.close(code: WebSocketCloseCode(code), reason: request.queryValue("reason") ?? ""))
                        return
                    }
                    for await message in connection.messages {
                        try? await connection.send(message)
                    }
                    continuation.yield(await connection.closeInfo)
                }
            }
            return EchoServer(server: server, closes: closes)
        }

        func nextClose() async -> WebSocketCloseInfo? {
            var iterator = closes.makeAsyncIterator()
            return await iterator.next()
        }
    }

    private func runClient(_ server: EchoServer, path: String = "/", _ scenario: String...) throws -> PeerProcess {
        try PeerProcess(script: "ws_client.py", arguments: ["ws://127.0.0.1:\(server.server.port)\(path)"] + scenario)
    }

    @Test func echoesTextAndBinaryMessagesUpTo1MiB() async throws {
        let server = try await EchoServer.start()
        let client = try runClient(server, "echo")
        #expect(try await client.nextEvent()["event"] as? String == "echoed")
        #expect(await client.exitStatus() == 0)
        #expect(await server.nextClose() == WebSocketCloseInfo(code: .normalClosure, initiator: .peer))
        await server.server.shutdown()
    }

    @Test func reassemblesFragmentedMessages() async throws {
        let server = try await EchoServer.start()
        let client = try runClient(server, "fragments")
        #expect(try await client.nextEvent()["event"] as? String == "fragments echoed")
        #expect(await client.exitStatus() == 0)
        await server.server.shutdown()
    }

    @Test func answersPingsWithPongs() async throws {
        let server = try await EchoServer.start()
        let client = try runClient(server, "ping")
        #expect(try await client.nextEvent()["event"] as? String == "pong")
        #expect(await client.exitStatus() == 0)
        await server.server.shutdown()
    }

    @Test(arguments: [(1000, ""), (1001, "going away"), (4001, "token expired"), (4008, "30")])
    func reportsTheClientsCloseCodeAndReason(code: Int, reason: String) async throws {
        let server = try await EchoServer.start()
        let client = try runClient(server, "close", String(code), reason)
        let echoed = try await client.nextEvent()
        #expect(echoed["code"] as? Int == code)
        let info = await server.nextClose()
        #expect(info == WebSocketCloseInfo(code: WebSocketCloseCode(UInt16(code)), reason: reason, initiator: .peer))
        await server.server.shutdown()
    }

    @Test(arguments: [(1000, "done"), (1001, "restarting"), (4001, "token expired"), (4008, "30")])
    func deliversItsCloseCodeAndReasonToTheClient(code: Int, reason: String) async throws {
        let server = try await EchoServer.start()
        let query = "code=\(code)&reason=\(reason.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        let client = try runClient(server, path: "/close?\(query)", "await-close")
        let closed = try await client.nextEvent()
        #expect(closed["code"] as? Int == code)
        #expect(closed["reason"] as? String == reason)
        let info = await server.nextClose()
        #expect(info?.code == WebSocketCloseCode(UInt16(code)))
        #expect(info?.initiator == .local)
        await server.server.shutdown()
    }

    @Test func detectsAClientThatVanishesAs1006() async throws {
        let server = try await EchoServer.start()
        let client = try runClient(server, "vanish")
        #expect(try await client.nextEvent()["event"] as? String == "vanishing")
        let info = await server.nextClose()
        #expect(info?.code == .abnormalClosure)
        #expect(info?.initiator == .transport)
        await server.server.shutdown()
    }
}
