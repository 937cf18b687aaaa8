/// Percent-encoding of path segments and query components: every byte outside RFC 3986's unreserved set
/// (`A–Z a–z 0–9 - . _ ~`) is escaped, so an identifier, emoji or token never changes a URL's structure.
enum PercentEncoding {
    /// RFC 3986 §2.3 unreserved characters: the only ones written as they are.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` with every character outside `unreserved` percent-encoded as UTF-8.
    static func encode(_ text: String) -> String {
        // Foundation returns nil only for lone surrogates, which a Swift `String` cannot hold.
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
