/// The 4-byte key a client XORs over every frame payload it sends (RFC 6455 §5.3).
public struct WebSocketMaskingKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's four bytes in wire order, the first byte in the most significant position.
    public var rawValue: UInt32

    /// Creates a key from its four bytes in wire order, the first byte in the most significant position.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a key from its four bytes in wire order.
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        rawValue = UInt32(b0) << 24 | UInt32(b1) << 16 | UInt32(b2) << 8 | UInt32(b3)
    }

    /// Creates a key from exactly four bytes in wire order, or nil for any other count.
    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 4 else { return nil }
        var value: UInt32 = 0
        for byte in bytes { value = value << 8 | UInt32(byte) }
        rawValue = value
    }

    /// A key drawn from the given generator.
    public static func random(using generator: inout some RandomNumberGenerator) -> WebSocketMaskingKey {
        WebSocketMaskingKey(rawValue: generator.next())
    }

    /// A key drawn from the system's cryptographically secure generator.
    public static func random() -> WebSocketMaskingKey {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The key's four bytes in wire order.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
         UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Masks (or unmasks: XOR is its own inverse) `bytes` in place, as payload bytes starting at payload offset 0.
    public func apply(to bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            apply(from: UnsafeRawBufferPointer(buffer), to: buffer.baseAddress, payloadOffset: 0)
        }
    }

    /// XORs `source` with this key into `destination`, which must hold at least `source.count` bytes and may be
    /// the same memory. `payloadOffset` is the position of `source`'s first byte within the frame payload, so a
    /// payload can be (un)masked in pieces. Works 8 bytes at a time.
    @inlinable
    public func apply(from source: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer?, payloadOffset: Int) {
        let count = source.count
        guard count > 0, let src = source.baseAddress, let dst = destination else { return }
        // Rotate the key so that byte 0 of `source` lines up with key byte (payloadOffset % 4).
        let shift = UInt32((payloadOffset & 3) * 8)
        let rotated = shift == 0 ? rawValue : (rawValue << shift) | (rawValue >> (32 - shift))
        // In memory the key must read k0 k1 k2 k3 k0 k1 k2 k3: big-endian within each 32-bit half.
        let half = UInt64(UInt32(bigEndian: rotated))
        let wide = half | half << 32
        var index = 0
        while index &+ 8 <= count {
            let word = src.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            dst.storeBytes(of: word ^ wide, toByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        while index < count {
            let keyByte = UInt8(truncatingIfNeeded: rotated >> UInt32(24 - (index & 3) * 8))
            dst.storeBytes(of: src.load(fromByteOffset: index, as: UInt8.self) ^ keyByte, toByteOffset: index, as: UInt8.self)
            index &+= 1
        }
    }
}
