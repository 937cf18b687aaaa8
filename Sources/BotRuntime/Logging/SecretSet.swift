/// The registered secrets of a `LogRedactor`, indexed so that masking a text costs time in proportion to the
/// text, not to the number of secrets: a process with 10,000 bots registers 20,000 password forms, and every log
/// line passes through here.
///
/// Secrets are matched as UTF-8 bytes. Each is indexed under its first `prefixLength` bytes; a text is scanned,
/// and only where a window of the text equals a registered prefix are the secrets of that prefix compared (by
/// length, then as a whole). Every occurrence of every secret is masked; occurrences that overlap become one mask,
/// so a secret containing another, or two overlapping secrets, leave nothing of either visible.
///
/// A secret is also found however a URL, a form or JSON escaped it, whichever characters the encoder left alone and
/// in either case of hex: a text holding `%` or `\` is scanned a second time as it reads once `%XX`, `\/`, `\"` and
/// `\\` are decoded, and each match masks the escapes it came from. `+` and space compare equal (forms write a space
/// as `+`). The first scan, of the text as it is, finds a secret an escape-like sequence would otherwise swallow.
struct SecretSet: Sendable {
    /// Secrets shorter than this are not kept (the caller's minimum is at least this).
    static let prefixLength = 6

    /// The secrets, as UTF-8 bytes.
    private var secrets: Set<[UInt8]> = []
    /// For the first `prefixLength` bytes of each secret (packed into an integer), the lengths of the secrets that
    /// start with them, longest first.
    private var lengthsByPrefix: [UInt64: [Int]] = [:]

    /// Adds `secret`; one shorter than `prefixLength` bytes is ignored.
    mutating func insert(_ secret: String) {
        let bytes = secret.utf8.map(Self.folded)
        guard bytes.count >= Self.prefixLength, secrets.insert(bytes).inserted else { return }
        let prefix = Self.pack(bytes[0..<Self.prefixLength])
        var lengths = lengthsByPrefix[prefix, default: []]
        if !lengths.contains(bytes.count) {
            lengths.append(bytes.count)
            lengths.sort(by: >)
        }
        lengthsByPrefix[prefix] = lengths
    }

    /// `text` with every occurrence of a secret replaced by `mask` (overlapping occurrences by one mask).
    func masking(in text: String, with mask: String) -> String {
        guard !secrets.isEmpty else { return text }
        let bytes = Array(text.utf8)
        var holdsPlus = false
        var holdsEscape = false
        for byte in bytes {
            if byte == Self.plus { holdsPlus = true } else if byte == Self.percent || byte == Self.backslash { holdsEscape = true }
        }
        var masked = maskedRanges(in: holdsPlus ? bytes.map(Self.folded) : bytes)
        if holdsEscape {
            let decoded = Self.decoded(bytes)
            let found = maskedRanges(in: decoded.bytes).map { decoded.origins[$0.lowerBound]..<decoded.origins[$0.upperBound] }
            if !found.isEmpty { masked = Self.merged(masked + found) }
        }
        guard !masked.isEmpty else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var position = 0
        for range in masked {
            result += bytes[position..<range.lowerBound]
            result += mask.utf8
            position = range.upperBound
        }
        result += bytes[position...]
        // Secrets and the text are whole UTF-8 strings, so every cut falls between scalars.
        return String(decoding: result, as: UTF8.self)
    }

    /// The byte ranges of `bytes` to mask, in order, overlapping occurrences merged.
    private func maskedRanges(in bytes: [UInt8]) -> [Range<Int>] {
        guard bytes.count >= Self.prefixLength else { return [] }
        var ranges: [Range<Int>] = []
        var window: UInt64 = 0
        for index in bytes.indices {
            window = (window << 8 | UInt64(bytes[index])) & Self.windowMask
            let start = index - Self.prefixLength + 1
            guard start >= 0, let lengths = lengthsByPrefix[window] else { continue }
            guard let length = lengths.first(where: { start + $0 <= bytes.count && secrets.contains(Array(bytes[start..<start + $0])) })
            else { continue }
            let end = start + length
            if let last = ranges.last, start < last.upperBound {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, end)
            } else {
                ranges.append(start..<end)
            }
        }
        return ranges
    }

    /// `ranges` in order, those that overlap made one.
    private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound < last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// `bytes` with `%XX` (either case), `\/`, `\"` and `\\` decoded and `+` folded to a space, and for each decoded
    /// byte the offset in `bytes` its escape starts at (one more entry: the end of `bytes`).
    private static func decoded(_ bytes: [UInt8]) -> (bytes: [UInt8], origins: [Int]) {
        var decoded: [UInt8] = []
        var origins: [Int] = []
        decoded.reserveCapacity(bytes.count)
        origins.reserveCapacity(bytes.count + 1)
        var index = 0
        while index < bytes.count {
            origins.append(index)
            let byte = bytes[index]
            if byte == percent, index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                decoded.append(folded(high << 4 | low))
                index += 3
            } else if byte == backslash, index + 1 < bytes.count, jsonEscaped.contains(bytes[index + 1]) {
                decoded.append(bytes[index + 1])
                index += 2
            } else {
                decoded.append(folded(byte))
                index += 1
            }
        }
        origins.append(bytes.count)
        return (decoded, origins)
    }

    /// The characters JSON writes after a backslash as they are (`/` only by encoders that escape it).
    private static let jsonEscaped: [UInt8] = [UInt8(ascii: "/"), UInt8(ascii: "\""), backslash]
    private static let percent = UInt8(ascii: "%")
    private static let backslash = UInt8(ascii: "\\")
    private static let plus = UInt8(ascii: "+")

    /// `byte`, with `+` read as the space a form encodes it for.
    private static func folded(_ byte: UInt8) -> UInt8 {
        byte == plus ? UInt8(ascii: " ") : byte
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let windowMask: UInt64 = (1 << (8 * UInt64(prefixLength))) - 1

    private static func pack(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
