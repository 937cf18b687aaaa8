import ChatterBots
import Synchronization

/// Makes ULIDs (26 Crockford base32 characters: 48-bit millisecond time, 80 random bits) that sort in creation
/// order and cannot be guessed from one another.
///
/// Every ULID gets 80 fresh random bits. To keep creation order without the usual "previous + 1" within a
/// millisecond (which makes the next id of an upload or a device guessable), an id made in the same millisecond
/// as the previous one (or with a clock that went back) takes the next millisecond. The time part runs ahead of
/// the clock only while more than 1,000 ids a second are made, and catches up as soon as the rate drops.
final class ULIDGenerator: Sendable {
    private let lastMilliseconds = Mutex<Int64>(-1)
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new ULID for an entity made at `time`.
    func make<Entity>(at time: Timestamp) -> Identifier<Entity> {
        Identifier(rawValue: makeString(at: time))
    }

    func makeString(at time: Timestamp) -> String {
        let milliseconds = lastMilliseconds.withLock { last -> Int64 in
            last = max(time.millisecondsSince1970, last + 1)
            return last
        }
        return Self.encode(milliseconds: UInt64(max(0, milliseconds)), random: SecureRandom.bytes(10))
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
