import Foundation

/// The persisted position of one running dialog: which dialog, which step, what it gathered, and when it
/// lapses. Kept in `BotContext` state under the sender (`StateScope.user`), one key per conversation, so
/// there is at most one per (user, conversation) and it survives restarts.
struct ActiveDialog: Codable, Hashable, Sendable {
    var name: String
    var step: String
    var values: JSONValue
    /// Measured from `BotContext.now`; nil for never.
    var expiresAt: Timestamp?

    func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= Timestamp(now) } ?? false
    }

    static func key(for conversationId: Conversation.ID) -> StateKey<ActiveDialog> {
        StateKey("chatterbots.dialog.\(conversationId.rawValue)")
    }
}
