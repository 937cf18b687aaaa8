import Foundation
import Testing
import TestSupport
@testable import WebSocket

/// Our client against our server over loopback.
@Suite("WebSocket over loopback")
struct LoopbackWebSocketTests {
    static func startEchoServer(
        tls: TLSServerConfiguration? = nil, configuration: HTTPServerConfiguration = .patient
    ) async throws -> HTTPServer {
        try await HTTPServer.start(tls: tls, configuration: configuration) { request in
            guard request.isWebSocketUpgrade else { return .response(HTTPResponse(status: .notFound, text: "no")) }
            return .webSocket { connection in
                for await message in connection.messages {
                    try? await connection.send(message)
                }
            }
        }
    }

    @Test func echoesTextAndBinaryMessages() async throws {
        let server = try await Self.startEchoServer()
        let client = try await WebSocketClient.connect(
            to: URL(string: "ws://127.0.0.1:\(server.port)/echo?x=1")!, configuration: .patient)
        var iterator = client.messages.makeAsyncIterator()
        try await client.send(text: "hello")
        #expect(await iterator.next() == .text("hello"))
        let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await client.send(binary: big)
        #expect(await iterator.next() == .binary(big))
        let info = await client.close()
        #expect(info.code == .normalClosure)
        await server.shutdown()
    }

    @Test func nextBufferedTakesWhatArrivedWithoutWaitingForMore() async throws {
        let server = try await HTTPServer.start(configuration: .patient) { request in
            .webSocket { connection in
                try? await connection.send([.text("one"), .text("two"), .text("three")])
                for await _ in connection.messages {}
            }
        }
        let client = try await WebSocketClient.connect(
            to: URL(string: "ws://127.0.0.1:\(server.port)/burst")!, configuration: .patient)
        var iterator = client.messages.makeAsyncIterator()

        #expect(await iterator.next() == .text("one"))  // the three came in one write, so the rest is buffered now
        let rest = [iterator.nextBuffered(), iterator.nextBuffered(), iterator.nextBuffered()]

        #expect(rest == [.text("two"), .text("three"), nil])
        _ = await client.close()
        await server.shutdown()
    }
}
