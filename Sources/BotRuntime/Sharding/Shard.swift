/// One shard of a fleet split across processes: its index in `0..<count`. Which bots it runs is
/// `ShardAssignment`'s rule.
package struct Shard: Hashable, Sendable, CustomStringConvertible {
    /// This shard's index, from 0.
    package let index: Int
    /// How many shards the fleet has.
    package let count: Int

    /// The most shards a fleet may have: far beyond any real fleet, and it keeps `INDEX/COUNT` small.
    package static let maximumCount = 100_000

    /// - Throws: `ShardError` when `count` is not from 1 to `maximumCount` or `index` is not in `0..<count`.
    package init(index: Int, count: Int) throws(ShardError) {
        guard (1...Self.maximumCount).contains(count) else { throw .invalidCount(String(count)) }
        guard (0..<count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        self.index = index
        self.count = count
    }

    /// Reads `INDEX/COUNT`, e.g. `1/3`.
    ///
    /// - Throws: `ShardError` when the text is not two whole numbers around a slash, or they are out of range.
    package init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Self.number(parts[0]), let count = Self.number(parts[1]) else {
            throw .malformed(text)
        }
        try self.init(index: index, count: count)
    }

    /// The shard of a StatefulSet pod: its name's ordinal (`bots-2` is index 2), with the count given.
    ///
    /// Only the first label of a dotted host name counts (`bots-2.bots.default.svc` is `bots-2`).
    /// - Throws: `ShardError` when the name does not end in `-<number>`, or the ordinal is out of range.
    package init(hostname: String, count: Int) throws(ShardError) {
        let podName = hostname.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let dash = podName.lastIndex(of: "-"), let ordinal = Self.number(podName[podName.index(after: dash)...]) else {
            throw .noOrdinal(hostname: hostname)
        }
        try self.init(index: ordinal, count: count)
    }

    /// Reads a shard count, e.g. of `--shard-count` or `CHATTERBOTS_SHARD_COUNT`.
    ///
    /// - Throws: `ShardError.invalidCount` when it is not a whole number from 1 to `maximumCount`.
    package static func count(parsing text: String) throws(ShardError) -> Int {
        guard let count = number(Substring(text)), (1...maximumCount).contains(count) else { throw .invalidCount(text) }
        return count
    }

    /// `INDEX/COUNT`.
    package var description: String { "\(index)/\(count)" }

    /// A whole number in plain decimal digits (no sign, no spaces), or nil.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}

/// Why a shard cannot be read or is out of range; each case says what to give instead.
package enum ShardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `INDEX/COUNT` with two whole numbers.
    case malformed(String)
    /// The count is not a whole number from 1 to `Shard.maximumCount`.
    case invalidCount(String)
    /// The index is not below the count.
    case indexOutOfRange(index: Int, count: Int)
    /// The host name has no StatefulSet ordinal (`<name>-<number>`).
    case noOrdinal(hostname: String)

    package var description: String {
        switch self {
        case .malformed(let text):
            "the shard must be INDEX/COUNT with whole numbers, e.g. 0/3, found \"\(text)\""
        case .invalidCount(let text):
            "the shard count must be a whole number from 1 to \(Shard.maximumCount), found \"\(text)\""
        case .indexOutOfRange(let index, let count):
            "shard index \(index) is out of range for \(count) shard\(count == 1 ? "" : "s"): it must be from 0 to \(count - 1)"
        case .noOrdinal(let hostname):
            "the host name \"\(hostname)\" has no StatefulSet ordinal (a name ending in -<number>, like bots-2); "
                + "give --shard INDEX/COUNT instead"
        }
    }
}
