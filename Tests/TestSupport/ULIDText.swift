/// The ULID text of `milliseconds` (10 Crockford base32 digits, most significant first) followed by `random`
/// (16 more digits): a message id whose time the test chooses.
public func ulid(milliseconds: UInt64, random: String = "0000000000000000") -> String {
    let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    var time = ""
    var rest = milliseconds
    for _ in 0..<10 {
        time.insert(alphabet[Int(rest % 32)], at: time.startIndex)
        rest /= 32
    }
    return time + random
}
