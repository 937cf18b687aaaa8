import Testing
import WebSocket

/// What a client accepts: certificates chaining to a trusted CA and naming the host it dialled.
@Suite("TLS certificate verification")
struct TLSVerificationTests {
    private func connect(
        serverName: String, presenting files: KeyPath<TestCertificates, TestCertificateFiles>,
        client: TLSConfiguration? = nil
    ) async throws -> InMemoryTLSLink {
        let certificates = try await TestCertificates.shared()
        let link = try InMemoryTLSLink(
            client: client ?? certificates.clientConfiguration(), serverName: serverName,
            server: certificates[keyPath: files].serverConfiguration())
        try link.handshake()
        return link
    }

    /// The client's handshake error, after the server saw the client's alert.
    private func refusal(
        serverName: String, presenting files: KeyPath<TestCertificates, TestCertificateFiles>,
        client: TLSConfiguration? = nil
    ) async throws -> TLSError? {
        do {
            _ = try await connect(serverName: serverName, presenting: files, client: client)
            return nil
        } catch let error as TLSError {
            return error
        }
    }

    @Test func trustedCertificateForLocalhostIsAccepted() async throws {
        let link = try await connect(serverName: "localhost", presenting: \.localhost)
        #expect(link.client.isHandshakeComplete)
        #expect(link.client.serverName == "localhost")
    }

    @Test func trustedCertificateIsAcceptedForItsIPv4Address() async throws {
        let link = try await connect(serverName: "127.0.0.1", presenting: \.localhost)
        #expect(link.client.isHandshakeComplete)
        #expect(link.server.serverName == nil, "no SNI is sent for an IP address")
    }

    @Test func trustedCertificateIsAcceptedForItsBracketedIPv6Address() async throws {
        let link = try await connect(serverName: "[::1]", presenting: \.localhost)
        #expect(link.client.serverName == "::1")
    }

    @Test func serverNameWithATrailingDotIsVerifiedWithoutIt() async throws {
        let link = try await connect(serverName: "localhost.", presenting: \.localhost)
        #expect(link.server.serverName == "localhost")
    }

    @Test func chainWithAnIntermediateIsAcceptedWhenOnlyTheRootIsTrusted() async throws {
        let link = try await connect(serverName: "localhost", presenting: \.chained)
        #expect(link.client.isHandshakeComplete)
    }

    @Test func certificateForAnotherHostIsRefusedWithHostnameMismatch() async throws {
        let error = try await refusal(serverName: "localhost", presenting: \.wrongHost)
        guard case let .hostnameMismatch(serverName, reason) = error else {
            Issue.record("expected hostnameMismatch, got \(String(describing: error))")
            return
        }
        #expect(serverName == "localhost")
        #expect(reason == "hostname mismatch")
    }

    @Test func certificateWithoutTheDialledIPAddressIsRefused() async throws {
        let error = try await refusal(serverName: "127.0.0.2", presenting: \.localhost)
        guard case let .hostnameMismatch(serverName, reason) = error else {
            Issue.record("expected hostnameMismatch, got \(String(describing: error))")
            return
        }
        #expect(serverName == "127.0.0.2")
        #expect(reason == "IP address mismatch")
    }

    @Test func certificateFromAnUnknownCAIsRefusedAsNotTrusted() async throws {
        let error = try await refusal(serverName: "localhost", presenting: \.unknownAuthority)
        guard case let .certificateNotTrusted(verifyCode, reason) = error else {
            Issue.record("expected certificateNotTrusted, got \(String(describing: error))")
            return
        }
        #expect(verifyCode == 20)  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
        #expect(reason == "unable to get local issuer certificate")
        #expect(error?.description.contains("trustedCertificates") == true, "the message says what to do")
    }

    @Test func systemRootsAloneDoNotTrustTheTestCA() async throws {
        let error = try await refusal(serverName: "localhost", presenting: \.localhost, client: TLSConfiguration())
        guard case .certificateNotTrusted = error else {
            Issue.record("expected certificateNotTrusted, got \(String(describing: error))")
            return
        }
    }

    @Test func systemRootsPlusTheTestCATrustIt() async throws {
        let certificates = try await TestCertificates.shared()
        let client = try TLSConfiguration(trustedCertificates: [certificates.certificateAuthority.certificate])
        let link = try await connect(serverName: "localhost", presenting: \.localhost, client: client)
        #expect(link.client.isHandshakeComplete)
    }

    @Test func caGivenAsInlinePEMTextIsTrusted() async throws {
        let certificates = try await TestCertificates.shared()
        let pem = try String(contentsOfFile: certificates.certificateAuthority.certificatePath, encoding: .utf8)
        let client = try TLSConfiguration(trustedCertificates: [.pem(pem)], trustSystemRoots: false)
        let link = try await connect(serverName: "localhost", presenting: \.localhost, client: client)
        #expect(link.client.isHandshakeComplete)
    }

    @Test func expiredCertificateIsRefusedAsExpired() async throws {
        let error = try await refusal(serverName: "localhost", presenting: \.expired)
        #expect(error == .certificateExpired(reason: "certificate has expired"))
    }

    @Test func serverLearnsWhyTheClientRefusedIt() async throws {
        let certificates = try await TestCertificates.shared()
        let link = try InMemoryTLSLink(
            client: certificates.clientConfiguration(), serverName: "localhost",
            server: certificates.unknownAuthority.serverConfiguration())
        #expect(throws: TLSError.self) { try link.handshake() }

        let error = #expect(throws: TLSError.self) { try link.server.handshake() }
        guard case let .handshakeFailed(reason) = error else {
            Issue.record("expected handshakeFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("unknown ca"))
    }

    @Test func sharedSystemDefaultConfigurationTrustsTheSystemStore() throws {
        let configuration = try TLSConfiguration.systemDefault
        #expect(configuration.trustsSystemRoots)
        #expect(configuration.trustedCertificates.isEmpty)
        #expect(configuration.minimumVersion == .tls12)
    }
}
