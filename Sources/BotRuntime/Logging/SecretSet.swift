/// The registered secrets of a `LogRedactor`, indexed so that masking a text costs time in proportion to the
/// text, not to the number of secrets: a process with 10,000 bots registers 20,000 password forms, and every log
/// line passes through here.
///
/// Secrets are matched as UTF-8 bytes. Each is indexed under its first `prefixLength` bytes; a text is scanned once,
/// and only where a window of the text equals a registered prefix are the secrets of that prefix compared (by
/// length, then as a whole). Every occurrence of every secret is masked; occurrences that overlap become one mask,
/// so a secret containing another, or two overlapping secrets, leave nothing of either visible.
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
        let bytes = Array(secret.utf8)
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
        let masked = maskedRanges(in: bytes)
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

    private static let windowMask: UInt64 = (1 << (8 * UInt64(prefixLength))) - 1

    private static func pack(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
