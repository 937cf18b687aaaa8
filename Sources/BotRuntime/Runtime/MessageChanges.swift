import ChatterBots

/// What one `message.updated` changed, compared with the previous version the bot knows: deleted for everyone,
/// edited (with the previous text when known), reactions added and removed. Without a known previous version the
/// message is taken as it was created: not edited, not deleted, no reactions, text unknown (changes made while
/// the bot was offline are not replayed, so the first update seen afterwards may include them).
struct MessageChanges: Equatable, Sendable {
    /// The message is now deleted for everyone (and was not before). Nothing else is reported with a deletion.
    var isDeleted = false
    /// The message was edited; the text before the edit, nil when unknown.
    var edit: Edit?
    /// Reactions added, one per emoji with the users who added it.
    var added: [Message.Reaction] = []
    /// Reactions removed, one per emoji with the users who removed it.
    var removed: [Message.Reaction] = []

    struct Edit: Equatable, Sendable {
        var previousBody: String?
    }
}

extension MessageChanges {
    /// The changes from `previous` (nil when unknown) to `message`.
    init(from previous: MessageVersion?, to message: Message) {
        self.init()
        let current = MessageVersion(message)
        if current.deletedAt != nil {
            isDeleted = previous?.deletedAt == nil
            return
        }
        if current.editedAt != previous?.editedAt || (previous.map { $0.body != current.body } ?? false) {
            edit = Edit(previousBody: previous?.body)
        }
        let before = Set(previous?.reactions ?? [])
        let after = Set(current.reactions)
        added = Self.reactions(from: current.reactions.filter { !before.contains($0) })
        removed = Self.reactions(from: (previous?.reactions ?? []).filter { !after.contains($0) })
    }

    /// Pairs grouped by emoji, in the pairs' order.
    private static func reactions(from pairs: [MessageVersion.ReactionPair]) -> [Message.Reaction] {
        var reactions: [Message.Reaction] = []
        for pair in pairs {
            if let index = reactions.firstIndex(where: { $0.emoji == pair.emoji }) {
                reactions[index].userIds.append(pair.userId)
            } else {
                reactions.append(Message.Reaction(emoji: pair.emoji, userIds: [pair.userId]))
            }
        }
        return reactions
    }
}
