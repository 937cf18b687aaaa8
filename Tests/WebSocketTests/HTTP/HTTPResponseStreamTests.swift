import ChildProcesses
import Foundation
import TestSupport
import Testing
@testable import WebSocket

/// Streamed responses (`HTTPServerResponse.stream`), as server-sent events use them, read by `curl`.
@Suite("HTTP streamed responses")
struct HTTPResponseStreamTests {
    @Test func theChunksTheBodySendsArriveInOrderAndTheResponseEndsWhenItReturns() async throws {
        let server = try await HTTPServer.start(configuration: .patient) { _ in
            .stream(head: HTTPResponse(status: .ok, headers: ["Content-Type": "text/event-stream"])) { stream in
                for part in ["data: one\n\n", "data: two\n\n"] { _ = await stream.send(Array(part.utf8)) }
            }
        }
        let output = try await Curl.run(["-i", "http://127.0.0.1:\(server.port)/events"])
        #expect(output.exitStatus == 0)
        #expect(output.stdout.contains("Transfer-Encoding: chunked"))
        #expect(output.stdout.contains("Content-Type: text/event-stream"))
        #expect(output.stdout.hasSuffix("\r\n\r\ndata: one\n\ndata: two\n\n"))
        await server.shutdown()
    }

    @Test func aClientLeavingEndsTheBody() async throws {
        let ended = ChangeSignal()
        let flag = EndFlag()
        let server = try await HTTPServer.start(configuration: .patient) { _ in
            .stream(head: HTTPResponse(status: .ok)) { stream in
                _ = await stream.send(Array("first\n".utf8))
                await stream.waitUntilClosed()
                await flag.set()
                ended.signal()
            }
        }
        let curl = try ChildProcess(["curl", "-sN", "http://127.0.0.1:\(server.port)/"], mergingStandardError: true)
        #expect(try await curl.nextLine(timeout: .hangGuard) == "first")
        curl.kill()
        try await ended.wait(until: { await flag.isSet }, "the body to see the client leave")
        await server.shutdown()
    }

    @Test func bytesTheClientSendsWhileTheResponseStreamsAreDropped() async throws {
        let server = try await HTTPServer.start(configuration: .patient) { _ in
            .stream(head: HTTPResponse(status: .ok)) { stream in await stream.waitUntilClosed() }
        }
        let client = try TLSTestSocket.connect(toLoopbackPort: server.port)
        let head = try await TLSTestThread.run("streaming-client") {
            try client.send(Array("GET /events HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
            return try String(decoding: client.receive(), as: UTF8.self)
        }
        #expect(head.hasPrefix("HTTP/1.1 200"))
        let connection = try #require(server.openConnections.first)

        // Far more than the kernel's buffers hold, so the send returns only once the server has read most of it.
        let junk = [UInt8](repeating: 0x61, count: 32 << 20)
        try await TLSTestThread.run("streaming-client") { try client.send(junk) }
        #expect(connection.bufferedRequestByteCount == 0)
        await server.shutdown()
    }
}

private actor EndFlag {
    private(set) var isSet = false
    func set() { isSet = true }
}
