import ChildProcesses
import Foundation
import Synchronization
import TestSupport
import WebSocket

/// A certificate and its private key, as PEM files on disk.
struct TestCertificateFiles: Sendable {
    let certificatePath: String
    let privateKeyPath: String

    var certificate: TLSPEMSource { .file(path: certificatePath) }
    var privateKey: TLSPEMSource { .file(path: privateKeyPath) }

    func serverConfiguration(alpnProtocols: [String] = []) throws -> TLSServerConfiguration {
        try TLSServerConfiguration(certificateChain: certificate, privateKey: privateKey, alpnProtocols: alpnProtocols)
    }
}

/// A throwaway PKI made with the `openssl` command in a temporary directory, once per test process:
/// a test CA, server certificates it signed, and one from a CA nobody trusts. Shared by the TLS and wss tests.
struct TestCertificates: Sendable {
    /// The temporary directory holding every file.
    let directory: String
    /// The test CA's certificate: trust it to accept the servers below.
    let certificateAuthority: TestCertificateFiles
    /// For `localhost`, `127.0.0.1` and `::1`, signed by the test CA.
    let localhost: TestCertificateFiles
    /// For `wrong.example` only, signed by the test CA.
    let wrongHost: TestCertificateFiles
    /// For `localhost` and `127.0.0.1`, signed by a second CA that nobody trusts.
    let unknownAuthority: TestCertificateFiles
    /// For `localhost` and `127.0.0.1`, signed by the test CA, expired since yesterday.
    let expired: TestCertificateFiles
    /// For `localhost` and `127.0.0.1`, signed by an intermediate CA; the certificate file holds the leaf then
    /// the intermediate, as servers send it.
    let chained: TestCertificateFiles
    /// The `localhost` certificate's key encrypted with the passphrase "secret".
    let encryptedLocalhostKeyPath: String

    /// The PKI, generated on first use.
    static func shared() async throws -> TestCertificates {
        try await generation.value
    }

    /// A client configuration trusting only the test CA.
    func clientConfiguration(alpnProtocols: [String] = []) throws -> TLSConfiguration {
        try TLSConfiguration(
            trustedCertificates: [certificateAuthority.certificate], trustSystemRoots: false,
            alpnProtocols: alpnProtocols)
    }

    private static let generation = Task { try await generate() }

    private static func generate() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("chatterbots-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        removeAtExit(directory)
        let config = "\(directory)/openssl.cnf"
        try Self.opensslConfiguration.write(toFile: config, atomically: true, encoding: .utf8)
        func path(_ name: String) -> String { "\(directory)/\(name)" }
        func files(_ name: String) -> TestCertificateFiles {
            TestCertificateFiles(certificatePath: path("\(name).pem"), privateKeyPath: path("\(name).key"))
        }

        func makeAuthority(_ name: String, commonName: String) async throws -> TestCertificateFiles {
            let ca = files(name)
            try await openssl(
                "req", "-x509", "-config", config, "-extensions", "ca", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", ca.privateKeyPath,
                "-out", ca.certificatePath, "-days", "3650", "-subj", "/CN=\(commonName)")
            return ca
        }
        func makeCertificate(
            _ name: String, commonName: String, extensions: String, issuer: TestCertificateFiles, days: String = "825"
        ) async throws -> TestCertificateFiles {
            let leaf = files(name)
            let request = path("\(name).csr")
            try await openssl(
                "req", "-new", "-config", config, "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", leaf.privateKeyPath, "-out", request, "-subj", "/CN=\(commonName)")
            try await openssl(
                "x509", "-req", "-in", request, "-CA", issuer.certificatePath, "-CAkey", issuer.privateKeyPath,
                "-set_serial", "0x" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(30),
                "-days", days, "-extfile", config, "-extensions", extensions, "-out", leaf.certificatePath)
            return leaf
        }

        let ca = try await makeAuthority("ca", commonName: "ChatterBots Test CA")
        let otherCA = try await makeAuthority("unknown-ca", commonName: "Unknown Test CA")
        let localhost = try await makeCertificate("localhost", commonName: "localhost", extensions: "localhost", issuer: ca)
        let wrongHost = try await makeCertificate(
            "wrong-host", commonName: "wrong.example", extensions: "wrong_host", issuer: ca)
        let unknown = try await makeCertificate(
            "unknown-authority", commonName: "localhost", extensions: "localhost", issuer: otherCA)
        // -days -1 makes a certificate whose validity ended a day before it was issued.
        let expired = try await makeCertificate(
            "expired", commonName: "localhost", extensions: "localhost", issuer: ca, days: "-1")
        let intermediate = try await makeCertificate(
            "intermediate", commonName: "ChatterBots Test Intermediate", extensions: "intermediate", issuer: ca)
        let chainedLeaf = try await makeCertificate(
            "chained-leaf", commonName: "localhost", extensions: "localhost", issuer: intermediate)
        let chainText =
            try String(contentsOfFile: chainedLeaf.certificatePath, encoding: .utf8)
            + String(contentsOfFile: intermediate.certificatePath, encoding: .utf8)
        try chainText.write(toFile: path("chained.pem"), atomically: true, encoding: .utf8)
        let encryptedKey = path("localhost-encrypted.key")
        try await openssl(
            "pkey", "-in", localhost.privateKeyPath, "-aes256", "-passout", "pass:secret", "-out", encryptedKey)

        return TestCertificates(
            directory: directory, certificateAuthority: ca, localhost: localhost, wrongHost: wrongHost,
            unknownAuthority: unknown, expired: expired,
            chained: TestCertificateFiles(certificatePath: path("chained.pem"), privateKeyPath: chainedLeaf.privateKeyPath),
            encryptedLocalhostKeyPath: encryptedKey)
    }

    private static let directoriesToRemove = Mutex<[String]>([])

    /// The PKI lives as long as the test process: it is shared by every test, so it is removed at exit.
    private static func removeAtExit(_ directory: String) {
        let isFirst = directoriesToRemove.withLock { directories in
            directories.append(directory)
            return directories.count == 1
        }
        if isFirst {
            atexit {
                for directory in TestCertificates.directoriesToRemove.withLock({ $0 }) {
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
        }
    }

    /// Runs `openssl` without blocking the calling (cooperative) thread: its output and exit are awaited.
    private static func openssl(_ arguments: String...) async throws {
        let child = try ChildProcess(
            [try TestPeer.command("openssl")] + arguments, standardOutput: .discarded, standardError: .pipe, discardingInput: true)
        let message = String(decoding: try await child.allOutput(timeout: .hangGuard), as: UTF8.self)
        guard await child.termination(timeout: .hangGuard) == .exited(0) else {
            throw TestCertificateError(command: arguments.prefix(2).joined(separator: " "), output: message)
        }
    }

    private static let opensslConfiguration = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = placeholder
        [ca]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [intermediate]
        basicConstraints = critical,CA:TRUE,pathlen:0
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid
        [localhost]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = IP:127.0.0.1,IP:::1,DNS:localhost
        [wrong_host]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:wrong.example

        """
}

struct TestCertificateError: Error, CustomStringConvertible {
    let command: String
    let output: String
    var description: String { "openssl \(command) failed: \(output)" }
}
