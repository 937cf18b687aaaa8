import COpenSSL

/// Fresh, unpredictable masking keys for a client's frames (RFC 6455 §5.3), drawn from OpenSSL's CSPRNG 64 keys
/// at a time so a busy client does not pay a system call per frame.
struct MaskingKeySource: Sendable {
    private var pool: [UInt32] = []
    private var index = 0

    mutating func next() -> WebSocketMaskingKey {
        if index == pool.count { refill() }
        let key = WebSocketMaskingKey(rawValue: pool[index])
        index += 1
        return key
    }

    private mutating func refill() {
        if pool.isEmpty { pool = [UInt32](repeating: 0, count: 64) }
        let filled = pool.withUnsafeMutableBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            return RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(bytes.count)) == 1
        }
        if !filled {
            var generator = SystemRandomNumberGenerator()
            for slot in pool.indices { pool[slot] = generator.next() }
        }
        index = 0
    }
}
