import COpenSSL
import Foundation

/// Cryptographically secure random bytes from OpenSSL's CSPRNG (for tokens, salts and ULIDs).
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let succeeded = bytes.withUnsafeMutableBytes { buffer in
            RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1
        }
        if !succeeded {
            // OpenSSL's CSPRNG failing means the system has no entropy source; the system generator is the fallback.
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        return bytes
    }

    /// `count` random bytes as base64url without padding (for tokens in headers and JSON).
    static func token(byteCount: Int = 32) -> String {
        Data(bytes(byteCount)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
