import ChatterBots

/// What a message looked like at one point (its text, edit and deletion times, and reactions): the previous state
/// an update is compared with, to tell handlers what changed. Kept durably for the last update handled of a
/// message (`HandledMessageUpdates`), and in memory for messages seen recently (`RecentMessageVersions`).
struct MessageVersion: Codable, Equatable, Sendable {
    var body: String?
    var editedAt: Timestamp?
    var deletedAt: Timestamp?
    /// Every reaction, as (emoji, user) pairs in a stable order.
    var reactions: [ReactionPair]

    struct ReactionPair: Codable, Hashable, Sendable {
        var emoji: String
        var userId: User.ID
    }

    init(_ message: Message) {
        body = message.body
        editedAt = message.editedAt
        deletedAt = message.deletedAt
        reactions = Self.pairs(of: message.reactions)
    }

    static func pairs(of reactions: [Message.Reaction]) -> [ReactionPair] {
        reactions.flatMap { reaction in reaction.userIds.map { ReactionPair(emoji: reaction.emoji, userId: $0) } }
            .sorted { ($0.emoji, $0.userId.rawValue) < ($1.emoji, $1.userId.rawValue) }
    }
}
