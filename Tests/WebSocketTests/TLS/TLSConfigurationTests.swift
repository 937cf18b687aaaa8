import Testing
import WebSocket

/// Configurations refuse bad certificates, keys and settings when they are created, with typed errors.
@Suite("TLS configuration errors")
struct TLSConfigurationTests {
    @Test func missingCertificateFileIsUnreadable() async throws {
        let certificates = try await TestCertificates.shared()
        let missing = certificates.directory + "/missing.pem"
        #expect(throws: TLSError.unreadableFile(path: missing, reason: "No such file or directory")) {
            try TLSServerConfiguration(certificateChain: .file(path: missing), privateKey: certificates.localhost.privateKey)
        }
    }

    @Test func missingTrustedCAFileIsUnreadable() throws {
        #expect(throws: TLSError.unreadableFile(path: "/nonexistent/ca.pem", reason: "No such file or directory")) {
            try TLSConfiguration(trustedCertificates: [.file(path: "/nonexistent/ca.pem")], trustSystemRoots: false)
        }
    }

    @Test func textWithoutACertificateIsInvalidPEM() throws {
        let error = #expect(throws: TLSError.self) {
            try TLSConfiguration(trustedCertificates: [.pem("not a certificate")], trustSystemRoots: false)
        }
        guard case let .invalidPEM(source, reason) = error else {
            Issue.record("expected invalidPEM, got \(String(describing: error))")
            return
        }
        #expect(source == "inline PEM text")
        #expect(reason.contains("no CERTIFICATE block"))
    }

    @Test func corruptedCertificateBodyIsInvalidPEM() throws {
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB!!!!garbage\n-----END CERTIFICATE-----\n"
        let error = #expect(throws: TLSError.self) {
            try TLSConfiguration(trustedCertificates: [.pem(pem)], trustSystemRoots: false)
        }
        guard case .invalidPEM = error else {
            Issue.record("expected invalidPEM, got \(String(describing: error))")
            return
        }
    }

    @Test func privateKeyFileGivenAsTheCertificateIsInvalidPEM() async throws {
        let certificates = try await TestCertificates.shared()
        let error = #expect(throws: TLSError.self) {
            try TLSServerConfiguration(
                certificateChain: certificates.localhost.privateKey, privateKey: certificates.localhost.privateKey)
        }
        guard case let .invalidPEM(source, _) = error else {
            Issue.record("expected invalidPEM, got \(String(describing: error))")
            return
        }
        #expect(source == "PEM file \(certificates.localhost.privateKeyPath)")
    }

    @Test func certificateGivenAsThePrivateKeyIsInvalidPEM() async throws {
        let certificates = try await TestCertificates.shared()
        let error = #expect(throws: TLSError.self) {
            try TLSServerConfiguration(
                certificateChain: certificates.localhost.certificate, privateKey: certificates.localhost.certificate)
        }
        guard case .invalidPEM = error else {
            Issue.record("expected invalidPEM, got \(String(describing: error))")
            return
        }
    }

    @Test func keyOfAnotherCertificateIsAMismatch() async throws {
        let certificates = try await TestCertificates.shared()
        let error = #expect(throws: TLSError.self) {
            try TLSServerConfiguration(
                certificateChain: certificates.localhost.certificate, privateKey: certificates.wrongHost.privateKey)
        }
        guard case let .privateKeyMismatch(reason) = error else {
            Issue.record("expected privateKeyMismatch, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("key values mismatch"))
    }

    @Test func encryptedPrivateKeyIsRefusedWithoutPrompting() async throws {
        let certificates = try await TestCertificates.shared()
        let error = #expect(throws: TLSError.self) {
            try TLSServerConfiguration(
                certificateChain: certificates.localhost.certificate,
                privateKey: .file(path: certificates.encryptedLocalhostKeyPath))
        }
        guard case let .invalidPEM(_, reason) = error else {
            Issue.record("expected invalidPEM, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("encrypted"))
    }

    @Test func matchingInlineCertificateAndKeyAreAccepted() async throws {
        let certificates = try await TestCertificates.shared()
        let certificate = try String(contentsOfFile: certificates.chained.certificatePath, encoding: .utf8)
        let key = try String(contentsOfFile: certificates.chained.privateKeyPath, encoding: .utf8)
        let configuration = try TLSServerConfiguration(
            certificateChain: .pem(certificate), privateKey: .pem(key), alpnProtocols: ["http/1.1"])
        #expect(configuration.alpnProtocols == ["http/1.1"])
    }

    @Test func trustingNothingIsAnInvalidConfiguration() {
        let error = #expect(throws: TLSError.self) { try TLSConfiguration(trustSystemRoots: false) }
        guard case .invalidConfiguration = error else {
            Issue.record("expected invalidConfiguration, got \(String(describing: error))")
            return
        }
    }

    @Test func emptyALPNProtocolNameIsAnInvalidConfiguration() {
        let error = #expect(throws: TLSError.self) { try TLSConfiguration(alpnProtocols: [""]) }
        guard case .invalidConfiguration = error else {
            Issue.record("expected invalidConfiguration, got \(String(describing: error))")
            return
        }
    }

    @Test func emptyServerNameIsRefused() async throws {
        let certificates = try await TestCertificates.shared()
        let configuration = try certificates.clientConfiguration()
        let error = #expect(throws: TLSError.self) { try TLSSession(client: configuration, serverName: "") }
        guard case .invalidServerName = error else {
            Issue.record("expected invalidServerName, got \(String(describing: error))")
            return
        }
    }
}
