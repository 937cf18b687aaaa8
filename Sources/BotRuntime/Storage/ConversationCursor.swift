import ChatterBots

/// How far the bot has got in one conversation.
///
/// `contiguousSeq` is what `sync.request` sends: every message up to it has been handled, or passed over
/// (the bot's own messages, skipped history). Messages above it that arrived early are parked until the gap
/// before them is filled.
package struct ConversationCursor: Hashable, Sendable {
    public var conversationId: Conversation.ID
    /// The highest seq such that every message at or below it was handled or passed over.
    public var contiguousSeq: Int
    /// The highest seq the bot knows of in this conversation (from the conversation, a message or an ack).
    public var lastSeq: Int
    /// The conversation's own `updatedAt`, as the service last reported it.
    public var updatedAt: Timestamp?
    /// Whether the bot was removed from the conversation: the cursor is kept (so a later re-add does not
    /// handle old messages again) but the conversation is left out of `sync.request`.
    public var isRemoved: Bool
    /// `Conversation.detailsDigest` of the conversation as last recorded; nil when recorded before the store kept it.
    public var detailsDigest: String?

    public init(
        conversationId: Conversation.ID, contiguousSeq: Int, lastSeq: Int, updatedAt: Timestamp?, isRemoved: Bool,
        detailsDigest: String? = nil
    ) {
        self.conversationId = conversationId
        self.contiguousSeq = contiguousSeq
        self.lastSeq = lastSeq
        self.updatedAt = updatedAt
        self.isRemoved = isRemoved
        self.detailsDigest = detailsDigest
    }
}

/// Where the bot starts in a conversation it has not recorded before.
public enum ConversationStart: Hashable, Sendable {
    /// Handle every message from seq 1: right for a direct conversation someone just started.
    case firstMessage
    /// Handle only messages after the conversation's `lastSeq`: right for a group with history the bot
    /// should not answer.
    case afterLastMessage
}
