import COpenSSL
import WebSocket
import Foundation

/// Salted, slow password hashes: PBKDF2-HMAC-SHA256 (OpenSSL `PKCS5_PBKDF2_HMAC`) with a random 16-byte salt.
///
/// Hashing is deliberately expensive, so it runs on a global dispatch queue, never on the cooperative pool.
struct PasswordHasher: Sendable {
    /// A stored hash: what to keep in the users table.
    struct Hash: Hashable, Sendable {
        var salt: [UInt8]
        var digest: [UInt8]
        var iterations: Int
    }

    static let saltLength = 16
    static let digestLength = 32

    /// A hash of `password` with a fresh salt and `iterations` rounds.
    static func hash(_ password: String, iterations: Int) async -> Hash {
        let salt = SecureRandom.bytes(saltLength)
        let digest = await offPool { derive(password, salt: salt, iterations: iterations) }
        return Hash(salt: salt, digest: digest, iterations: iterations)
    }

    /// Whether `password` matches `stored`, compared in constant time.
    static func verify(_ password: String, against stored: Hash) async -> Bool {
        let digest = await offPool { derive(password, salt: stored.salt, iterations: stored.iterations) }
        return constantTimeEqual(digest, stored.digest)
    }

    static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: digestLength)
        let passwordBytes = Array(password.utf8)
        let status = passwordBytes.withUnsafeBufferPointer { passwordBuffer in
            salt.withUnsafeBufferPointer { saltBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer in
                    passwordBuffer.baseAddress.withMemoryRebound(to: CChar.self, capacity: passwordBytes.count) { passwordPointer in
                        PKCS5_PBKDF2_HMAC(
                            passwordPointer, Int32(passwordBytes.count), saltBuffer.baseAddress, Int32(salt.count),
                            Int32(max(1, iterations)), EVP_sha256(), Int32(digestLength), outputBuffer.baseAddress)
                    }
                }
            }
        }
        // PBKDF2 fails only on allocation failure; an all-zero digest then matches no real password hash.
        return status == 1 ? output : [UInt8](repeating: 0, count: digestLength)
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await DedicatedThread.run(named: "chatterbots.pbkdf2", work)
    }
}

extension Optional where Wrapped == UnsafePointer<UInt8> {
    fileprivate func withMemoryRebound<T>(to type: CChar.Type, capacity: Int, _ body: (UnsafePointer<CChar>?) -> T) -> T {
        guard let pointer = self else { return body(nil) }
        return pointer.withMemoryRebound(to: CChar.self, capacity: capacity) { body($0) }
    }
}
