/// A Bloom filter over the ids in a store's `seen_messages`, so that admitting a message that was never handled (the
/// usual case) needs no lookup in SQLite. It answers "maybe" for every id it was given and, with a small chance, for
/// others; "no" only for ids it was never given. So it must be given every id written to `seen_messages` while it
/// is in use; ids deleted from the table may stay in it (they only cost a lookup).
struct SeenMessageFilter: Sendable {
    /// The fewest ids a filter is sized for.
    static let minimumCapacity = 256
    /// Bits per id at capacity, and probes per id: about 1 % false "maybe" when full.
    private static let bitsPerId = 10
    private static let probes = 7

    /// How many ids it holds before its "maybe"s grow too frequent; past it, ``isFull``.
    let capacity: Int
    private(set) var count = 0
    private var words: [UInt64]

    /// A filter sized for `expected` ids, with room to grow to twice as many.
    init(expecting expected: Int) {
        capacity = max(Self.minimumCapacity, expected * 2)
        words = [UInt64](repeating: 0, count: (capacity * Self.bitsPerId + 63) / 64)
    }

    /// Where its bits are: the same after an insert unless they were copied (for tests).
    var bitsAddress: UnsafeRawPointer? {
        words.withUnsafeBytes { $0.baseAddress }
    }

    /// Whether it holds more ids than it was sized for: it should be built again, larger.
    var isFull: Bool { count > capacity }

    mutating func insert(_ id: String) {
        let bitCount = UInt64(words.count * 64)
        var (probe, step) = Self.hashes(of: id)
        for _ in 0..<Self.probes {
            let bit = probe % bitCount
            words[Int(bit / 64)] |= 1 << (bit % 64)
            probe &+= step
        }
        count += 1
    }

    /// False only when `id` was never inserted.
    func mightContain(_ id: String) -> Bool {
        let bitCount = UInt64(words.count * 64)
        var (probe, step) = Self.hashes(of: id)
        for _ in 0..<Self.probes {
            let bit = probe % bitCount
            guard words[Int(bit / 64)] & (1 << (bit % 64)) != 0 else { return false }
            probe &+= step
        }
        return true
    }

    /// Two hashes of `id` for double hashing (Kirsch–Mitzenmacher); the step is odd so that probes differ.
    private static func hashes(of id: String) -> (UInt64, UInt64) {
        var hasher = Hasher()
        hasher.combine(id)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        return (hash, (hash >> 32 | hash << 32) | 1)
    }
}
