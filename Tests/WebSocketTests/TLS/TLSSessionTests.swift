import Testing
import WebSocket

/// A client and a server session talking through memory: the engine the event loop will drive.
@Suite("TLS session in memory")
struct TLSSessionTests {
    private func makeLink(alpn client: [String] = [], server: [String] = [], serverName: String = "localhost")
        async throws -> InMemoryTLSLink
    {
        let certificates = try await TestCertificates.shared()
        return try InMemoryTLSLink(
            client: certificates.clientConfiguration(alpnProtocols: client), serverName: serverName,
            server: certificates.localhost.serverConfiguration(alpnProtocols: server))
    }

    @Test func handshakeCompletesOnBothSidesWithTLS13() async throws {
        let link = try await makeLink()
        #expect(try link.client.handshake() == .inProgress)
        #expect(link.client.pendingCiphertextCount > 0, "the ClientHello waits to be sent")

        try link.handshake()

        #expect(link.client.isHandshakeComplete && link.server.isHandshakeComplete)
        #expect(link.client.negotiatedVersion == .tls13)
        #expect(link.server.negotiatedVersion == .tls13)
        #expect(link.client.negotiatedCipherSuite?.hasPrefix("TLS_") == true)
    }

    @Test func serverSeesTheClientsServerNameIndication() async throws {
        let link = try await makeLink()
        try link.handshake()
        #expect(link.server.serverName == "localhost")
    }

    @Test func applicationDataFlowsBothWays() async throws {
        let link = try await makeLink()
        try link.handshake()

        try link.client.writePlaintext(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let request = try link.deliver(from: link.client, to: link.server)
        try link.server.writePlaintext(Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8))
        let response = try link.deliver(from: link.server, to: link.client)

        #expect(request.bytes == Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(response.bytes == Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8))
    }

    @Test func oneMebibyteArrivesIntactInEachDirection() async throws {
        let link = try await makeLink()
        try link.handshake()
        var generator = SystemRandomNumberGenerator()
        let upload = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let download = Array(upload.reversed())

        try link.client.writePlaintext(upload)
        try link.server.writePlaintext(download)
        let received = try link.deliver(from: link.client, to: link.server)
        let returned = try link.deliver(from: link.server, to: link.client)

        #expect(received.bytes == upload)
        #expect(returned.bytes == download)
    }

    @Test func plaintextWrittenBeforeTheHandshakeIsSentWhenItCompletes() async throws {
        let link = try await makeLink()
        try link.client.writePlaintext(Array("early".utf8))
        try link.handshake()
        let received = try link.deliver(from: link.client, to: link.server)
        #expect(received.bytes == Array("early".utf8))
    }

    @Test func readPlaintextDrivesTheHandshake() async throws {
        let link = try await makeLink()
        var ignored: [UInt8] = []
        for _ in 0..<10 where !(link.client.isHandshakeComplete && link.server.isHandshakeComplete) {
            _ = try link.client.readPlaintext(into: &ignored)
            link.transfer()
            _ = try link.server.readPlaintext(into: &ignored)
            link.transfer()
        }
        #expect(link.client.isHandshakeComplete && link.server.isHandshakeComplete)
        #expect(ignored.isEmpty)
    }

    @Test func closeNotifyIsReportedAsClosedAfterTheDataBeforeIt() async throws {
        let link = try await makeLink()
        try link.handshake()
        try link.client.writePlaintext(Array("bye".utf8))
        link.client.shutdown()

        let received = try link.deliver(from: link.client, to: link.server)

        #expect(received.bytes == Array("bye".utf8))
        #expect(received.closed)
        #expect(link.server.isClosedByPeer)
        var more: [UInt8] = []
        #expect(try link.server.readPlaintext(into: &more) == .closed)
    }

    @Test func peerMayStillAnswerAfterReceivingCloseNotify() async throws {
        let link = try await makeLink()
        try link.handshake()
        link.client.shutdown()
        _ = try link.deliver(from: link.client, to: link.server)

        try link.server.writePlaintext(Array("last words".utf8))
        link.server.shutdown()
        let answer = try link.deliver(from: link.server, to: link.client)

        #expect(answer.bytes == Array("last words".utf8))
        #expect(answer.closed)
    }

    @Test func writingAfterShutdownThrows() async throws {
        let link = try await makeLink()
        try link.handshake()
        link.client.shutdown()
        #expect(throws: TLSError.writeAfterShutdown) { try link.client.writePlaintext([1, 2, 3]) }
    }

    @Test func endOfStreamWithoutCloseNotifyIsAnUnexpectedEOF() async throws {
        let link = try await makeLink()
        try link.handshake()
        try link.client.writePlaintext(Array("truncated".utf8))
        link.server.feed(ciphertext: link.client.drainCiphertext())
        link.server.feedEndOfStream()

        var bytes: [UInt8] = []
        #expect(try link.server.readPlaintext(into: &bytes) == .bytes(9))
        #expect(throws: TLSError.unexpectedEOF(duringHandshake: false)) { try link.server.readPlaintext(into: &bytes) }
        #expect(bytes == Array("truncated".utf8))
    }

    @Test func endOfStreamDuringTheHandshakeIsReported() async throws {
        let link = try await makeLink()
        _ = try link.client.handshake()
        link.client.feedEndOfStream()
        #expect(throws: TLSError.unexpectedEOF(duringHandshake: true)) { try link.client.handshake() }
    }

    @Test func bytesThatAreNotTLSFailTheHandshake() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try TLSSession(server: certificates.localhost.serverConfiguration())
        server.feed(ciphertext: Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))

        let error = #expect(throws: TLSError.self) { try server.handshake() }
        guard case let .handshakeFailed(reason) = error else {
            Issue.record("expected handshakeFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("wrong version number") || reason.contains("http request"))
    }

    @Test func aFailedSessionKeepsFailing() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try TLSSession(server: certificates.localhost.serverConfiguration())
        server.feed(ciphertext: [0x16, 0x03, 0x01, 0x00, 0x04, 0xFF, 0x00, 0x00, 0x00])  // a handshake message of unknown type
        let first = #expect(throws: TLSError.self) { try server.handshake() }
        let second = #expect(throws: TLSError.self) { try server.handshake() }
        #expect(first == second)
        #expect(throws: TLSError.self) { try server.writePlaintext([1]) }
    }

    @Test func corruptedRecordFailsTheSession() async throws {
        let link = try await makeLink()
        try link.handshake()
        try link.client.writePlaintext(Array("integrity".utf8))
        var record = link.client.drainCiphertext()
        record[record.count - 1] ^= 0x01
        link.server.feed(ciphertext: record)

        var bytes: [UInt8] = []
        let error = #expect(throws: TLSError.self) { try link.server.readPlaintext(into: &bytes) }
        guard case .sessionFailed = error else {
            Issue.record("expected sessionFailed, got \(String(describing: error))")
            return
        }
        #expect(bytes.isEmpty)
    }

    @Test func alpnAgreesOnTheServersPreferredCommonProtocol() async throws {
        let link = try await makeLink(alpn: ["x-unknown", "http/1.1"], server: ["h2", "http/1.1"])
        try link.handshake()
        #expect(link.client.negotiatedALPN == "http/1.1")
        #expect(link.server.negotiatedALPN == "http/1.1")
    }

    @Test func alpnIsAbsentWhenTheClientOffersNone() async throws {
        let link = try await makeLink(alpn: [], server: ["http/1.1"])
        try link.handshake()
        #expect(link.client.negotiatedALPN == nil)
        #expect(link.server.negotiatedALPN == nil)
    }

    @Test func alpnWithoutACommonProtocolStillConnects() async throws {
        let link = try await makeLink(alpn: ["h2"], server: ["http/1.1"])
        try link.handshake()
        #expect(link.client.negotiatedALPN == nil)
    }
}
