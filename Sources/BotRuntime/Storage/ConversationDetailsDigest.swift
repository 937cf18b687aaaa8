import ChatterBots

extension Conversation {
    /// A digest of what `conversation.updated` tells of: the title, the avatar, and who the members are with their
    /// roles. `updatedAt` also moves with every new message, so the refresh after a reconnect compares this instead
    /// to tell whether a conversation really changed while the bot was away.
    var detailsDigest: String {
        let field = CanonicalForm.field
        var form = "conversation\ntitle " + field(title) + "\navatar " + field(avatarUrl)
        for member in members.sorted(by: { $0.userId.rawValue.utf8.lexicographicallyPrecedes($1.userId.rawValue.utf8) }) {
            form += "\nmember " + field(member.userId.rawValue) + " " + field(member.role.rawValue)
        }
        return SHA1.hexDigest(of: form)
    }
}
