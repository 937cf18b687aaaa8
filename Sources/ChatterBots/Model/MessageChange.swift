/// A change a bot makes to a message that exists: its own text edited, its own message deleted for everyone, or
/// a reaction of the bot's added or removed. Each is idempotent at the service (the same change twice has the
/// effect of one), which is what lets the runtime retry it until the service answers.
public enum MessageChange: Hashable, Sendable {
    /// Replaces the text of one of the bot's own messages (`PATCH …/messages/{id}`).
    case edit(body: String)
    /// Deletes one of the bot's own messages for everyone (`DELETE …/messages/{id}`).
    case delete
    /// Adds the bot's reaction `emoji` (`PUT …/reactions/{emoji}`).
    case addReaction(String)
    /// Removes the bot's reaction `emoji` (`DELETE …/reactions/{emoji}`).
    case removeReaction(String)
}
