import ChatterBots

/// How the store writes a scope: a kind (`global`, `user`, `conversation`) and an id (empty for `global`) in
/// two columns, so that every value or job of one user or one conversation can be listed or removed together.
extension StateScope {
    /// The `scope` / `owner_scope` column.
    var storageKind: String {
        switch self {
        case .global: "global"
        case .user: "user"
        case .conversation: "conversation"
        }
    }

    /// The `scope_id` / `owner_id` column.
    var storageID: String {
        switch self {
        case .global: ""
        case .user(let id): id.rawValue
        case .conversation(let id): id.rawValue
        }
    }

    /// The scope stored as `kind` and `id`; nil when `kind` is not one this version writes.
    init?(storageKind kind: String, storageID id: String) {
        switch kind {
        case "global": self = .global
        case "user": self = .user(User.ID(id))
        case "conversation": self = .conversation(Conversation.ID(id))
        default: return nil
        }
    }
}
