import Foundation
import TestSupport
import Testing
@testable import WebSocket

/// wss:// end to end with certificates made by `openssl` in a temporary directory (TestCertificates).
@Suite("wss end to end")
struct SecureWebSocketTests {
    private func clientConfiguration(_ certificates: TestCertificates) throws -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration.patient
        configuration.tls = try certificates.clientConfiguration()
        return configuration
    }

    private func startPeerServer(_ files: TestCertificateFiles) async throws -> (PeerProcess, Int) {
        let peer = try PeerProcess(script: "ws_server.py", arguments: ["--cert", files.certificatePath, "--key", files.privateKeyPath])
        return (peer, try await peer.port())
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func connectsToAWebsocketsTLSServerTrustingTheTestCA(host: String) async throws {
        let certificates = try await TestCertificates.shared()
        let (peer, port) = try await startPeerServer(certificates.localhost)
        let connection = try await WebSocketClient.connect(
            to: #require(URL(string: "wss://\(host):\(port)/echo?secure=1")), configuration: clientConfiguration(certificates))
        var replies = connection.messages.makeAsyncIterator()
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        try await connection.send(binary: payload)
        #expect(await replies.next() == .binary(payload))
        try await connection.send(text: "über tls")
        #expect(await replies.next() == .text("über tls"))
        #expect(await connection.close().code == WebSocketCloseCode.normalClosure)
        _ = peer
    }

    @Test func refusesAServerCertificateForAnotherHostName() async throws {
        let certificates = try await TestCertificates.shared()
        let (peer, port) = try await startPeerServer(certificates.wrongHost)
        let configuration = try clientConfiguration(certificates)
        await #expect {
            _ = try await WebSocketClient.connect(to: URL(string: "wss://localhost:\(port)/echo")!, configuration: configuration)
        } throws: { error in
            guard case WebSocketError.tls(.hostnameMismatch(let name, _)) = error else { return false }
            return name == "localhost" && (error as? WebSocketError)?.description.contains("not valid for localhost") == true
        }
        _ = peer
    }

    @Test func refusesAServerCertificateFromAnUntrustedCA() async throws {
        let certificates = try await TestCertificates.shared()
        let (peer, port) = try await startPeerServer(certificates.unknownAuthority)
        let configuration = try clientConfiguration(certificates)
        await #expect {
            _ = try await WebSocketClient.connect(to: URL(string: "wss://127.0.0.1:\(port)/echo")!, configuration: configuration)
        } throws: { error in
            guard case WebSocketError.tls(.certificateNotTrusted) = error else { return false }
            return true
        }
        _ = peer
    }

    @Test func ourTLSServerServesOurClient() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await LoopbackWebSocketTests.startEchoServer(tls: certificates.localhost.serverConfiguration())
        let connection = try await WebSocketClient.connect(
            to: #require(URL(string: "wss://localhost:\(server.port)/echo")), configuration: clientConfiguration(certificates))
        var replies = connection.messages.makeAsyncIterator()
        for size in [0, 10, 70_000, 1 << 20] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            try await connection.send(binary: payload)
            #expect(await replies.next() == .binary(payload))
        }
        let info = await connection.close(code: WebSocketCloseCode(4001), reason: "bye")
        // Our server echoes the code of a close frame without its reason.
        #expect(info == WebSocketCloseInfo(code: WebSocketCloseCode(4001), initiator: .local))
        await server.shutdown()
    }

    @Test func ourTLSServerServesWebsocketsOverTLS() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await LoopbackWebSocketTests.startEchoServer(tls: certificates.localhost.serverConfiguration())
        let client = try PeerProcess(
            script: "ws_client.py",
            arguments: ["wss://localhost:\(server.port)/echo", "echo", "--ca", certificates.certificateAuthority.certificatePath])
        #expect(try await client.nextEvent()["event"] as? String == "echoed")
        #expect(await client.exitStatus() == 0)
        await server.shutdown()
    }

    @Test func ourTLSServerServesHTTPSToCurl() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await LoopbackWebSocketTests.startEchoServer(tls: certificates.localhost.serverConfiguration())
        let output = try await Curl.request([
            "--cacert", certificates.certificateAuthority.certificatePath, "https://localhost:\(server.port)/missing",
        ])
        #expect(output.status == 404)
        #expect(output.body == "no")
        await server.shutdown()
    }
}
