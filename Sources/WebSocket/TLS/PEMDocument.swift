import COpenSSL

/// PEM text decoded with OpenSSL into certificates and private keys.
struct PEMDocument {
    let bytes: [UInt8]
    /// Names the source in errors ("PEM file /etc/chatter/cert.pem").
    let sourceDescription: String

    init(_ source: TLSPEMSource) throws(TLSError) {
        bytes = try source.load()
        sourceDescription = source.description
    }

    /// Every CERTIFICATE block in order (other blocks, such as a key in the same file, are skipped).
    /// Throws when there is none or when a block is corrupt.
    func certificates() throws(TLSError) -> [X509Certificate] {
        var certificates: [X509Certificate] = []
        var failure: [OpenSSLErrorQueue.Entry] = []
        _ = withMemoryBIO { bio -> Void? in
            while true {
                OpenSSLErrorQueue.clear()
                guard let pointer = PEM_read_bio_X509(bio, nil, refusePassphrase, nil) else {
                    let entries = OpenSSLErrorQueue.drain()
                    let reachedEnd = entries.last.map {
                        $0.library == ERR_LIB_PEM && $0.reason == PEM_R_NO_START_LINE
                    } ?? true
                    if !reachedEnd || certificates.isEmpty { failure = entries }
                    return ()
                }
                certificates.append(X509Certificate(taking: pointer))
            }
        }
        if certificates.isEmpty {
            throw .invalidPEM(
                source: sourceDescription,
                reason: "no CERTIFICATE block: " + OpenSSLErrorQueue.reason(of: failure, fallback: "empty input"))
        }
        if !failure.isEmpty {
            throw .invalidPEM(
                source: sourceDescription,
                reason: "certificate \(certificates.count + 1) is corrupt: "
                    + OpenSSLErrorQueue.reason(of: failure, fallback: "unknown error"))
        }
        return certificates
    }

    /// The first private key block. Encrypted keys are refused (there is no one to type a passphrase).
    func privateKey() throws(TLSError) -> PrivateKey {
        OpenSSLErrorQueue.clear()
        let pointer = withMemoryBIO { bio in PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) }
        guard let pointer else {
            let reason = OpenSSLErrorQueue.drainReason(fallback: "no PRIVATE KEY block")
            if bytes.containsSubsequence(Array("ENCRYPTED".utf8)) {
                throw .invalidPEM(
                    source: sourceDescription,
                    reason: "the private key is encrypted; decrypt it (openssl pkey -in key.pem -out plain.pem): \(reason)")
            }
            throw .invalidPEM(source: sourceDescription, reason: reason)
        }
        return PrivateKey(taking: pointer)
    }

    private func withMemoryBIO<Result>(_ body: (OpaquePointer) -> Result?) -> Result? {
        bytes.withUnsafeBytes { raw -> Result? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}

/// Answers OpenSSL's passphrase prompt with "no passphrase", so that an encrypted key fails instead of
/// OpenSSL reading a passphrase from the terminal.
private let refusePassphrase: @convention(c) (
    UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
) -> Int32 = { _, _, _, _ in 0 }

/// An X.509 certificate owned by Swift (freed with the object).
final class X509Certificate {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}

/// A private key owned by Swift (freed with the object).
final class PrivateKey {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}

extension [UInt8] {
    fileprivate func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        for start in 0...(count - needle.count) where self[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
