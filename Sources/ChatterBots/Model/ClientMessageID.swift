/// The sender's idempotency key of a message (`clientMessageId`): the service turns every resend with the
/// same key into the same message, for at least 24 hours.
public struct ClientMessageID: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The key exactly as sent on the wire.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A key from its wire text, e.g. one stored in the outbox.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// A fresh random key for sends that are not the effect of a replayable event: a lowercase UUIDv7 (RFC 9562),
    /// led by the current Unix milliseconds so that keys stored in the outbox's unique index arrive in order.
    public static func random() -> ClientMessageID {
        var generator = SystemRandomNumberGenerator()
        let (high, low) = (generator.next(), generator.next())  // two calls to the system's source, not one a byte
        let randomBytes = (0..<10).map { index in
            UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> UInt64((index % 8) * 8))
        }
        let milliseconds = (Date().timeIntervalSince1970 * 1000).rounded(.down)
        return timeOrderedRandom(milliseconds: milliseconds > 0 ? UInt64(milliseconds) : 0, randomBytes: randomBytes)
    }

    /// The UUIDv7 of `milliseconds` (the low 48 bits, big-endian) and the first 74 bits of `randomBytes`
    /// (10 bytes; missing ones count as zero), with the version and variant set.
    static func timeOrderedRandom(milliseconds: UInt64, randomBytes: [UInt8]) -> ClientMessageID {
        var bytes = [UInt8](repeating: 0, count: 16)
        writeMilliseconds(milliseconds, into: &bytes)
        for (offset, byte) in randomBytes.prefix(10).enumerated() { bytes[6 + offset] = byte }
        bytes[6] = (bytes[6] & 0x0f) | 0x70
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return ClientMessageID(uuidText(bytes))
    }

    /// The key of the `index`-th send (from 0) that `bot` makes while handling `trigger`, as a new store derives
    /// it (``ClientMessageIDDerivation/timeOrdered``): deterministic, so running the same handler again yields
    /// the same keys and no second message, and led by the message's time when `trigger` names a message.
    ///
    /// `trigger` names what the handler reacted to, e.g. `message:<id>` or `job:<id>@<occurrence>`.
    public static func derived(bot: User.ID, trigger: String, index: Int) -> ClientMessageID {
        ClientMessageIDDerivation.timeOrdered.key(bot: bot, trigger: trigger, index: index)
    }

    /// The name-based key (UUID version 5) of the `index`-th send that `bot` makes while handling `trigger`: what
    /// every version before time-ordered keys derived, and still the key of every trigger that names no message.
    /// Its value for given arguments never changes (stores and the service hold keys derived this way).
    public static func nameBased(bot: User.ID, trigger: String, index: Int) -> ClientMessageID {
        ClientMessageID(nameBasedUUID(hashing: derivationInput(bot: bot, trigger: trigger, index: index)))
    }

    /// The time-ordered key (UUID version 8, RFC 9562) of the `index`-th send that `bot` makes while handling
    /// `trigger`: the 48 bits of `milliseconds` (the triggering message's time), then 74 bits of the SHA-1 of the
    /// name the name-based key hashes. Its value for given arguments never changes.
    static func timeOrdered(bot: User.ID, trigger: String, index: Int, milliseconds: UInt64) -> ClientMessageID {
        let digest = SHA1.hash(derivationInput(bot: bot, trigger: trigger, index: index))
        var bytes = [UInt8](repeating: 0, count: 16)
        writeMilliseconds(milliseconds, into: &bytes)
        for offset in 0..<10 { bytes[6 + offset] = digest[offset] }
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return ClientMessageID(uuidText(bytes))
    }

    /// The Unix milliseconds of the message a trigger names: the time of the ULID right after `message:` or
    /// `message-updated:`, which may be followed by more text after a character that is not a letter or digit
    /// (`message-updated:<id>#<fingerprint>`). Nil for any other trigger, and for message ids that are not ULIDs.
    static func messageMilliseconds(ofTrigger trigger: String) -> UInt64? {
        var trigger = trigger
        return trigger.withUTF8 { utf8 in
            guard let prefix = messagePrefixes.first(where: { utf8.starts(with: $0) }) else { return nil }
            let id = UnsafeBufferPointer(rebasing: utf8[prefix.count...])
            guard id.count >= 26 else { return nil }
            if id.count > 26, ASCII.isLetterOrDigit(id[26]) { return nil }
            var milliseconds: UInt64 = 0
            for position in 0..<26 {
                guard let value = crockfordValue(id[position]), position > 0 || value <= 7 else { return nil }
                if position < 10 { milliseconds = milliseconds << 5 | UInt64(value) }
            }
            return milliseconds
        }
    }

    private static let messagePrefixes = [Array("message:".utf8), Array("message-updated:".utf8)]

    /// The value of one Crockford base32 digit of a ULID (`0-9`, letters but I, L, O and U, either case).
    private static func crockfordValue(_ character: UInt8) -> UInt8? {
        let value = crockfordValues[Int(character)]
        return value == 0xFF ? nil : value
    }

    /// Each byte's Crockford base32 value, 0xFF for bytes that are not a digit (every derived key reads 26).
    private static let crockfordValues: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in "0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8.enumerated() {
            values[Int(character)] = UInt8(index)
            if character >= UInt8(ascii: "A") { values[Int(character) + 32] = UInt8(index) }
        }
        return values
    }()

    /// What derived keys hash: the namespace, then the name `<bot>\n<trigger>\n<index>` in UTF-8, built in one
    /// buffer (this runs for every reply a bot sends).
    private static func derivationInput(bot: User.ID, trigger: String, index: Int) -> [UInt8] {
        let digits = String(index).utf8
        var input: [UInt8] = []
        input.reserveCapacity(derivedNamespace.count + bot.rawValue.utf8.count + trigger.utf8.count + digits.count + 2)
        input.append(contentsOf: derivedNamespace)
        input.append(contentsOf: bot.rawValue.utf8)
        input.append(UInt8(ascii: "\n"))
        input.append(contentsOf: trigger.utf8)
        input.append(UInt8(ascii: "\n"))
        input.append(contentsOf: digits)
        return input
    }

    /// Writes the low 48 bits of `milliseconds` big-endian into the first 6 bytes of `bytes`.
    private static func writeMilliseconds(_ milliseconds: UInt64, into bytes: inout [UInt8]) {
        for offset in 0..<6 { bytes[offset] = UInt8(truncatingIfNeeded: milliseconds >> UInt64(40 - offset * 8)) }
    }

    /// The key of the `index`-th send that `bot` makes while handling the incoming message `message`, as a new
    /// store derives it: time-ordered when `message` is a ULID, name-based otherwise.
    public static func derived(bot: User.ID, handling message: Message.ID, index: Int) -> ClientMessageID {
        derived(bot: bot, trigger: messageTrigger(message), index: index)
    }

    /// The trigger text of the sends made while handling a message: `message:<id>`.
    public static func messageTrigger(_ message: Message.ID) -> String {
        "message:\(message.rawValue)"
    }

    /// The key of the `index`-th send that `bot` makes while running occurrence `occurrence` (from 1) of the
    /// scheduled job `job`. Named by the occurrence, not its due time, so a run retried later sends nothing twice.
    /// A job's trigger names no message, so the key is name-based.
    public static func derived(bot: User.ID, running job: ScheduledJob.ID, occurrence: Int, index: Int) -> ClientMessageID {
        derived(bot: bot, trigger: jobTrigger(job, occurrence: occurrence), index: index)
    }

    /// The trigger text of a job occurrence's sends: `job:<id>@<occurrence>`.
    public static func jobTrigger(_ job: ScheduledJob.ID, occurrence: Int) -> String {
        "job:\(job.rawValue)@\(occurrence)"
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The namespace of derived keys (a random UUID fixed once for ChatterBots; never change it, or
    /// re-handled messages after an upgrade would be answered twice).
    static let derivedNamespace: [UInt8] = [
        0xcf, 0xe2, 0xd9, 0x59, 0x6e, 0x3c, 0x41, 0xfe, 0xaf, 0xca, 0x6d, 0xb7, 0x9a, 0x19, 0xd8, 0xcc,
    ]

    /// RFC 9562 version 5 UUID of `name` in `namespace`, lowercase.
    static func nameBasedUUID(namespace: [UInt8], name: String) -> String {
        nameBasedUUID(hashing: namespace + Array(name.utf8))
    }

    /// The version 5 UUID whose SHA-1 input (namespace, then name) is `input`.
    private static func nameBasedUUID(hashing input: [UInt8]) -> String {
        var digest = SHA1.hash(input)
        digest[6] = (digest[6] & 0x0f) | 0x50
        digest[8] = (digest[8] & 0x3f) | 0x80
        return uuidText(digest.prefix(16))
    }

    /// The lowercase text form (8-4-4-4-12 hex digits) of a UUID's 16 bytes.
    static func uuidText(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            var count = 0
            for (index, byte) in bytes.prefix(16).enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[count] = UInt8(ascii: "-")
                    count += 1
                }
                text[count] = SHA1.hexDigit(byte >> 4)
                text[count + 1] = SHA1.hexDigit(byte & 0x0f)
                count += 2
            }
            return count
        }
    }
}

/// SHA-1 (FIPS 180-4), used only to derive names and fingerprints; not for security.
package enum SHA1 {
    /// The digest of `message` (20 bytes). The padded message is read byte by byte and the schedule lives in a
    /// temporary buffer, so a hash allocates only its result.
    package static func hash(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBufferPointer(hash)
    }

    /// The digest of `text`'s UTF-8 bytes as 40 lowercase hexadecimal digits.
    package static func hexDigest(of text: String) -> String {
        String(decoding: hash(Array(text.utf8)).flatMap { [hexDigit($0 >> 4), hexDigit($0 & 0x0F)] }, as: UTF8.self)
    }

    /// The lowercase hexadecimal digit of `value` (0–15), as an ASCII byte.
    fileprivate static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private static func hash(_ message: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        let bitLength = UInt64(message.count) &* 8
        // The message, 0x80, zeros up to 56 modulo 64, then the length in bits as 8 big-endian bytes.
        let paddedCount = ((message.count + 8) / 64 + 1) * 64
        func paddedByte(_ offset: Int) -> UInt8 {
            if offset < message.count { return message[offset] }
            if offset == message.count { return 0x80 }
            if offset >= paddedCount - 8 { return UInt8(truncatingIfNeeded: bitLength >> UInt64((paddedCount - 1 - offset) * 8)) }
            return 0
        }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for chunk in stride(from: 0, to: paddedCount, by: 64) {
                if chunk + 64 <= message.count {
                    for i in 0..<16 {
                        let base = chunk + i * 4
                        w[i] = UInt32(message[base]) << 24 | UInt32(message[base + 1]) << 16 | UInt32(message[base + 2]) << 8
                            | UInt32(message[base + 3])
                    }
                } else {
                    for i in 0..<16 {
                        let base = chunk + i * 4
                        w[i] = UInt32(paddedByte(base)) << 24 | UInt32(paddedByte(base + 1)) << 16 | UInt32(paddedByte(base + 2)) << 8
                            | UInt32(paddedByte(base + 3))
                    }
                }
                for i in 16..<80 {
                    let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                    w[i] = x << 1 | x >> 31
                }
                var (a, b, c, d, e) = h
                func round(_ f: UInt32, _ k: UInt32, _ i: Int) {
                    let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                    e = d
                    d = c
                    c = b << 30 | b >> 2
                    b = a
                    a = temp
                }
                for i in 0..<20 { round((b & c) | (~b & d), 0x5A82_7999, i) }
                for i in 20..<40 { round(b ^ c ^ d, 0x6ED9_EBA1, i) }
                for i in 40..<60 { round((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, i) }
                for i in 60..<80 { round(b ^ c ^ d, 0xCA62_C1D6, i) }
                h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        func append(_ word: UInt32) {
            digest.append(UInt8(word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        append(h.0)
        append(h.1)
        append(h.2)
        append(h.3)
        append(h.4)
        return digest
    }
}
