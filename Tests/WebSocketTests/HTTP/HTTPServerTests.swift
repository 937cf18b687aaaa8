import Foundation
import Glibc
import Testing
import TestSupport
@testable import WebSocket

/// The HTTP side of `HTTPServer`, over real sockets, driven by `curl`.
@Suite("HTTP server")
struct HTTPServerTests {
    /// Answers `/echo` with the request's body and a few of its details, `/hello` with a greeting. The idle close
    /// waits a hang guard unless a test is about it.
    private static func start(configuration: HTTPServerConfiguration = .patient) async throws -> HTTPServer {
        try await HTTPServer.start(configuration: configuration) { request in
            switch request.path {
            case "/echo":
                var response = HTTPResponse(status: .ok, body: request.body)
                response.headers.add(name: "X-Method", value: request.method.rawValue)
                response.headers.add(name: "X-Query-Name", value: request.queryValue("name") ?? "")
                return .response(response)
            case "/hello":
                return .response(HTTPResponse(status: .ok, text: "hello"))
            case "/big":
                return .response(Self.bigResponse)
            case "/socket":
                return .webSocket { _ in }
            default:
                return .response(HTTPResponse(status: .notFound, text: "not found"))
            }
        }
    }

    /// What `/big` answers: large enough that a few hundred fill the kernel's buffers and the channel's queue.
    private static let bigResponse = HTTPResponse(status: .ok, body: [UInt8](repeating: 0x62, count: 16 << 10))

    @Test func aClientPipeliningWithoutReadingIsNoLongerReadOnceTheUnsentBytesPassTheHighWatermark() async throws {
        let server = try await Self.start()
        let client = try TLSTestSocket.connect(toLoopbackPort: server.port)
        try client.send(Array("GET /big HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        #expect(await eventually { server.openConnections.count == 1 })
        let connection = try #require(server.openConnections.first)

        // Pipelined requests, never read, until the server waits for the client to read. A few hundred responses
        // fill the kernel's buffers and the queue; the bound keeps the requests within what the kernel takes.
        let batch = Array(repeating: Array("GET /big HTTP/1.1\r\nHost: test\r\n\r\n".utf8), count: 50).flatMap { $0 }
        let sent = try await TLSTestThread.run("pipelining-client") {
            var sent = 1
            while !connection.isWaitingForPeerToRead && sent < 3000 {
                try client.send(batch)
                sent += 50
            }
            return sent
        }
        #expect(await eventually { connection.isWaitingForPeerToRead })
        var wire = Self.bigResponse
        if let serverName = HTTPServerConfiguration().serverName { wire.headers.add(name: "Server", value: serverName) }
        let responseSize = wire.serialized().count
        #expect(connection.unsentByteCount <= SocketChannel.defaultHighWatermark + responseSize)

        // Reading resumes once the client reads: every request is answered.
        let received = try await TLSTestThread.run("pipelining-client") {
            var received = 0
            while received < sent * responseSize {
                let bytes = try client.receive()
                guard !bytes.isEmpty else { break }
                received += bytes.count
            }
            return received
        }
        #expect(received == sent * responseSize)
        await server.shutdown()
    }

    @Test func aConnectionBeyondTheLimitIsClosedAtOnceAndTheOthersStay() async throws {
        var configuration = HTTPServerConfiguration.patient
        configuration.maxConnections = 2
        let server = try await Self.start(configuration: configuration)
        let held = try (0..<2).map { _ in try FreePort.connectedSocket(to: server.port) }
        #expect(await eventually { server.connectionCount == 2 })
        let beyond = try FreePort.connectedSocket(to: server.port)
        let (read, code) = try await TLSTestThread.run("connection-beyond-the-limit") {
            var byte: UInt8 = 0
            let read = recv(beyond, &byte, 1, 0)
            return (read, errno)
        }
        #expect(read == 0 || (read < 0 && code == ECONNRESET), "closed by the server, not timed out (errno \(code))")
        close(beyond)
        #expect(server.connectionCount == 2)

        close(held[0])
        #expect(await eventually { server.connectionCount == 1 })
        let output = try await Curl.run(["--write-out", "%{http_code}", "-o", "/dev/null", "http://127.0.0.1:\(server.port)/hello"])
        #expect(output.stdout == "200", "a place freed is taken again")
        close(held[1])
        await server.shutdown()
    }

    @Test func servesSeveralRequestsOnOneKeptAliveConnection() async throws {
        let server = try await Self.start()
        let url = "http://127.0.0.1:\(server.port)/hello"
        let output = try await Curl.run(["-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                                         "--write-out", "%{http_code} %{num_connects}\n", url, url, url])
        #expect(output.stdout == "200 1\n200 0\n200 0\n")
        await server.shutdown()
    }

    @Test func readsAContentLengthBodyAndTheQuery() async throws {
        let server = try await Self.start()
        let body = String(repeating: "0123456789", count: 50_000)
        let output = try await Curl.run([
            "-i", "--data-binary", "@-", "-H", "Content-Type: text/plain", "http://127.0.0.1:\(server.port)/echo?name=a%20b",
        ], input: Data(body.utf8))
        let response = try #require(output.stdout.range(of: "\r\n\r\n"))
        let head = output.stdout[..<response.lowerBound]
        #expect(head.hasPrefix("HTTP/1.1 200 OK"))
        #expect(head.contains("X-Method: POST"))
        #expect(head.contains("X-Query-Name: a b"))
        #expect(head.contains("Content-Length: 500000"))
        #expect(output.stdout[response.upperBound...] == body)
        await server.shutdown()
    }

    @Test func answersHeadWithoutABody() async throws {
        let server = try await Self.start()
        let output = try await Curl.run(["-I", "http://127.0.0.1:\(server.port)/hello"])
        #expect(output.stdout.hasPrefix("HTTP/1.1 200 OK"))
        #expect(output.stdout.contains("Content-Length: 5"))
        #expect(output.stdout.hasSuffix("\r\n\r\n"))
        await server.shutdown()
    }

    @Test func refusesOversizedHeadersWith431() async throws {
        var configuration = HTTPServerConfiguration.patient
        configuration.parserLimits.maxHeaderBytes = 1024
        let server = try await Self.start(configuration: configuration)
        let response = try await Curl.request(["-H", "X-Big: \(String(repeating: "b", count: 2000))", "http://127.0.0.1:\(server.port)/hello"])
        #expect(response.status == 431)
        await server.shutdown()
    }

    @Test func refusesAnOversizedBodyWith413() async throws {
        var configuration = HTTPServerConfiguration.patient
        configuration.parserLimits.maxBodyBytes = 1000
        let server = try await Self.start(configuration: configuration)
        let response = try await Curl.request(
            ["--data-binary", "@-", "http://127.0.0.1:\(server.port)/echo"], input: Data(repeating: 0x61, count: 5000))
        #expect(response.status == 413)
        await server.shutdown()
    }

    @Test func refusesAMalformedRequestLineWith400() async throws {
        let server = try await Self.start()
        let response = try await Curl.request(["-X", "BAD METHOD", "http://127.0.0.1:\(server.port)/hello"])
        #expect(response.status == 400)
        await server.shutdown()
    }

    @Test func refusesAWebSocketAnswerToAPlainRequestWith400() async throws {
        let server = try await Self.start()
        let response = try await Curl.request(["http://127.0.0.1:\(server.port)/socket"])
        #expect(response.status == 400)
        await server.shutdown()
    }

    @Test func refusesAnUpgradeWithAnotherWebSocketVersionWith426() async throws {
        let server = try await Self.start()
        let output = try await Curl.run([
            "-i", "-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 8",
            "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "http://127.0.0.1:\(server.port)/socket",
        ])
        #expect(output.stdout.hasPrefix("HTTP/1.1 426"))
        #expect(output.stdout.contains("Sec-WebSocket-Version: 13"))
        await server.shutdown()
    }

    @Test func closesAConnectionIdleLongerThanTheIdleTimeout() async throws {
        var configuration = HTTPServerConfiguration.patient
        configuration.idleTimeout = .milliseconds(200)
        let server = try await Self.start(configuration: configuration)
        // curl's telnet mode holds the connection open without sending a request, and exits when the server closes it.
        let output = try await Curl.run(["telnet://127.0.0.1:\(server.port)"])
        #expect(output.exitStatus == 0)
        // The socket closes before the server lets go of the connection: curl can be done a moment earlier.
        #expect(await eventually { server.connectionCount == 0 })
        await server.shutdown()
    }

    @Test func aClientThatStopsReadingIsClosedAfterTheIdleTimeout() async throws {
        var configuration = HTTPServerConfiguration.patient
        configuration.idleTimeout = .milliseconds(200)
        let server = try await Self.start(configuration: configuration)
        let client = try TLSTestSocket.connect(toLoopbackPort: server.port)
        try client.send(Array("GET /big HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        #expect(await eventually { server.openConnections.count == 1 })
        let connection = try #require(server.openConnections.first)
        let batch = Array(repeating: Array("GET /big HTTP/1.1\r\nHost: test\r\n\r\n".utf8), count: 50).flatMap { $0 }
        try await TLSTestThread.run("client-that-stops-reading") {
            var sent = 1
            while !connection.isWaitingForPeerToRead && sent < 3000 {
                guard (try? client.send(batch)) != nil else { break }  // closed meanwhile: what the test waits for
                sent += 50
            }
        }
        #expect(await eventually { server.connectionCount == 0 })
        await server.shutdown()
    }

    @Test func reportsAPortInUse() async throws {
        let server = try await Self.start()
        await #expect(throws: HTTPServerError.cannotListen(address: "127.0.0.1:\(server.port)", errno: EADDRINUSE)) {
            _ = try await HTTPServer.start(port: server.port) { _ in .response(HTTPResponse()) }
        }
        await server.shutdown()
    }
}
