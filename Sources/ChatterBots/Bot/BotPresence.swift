/// What the session knows of other people, from what it heard (no request to the service): friends' presence, from
/// the snapshot at connect and the changes since, and how far members have received and read each conversation.
/// Reading it changes nothing, so it has no unit of work.
public protocol BotPresence: Sendable {
    /// The last known presence of a friend; nil if unknown.
    func lastKnown(of userId: User.ID) async -> Presence?

    /// How far each member has received and read `conversationId`, as the bot last heard (the sync after each
    /// connect, conversation objects, `receipt.updated`), with the bot's own latest message there; nil when the bot
    /// heard nothing of it.
    func readState(of conversationId: Conversation.ID) async -> ConversationReadState?
}

extension BotPresence {
    /// Whether `userId` has read the bot's latest message in `conversationId`: "has Ana read my last message?"
    /// False when the bot knows no message of its own there, or nothing of the member's watermarks.
    public func hasRead(_ userId: User.ID, lastMessageSentIn conversationId: Conversation.ID) async -> Bool {
        await readState(of: conversationId)?.hasReadLastOwnMessage(userId) ?? false
    }

    /// Whether `userId` has read `conversationId` up to `seq` (for example an acknowledged send's `MessageAck.seq`).
    public func hasRead(_ userId: User.ID, upTo seq: Int, in conversationId: Conversation.ID) async -> Bool {
        await readState(of: conversationId)?.hasRead(userId, upTo: seq) ?? false
    }
}
