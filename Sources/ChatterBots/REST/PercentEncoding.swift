/// Percent-encoding of path segments and query components: every byte outside RFC 3986's unreserved set
/// (`A–Z a–z 0–9 - . _ ~`) is escaped, so an identifier, emoji or token never changes a URL's structure.
package enum PercentEncoding {
    /// `text` with every character outside RFC 3986 §2.3's unreserved set percent-encoded as UTF-8.
    package static func encode(_ text: String) -> String {
        encode(text, keeping: isUnreserved)
    }

    /// Whether `byte` is one of RFC 3986's unreserved characters, the only ones a URL's parts may hold as they are.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        ASCII.isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// `text`'s UTF-8 with every byte `keeps` refuses written as `%` and two uppercase hex digits, as Foundation's
    /// `addingPercentEncoding(withAllowedCharacters:)` writes it for a set of ASCII characters. Made here because
    /// Foundation's goes through `NSString`, and a fleet encodes every bot's URLs and tokens as it starts.
    package static func encode(_ text: String, keeping keeps: (UInt8) -> Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeps(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
