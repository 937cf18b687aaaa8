import ChatterBots

extension Conversation {
    /// A digest of what `conversation.updated` tells of: the title, the avatar, and who the members are with their
    /// roles. `updatedAt` also moves with every new message, so the refresh after a reconnect compares this instead
    /// to tell whether a conversation really changed while the bot was away.
    var detailsDigest: String {
        func field(_ text: String?) -> String {
            guard let text else { return "-" }
            return "\(text.utf8.count):\(text)"
        }
        var form = "conversation\ntitle " + field(title) + "\navatar " + field(avatarUrl)
        for member in members.sorted(by: { $0.userId.rawValue.utf8.lexicographicallyPrecedes($1.userId.rawValue.utf8) }) {
            form += "\nmember " + field(member.userId.rawValue) + " " + field(member.role.rawValue)
        }
        return SHA1.hash(Array(form.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
