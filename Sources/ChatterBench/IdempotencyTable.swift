import ChatterBots

/// The messages `message.send` created, by (sender, clientMessageId), so that a repeated send gets the ack of the
/// first (which the message holds: id, seq, time). A flood leaves hundreds of thousands of keys, each holding one
/// reference rather than an ack's five fields, so that the table stays small enough to probe without a cache miss
/// in each of its arrays; those in lowercase UUID text (every key ChatterBots makes and
/// derives) are held per sender as their 128 bits, which hash and compare without reaching the key's string storage
/// (a cache miss per lookup in a table this size). Other keys are held as they are and compared as strings, as
/// before; either way `ABC…` and `abc…` stay two keys (uppercase text is not read as bits).
struct IdempotencyTable {
    /// A lowercase UUID text as its 128 bits.
    struct UUIDBits: Hashable {
        var high: UInt64
        var low: UInt64

        /// The bits of `text` when it is `8-4-4-4-12` lowercase hex digits; nil otherwise.
        init?(_ text: String) {
            var text = text
            guard let bits = text.withUTF8({ Self.parse($0) }) else { return nil }
            self = bits
        }

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        /// The bits as `8-4-4-4-12` lowercase hex digits, the text `init?(_:)` reads back.
        var text: String {
            String(unsafeUninitializedCapacity: 36) { buffer in
                let digits: StaticString = "0123456789abcdef"
                var position = 0
                for index in 0..<32 {
                    if index == 8 || index == 12 || index == 16 || index == 20 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let word = index < 16 ? high : low
                    let nibble = Int(truncatingIfNeeded: word >> UInt64(60 - (index % 16) * 4)) & 0xF
                    buffer[position] = digits.withUTF8Buffer { $0[nibble] }
                    position += 1
                }
                return position
            }
        }

        private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> UUIDBits? {
            guard utf8.count == 36 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for (offset, byte) in utf8.enumerated() {
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
                default: return nil
                }
                if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
                digits += 1
            }
            return UUIDBits(high: high, low: low)
        }
    }

    fileprivate struct TextKey: Hashable {
        var sender: User.ID
        var clientMessageId: ClientMessageID
    }

    /// A (sender, clientMessageId) read once, for a lookup and then a store of the same key.
    struct Key {
        fileprivate enum Form {
            case uuid(User.ID, UUIDBits)
            case text(TextKey)
        }

        fileprivate let form: Form

        init(sender: User.ID, clientMessageId: ClientMessageID) {
            if let bits = UUIDBits(clientMessageId.rawValue) {
                form = .uuid(sender, bits)
            } else {
                form = .text(TextKey(sender: sender, clientMessageId: clientMessageId))
            }
        }
    }

    private var uuidKeys: [User.ID: [UUIDBits: Message]] = [:]
    private var textKeys: [TextKey: Message] = [:]

    /// The message the first send of `key` created; nil when it has not been sent.
    subscript(key: Key) -> Message? {
        get {
            switch key.form {
            case .uuid(let sender, let bits): uuidKeys[sender]?[bits]
            case .text(let key): textKeys[key]
            }
        }
        set {
            switch key.form {
            case .uuid(let sender, let bits): uuidKeys[sender, default: [:]][bits] = newValue
            case .text(let key): textKeys[key] = newValue
            }
        }
    }
}
