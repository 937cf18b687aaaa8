import ChatterBots
import COpenSSL

/// Checks an APNs key registration the way Apple's tokens need it: 10-character team and key IDs, a bundle
/// ID, and a `.p8` file that is an EC (P-256) private key in PEM.
enum APNsKeyValidator {
    static func validate(_ body: APNsKeyBody) throws(ChatterErrorBody) {
        guard isAppleIdentifier(body.teamId) else {
            throw .validation(field: "teamId", "teamId is your 10-character Team ID (letters and digits), e.g. TEAM123456.")
        }
        guard isAppleIdentifier(body.keyId) else {
            throw .validation(field: "keyId", "keyId is the 10-character Key ID of the APNs key, e.g. ABC123DEFG.")
        }
        let bundleOK = (1...155).contains(body.bundleId.count) && body.bundleId.contains(".")
            && body.bundleId.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-") }
        guard bundleOK else {
            throw .validation(field: "bundleId", "bundleId is the app's bundle identifier, e.g. com.yourname.chatter.")
        }
        switch readPrivateKey(pem: body.privateKey) {
        case .ecPrivateKey:
            return
        case .encrypted:
            throw .validation(
                field: "privateKey",
                "privateKey is encrypted; the APNs .p8 file is not. Paste the .p8 file as downloaded, without a passphrase.")
        case .otherKind, .unreadable:
            throw .validation(field: "privateKey", "privateKey is the contents of the APNs .p8 file: an EC private key in PEM.")
        }
    }

    private static func isAppleIdentifier(_ text: String) -> Bool {
        text.utf8.count == 10 && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    private enum KeyReading {
        case ecPrivateKey, otherKind, encrypted, unreadable
    }

    /// Reads the PEM with a password callback that refuses (returns 0): without one OpenSSL asks for the
    /// passphrase of an encrypted key on the terminal, blocking the thread. The callback also records that it
    /// was asked, which is how an encrypted key is told apart from garbage.
    private static func readPrivateKey(pem: String) -> KeyReading {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count < 64 * 1024 else { return .unreadable }
        return bytes.withUnsafeBytes { buffer -> KeyReading in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return .unreadable }
            defer { BIO_free(bio) }
            var askedForPassword = false
            let key = withUnsafeMutablePointer(to: &askedForPassword) { flag in
                PEM_read_bio_PrivateKey(bio, nil, { _, _, _, asked in
                    asked?.assumingMemoryBound(to: Bool.self).pointee = true
                    return 0
                }, flag)
            }
            guard let key else {
                ERR_clear_error()
                return askedForPassword ? .encrypted : .unreadable
            }
            defer { EVP_PKEY_free(key) }
            return EVP_PKEY_get_base_id(key) == NID_X9_62_id_ecPublicKey ? .ecPrivateKey : .otherKind
        }
    }
}
