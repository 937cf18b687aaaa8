/// The parts of the canonical forms the runtime digests (a message update's, a conversation's details).
enum CanonicalForm {
    /// A variable-length part, prefixed with its length in bytes (`-` for none), so that no two different forms
    /// read the same.
    static func field(_ text: String?) -> String {
        guard let text else { return "-" }
        return "\(text.utf8.count):\(text)"
    }
}
