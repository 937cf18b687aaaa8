import Foundation
import Testing
import WebSocket

/// The session against Python's `ssl` module over real loopback TCP sockets. The blocking socket code runs
/// on a dedicated thread, never on the cooperative pool.
@Suite("TLS with a real peer")
struct TLSRealPeerTests {
    private struct EchoResult: Sendable {
        let echo: [UInt8]
        let version: TLSVersion?
        let alpn: String?
        let closedByPeer: Bool
    }

    /// Connects to `tls_echo_server.py`, sends `message`, reads the echo and closes with close_notify.
    private func echoThroughPythonServer(
        message: [UInt8], serverName: String = "localhost", client: TLSConfiguration? = nil,
        serverArguments: [String] = []
    ) async throws -> EchoResult {
        let certificates = try await TestCertificates.shared()
        let configuration = try client ?? certificates.clientConfiguration(alpnProtocols: ["http/1.1"])
        return try await TLSTestThread.run("tls-echo-client") {
            let peer = try TLSPeerProcess(
                script: "tls_echo_server.py",
                arguments: [certificates.localhost.certificatePath, certificates.localhost.privateKeyPath]
                    + serverArguments)
            defer { peer.stop() }
            let socket = try TLSTestSocket.connect(toLoopbackPort: peer.readPort())
            let pump = try TLSSocketPump(
                session: TLSSession(client: configuration, serverName: serverName), socket: socket)

            try pump.handshake()
            try pump.write(message)
            let echo = try pump.read(count: message.count)
            try pump.shutdown()
            try pump.waitForCloseNotify()
            return EchoResult(
                echo: echo, version: pump.session.negotiatedVersion, alpn: pump.session.negotiatedALPN,
                closedByPeer: pump.closedByPeer)
        }
    }

    @Test func clientHandshakesAndEchoesWithPythonTLSServer() async throws {
        let result = try await echoThroughPythonServer(
            message: Array("hello over TLS".utf8), serverArguments: ["--alpn", "http/1.1"])
        #expect(result.echo == Array("hello over TLS".utf8))
        #expect(result.version == .tls13)
        #expect(result.alpn == "http/1.1")
        #expect(result.closedByPeer, "the server answered our close_notify with its own")
    }

    @Test func clientEchoesOneMebibyteThroughPythonTLSServer() async throws {
        let message = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let result = try await echoThroughPythonServer(message: message, serverName: "127.0.0.1")
        #expect(result.echo == message)
    }

    @Test func clientNegotiatesTLS12WithAServerLimitedToIt() async throws {
        let result = try await echoThroughPythonServer(
            message: Array("legacy".utf8), serverArguments: ["--max-version", "1.2"])
        #expect(result.echo == Array("legacy".utf8))
        #expect(result.version == .tls12)
    }

    @Test func clientRequiringTLS13RefusesAServerLimitedToTLS12() async throws {
        let certificates = try await TestCertificates.shared()
        let client = try TLSConfiguration(
            trustedCertificates: [certificates.certificateAuthority.certificate], trustSystemRoots: false,
            minimumVersion: .tls13)
        do {
            _ = try await echoThroughPythonServer(
                message: Array("x".utf8), client: client, serverArguments: ["--max-version", "1.2"])
            Issue.record("the handshake should have failed")
        } catch let error as TLSError {
            guard case let .handshakeFailed(reason) = error else {
                Issue.record("expected handshakeFailed, got \(error)")
                return
            }
            #expect(reason.contains("protocol version"))
        }
    }

    @Test func serverSessionHandshakesAndEchoesForPythonTLSClient() async throws {
        let certificates = try await TestCertificates.shared()
        let configuration = try certificates.localhost.serverConfiguration(alpnProtocols: ["http/1.1"])
        let message = "hello from python"
        let (report, serverSawCloseNotify, serverName) = try await TLSTestThread.run("tls-echo-server") {
            let (listener, port) = try TLSTestSocket.listenOnLoopback()
            let peer = try TLSPeerProcess(
                script: "tls_echo_client.py",
                arguments: [
                    String(port), certificates.certificateAuthority.certificatePath, "localhost", message,
                    "--alpn", "http/1.1",
                ])
            defer { peer.stop() }
            let pump = try TLSSocketPump(session: TLSSession(server: configuration), socket: listener.accept())

            try pump.handshake()
            let received = try pump.read(count: message.utf8.count)
            try pump.write(received)
            try pump.waitForCloseNotify()
            try pump.shutdown()
            return (peer.readLine() ?? "", pump.closedByPeer, pump.session.serverName)
        }

        let fields = try #require(
            JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: String], "peer said: \(report)")
        #expect(fields["echo"] == message)
        #expect(fields["version"] == "TLSv1.3")
        #expect(fields["alpn"] == "http/1.1")
        #expect(serverSawCloseNotify)
        #expect(serverName == "localhost")
    }
}
