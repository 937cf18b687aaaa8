import ChatterBots
import COpenSSL
import Synchronization

/// Makes ULIDs (26 Crockford base32 characters: 48-bit millisecond time, 80 random bits), monotonic within one
/// millisecond so identifiers made in one instant still sort in creation order.
final class ULIDGenerator: Sendable {
    private struct State {
        var lastMilliseconds: Int64 = -1
        var lastRandom: [UInt8] = []
    }

    private let state = Mutex(State())
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new ULID for an entity made at `time`.
    func make<Entity>(at time: Timestamp) -> Identifier<Entity> {
        Identifier(rawValue: makeString(at: time))
    }

    func makeString(at time: Timestamp) -> String {
        let (milliseconds, random) = state.withLock { state -> (Int64, [UInt8]) in
            if time.millisecondsSince1970 <= state.lastMilliseconds, Self.increment(&state.lastRandom) {
                return (state.lastMilliseconds, state.lastRandom)
            }
            state.lastMilliseconds = max(time.millisecondsSince1970, state.lastMilliseconds + 1)
            state.lastRandom = SecureRandom.bytes(10)
            // Keep headroom so increments within the millisecond do not overflow.
            state.lastRandom[0] &= 0x7f
            return (state.lastMilliseconds, state.lastRandom)
        }
        return Self.encode(milliseconds: UInt64(max(0, milliseconds)), random: random)
    }

    /// Adds one to the 80-bit big-endian number; false on overflow.
    private static func increment(_ bytes: inout [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        for index in bytes.indices.reversed() {
            if bytes[index] == 0xff {
                bytes[index] = 0
            } else {
                bytes[index] += 1
                return true
            }
        }
        return false
    }

    private static func encode(milliseconds: UInt64, random: [UInt8]) -> String {
        var output = [UInt8](repeating: 0, count: 26)
        var time = milliseconds & 0xFFFF_FFFF_FFFF
        for index in stride(from: 9, through: 0, by: -1) {
            output[index] = alphabet[Int(time & 31)]
            time >>= 5
        }
        // 80 random bits → 16 characters, 5 bits each, most significant first.
        var bitBuffer: UInt32 = 0
        var bitCount = 0
        var position = 10
        for byte in random {
            bitBuffer = bitBuffer << 8 | UInt32(byte)
            bitCount += 8
            while bitCount >= 5 {
                bitCount -= 5
                output[position] = alphabet[Int((bitBuffer >> UInt32(bitCount)) & 31)]
                position += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
