/// How far each member of a conversation has received and read it, as the bot last heard (the sync after each
/// connect, conversation objects, and `receipt.updated` events), with the bot's own latest message.
///
/// Best effort: receipts can be missed while connected, and the next sync brings the latest values. Watermarks
/// only move forward.
public struct ConversationReadState: Hashable, Sendable {
    /// The conversation described.
    public var conversationId: Conversation.ID
    /// Each member's watermarks as last heard, the bot's own included.
    public var members: [User.ID: MemberWatermarks]
    /// The `seq` of the bot's latest message in the conversation that the bot knows of (acknowledged sends, its
    /// messages from other devices, a conversation's last message); nil when it knows none.
    public var lastOwnSeq: Int?

    /// A read state, as the runtime (or a test) assembles it.
    public init(conversationId: Conversation.ID, members: [User.ID: MemberWatermarks] = [:], lastOwnSeq: Int? = nil) {
        self.conversationId = conversationId
        self.members = members
        self.lastOwnSeq = lastOwnSeq
    }

    /// Whether `userId` has read the conversation up to `seq` (false when their watermarks are unknown).
    public func hasRead(_ userId: User.ID, upTo seq: Int) -> Bool {
        (members[userId]?.lastReadSeq ?? 0) >= seq
    }

    /// Whether `userId` has read the bot's latest message here (false when the bot knows no message of its own).
    public func hasReadLastOwnMessage(_ userId: User.ID) -> Bool {
        guard let lastOwnSeq else { return false }
        return hasRead(userId, upTo: lastOwnSeq)
    }

    /// These watermarks with `watermarks` merged in: each value only moves forward, so a late or repeated receipt
    /// changes nothing. Returns whether anything moved.
    @discardableResult
    public mutating func merge(_ watermarks: MemberWatermarks) -> Bool {
        let known = members[watermarks.userId]
        let merged = MemberWatermarks(
            userId: watermarks.userId, lastDeliveredSeq: max(known?.lastDeliveredSeq ?? 0, watermarks.lastDeliveredSeq),
            lastReadSeq: max(known?.lastReadSeq ?? 0, watermarks.lastReadSeq))
        guard merged != known else { return false }
        members[watermarks.userId] = merged
        return true
    }

    /// Notes a message of the bot's own at `seq`.
    public mutating func noteOwnMessage(_ seq: Int) {
        lastOwnSeq = max(lastOwnSeq ?? 0, seq)
    }
}
