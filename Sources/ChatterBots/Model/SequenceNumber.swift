/// The values a `seq` or a watermark may take on the wire: 0 (none yet) up to half of `Int`'s range, far beyond
/// any conversation. Decoding refuses anything else as corrupt data, so that arithmetic on decoded values
/// (`seq + 1`, `lastSeq - lastReadSeq`, the sum of two of them) cannot overflow and crash the process.
package enum SequenceNumber {
    /// Every valid `seq` and watermark.
    package static let range: ClosedRange<Int> = 0...(Int.max / 2)
}

extension KeyedDecodingContainer {
    /// A `seq` or watermark at `key`, checked against ``SequenceNumber/range``.
    func decodeSequenceNumber(forKey key: Key) throws -> Int {
        let value = try decode(Int.self, forKey: key)
        guard SequenceNumber.range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\(value) is no sequence number (0 to Int.max / 2)")
        }
        return value
    }
}
