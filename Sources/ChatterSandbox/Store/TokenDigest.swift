import COpenSSL

/// SHA-256 of a bearer or refresh token: tokens are stored only as digests, so a copy of the database
/// cannot be used to sign in.
enum TokenDigest {
    static func sha256(_ token: String) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(token.utf8)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }
}
