/// Read receipts from a handler: how far others have read, from what the bot last heard (no request to the
/// service). Backed by ``BotContext/readState(of:)``.
extension BotContext {
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
