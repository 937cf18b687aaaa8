import ChatterBots

/// Whose data a stored value or a scheduled job is: the whole bot, one user, or one conversation.
///
/// Stored as a kind (`global`, `user`, `conversation`) and an id (empty for `global`), so that every value
/// of one user or one conversation can be listed or removed together.
public enum BotScope: Hashable, Sendable, CustomStringConvertible {
    /// The bot as a whole.
    case global
    /// One user, wherever the bot meets them.
    case user(User.ID)
    /// One conversation, whoever writes in it.
    case conversation(Conversation.ID)

    public var description: String {
        switch self {
        case .global: "global"
        case .user(let id): "user \(id)"
        case .conversation(let id): "conversation \(id)"
        }
    }

    /// The `scope` column.
    var kind: String {
        switch self {
        case .global: "global"
        case .user: "user"
        case .conversation: "conversation"
        }
    }

    /// The `scope_id` column.
    var id: String {
        switch self {
        case .global: ""
        case .user(let id): id.rawValue
        case .conversation(let id): id.rawValue
        }
    }

    /// The scope stored as `kind` and `id`; nil when `kind` is not one this version writes.
    init?(kind: String, id: String) {
        switch kind {
        case "global": self = .global
        case "user": self = .user(User.ID(id))
        case "conversation": self = .conversation(Conversation.ID(id))
        default: return nil
        }
    }
}
