import ChatterBots

/// What to do with an incoming message, as ``BotStore/admit(_:bot:)`` decides from the durable cursor, the
/// parked messages and the messages already handed out.
package enum MessageAdmission: Hashable, Sendable {
    /// The next message of its conversation: it is now handed out. Handle it and commit a unit for it.
    case deliver
    /// It arrived ahead of a gap and waits in the store's memory: the store hands it out (in the `released` of the
    /// admission, commit or ack that closes the gap, or through ``BotStore/nextDeliverable(in:)``) once the messages
    /// before it are handled. The contiguous seq stays before it, so after a restart sync brings it again.
    case parked
    /// Already handled, handed out or parked: ignore it.
    case duplicate
    /// Sent by the bot itself (seen through sync): passed over without delivery, never answered. If its
    /// outbox entry was still pending, it is now acknowledged.
    case own
    /// The conversation has no cursor: record it first, then admit the message again. Nothing was stored.
    case unknownConversation
    /// The bot was removed from the conversation (`conversation.removed`) and not added back: ignore it. Nothing was
    /// stored; if the bot is added back, a sync from its cursor brings what it may see.
    case removedConversation
}

/// What ``BotStore/markAcked(_:)`` did with one `message.ack`.
package enum AckOutcome: Hashable, Sendable {
    /// The pending (or failed) entry is now acknowledged.
    case acknowledged
    /// The entry was already acknowledged (a repeated ack): nothing changed.
    case alreadyAcknowledged
    /// No outbox entry has this clientMessageId (pruned, or never enqueued here). The conversation's
    /// cursor still passes over the acknowledged seq.
    case unknownEntry
}

/// What ``BotStore/admit(_:bot:)`` decided for a batch of incoming messages.
package struct AdmissionReport: Hashable, Sendable {
    /// One admission per message, in the order given.
    public var admissions: [MessageAdmission]
    /// Parked messages that now follow the delivered ones without a gap (this batch closed the gap before
    /// them), handed out in seq order per conversation: handle them like `.deliver` ones, after those.
    public var released: [Message]

    public init(admissions: [MessageAdmission], released: [Message]) {
        self.admissions = admissions
        self.released = released
    }
}

/// What ``BotStore/markAcked(_:)`` did with a batch of acks.
package struct AckReport: Hashable, Sendable {
    /// One outcome per ack, in the order given.
    public var outcomes: [AckOutcome]
    /// Parked messages handed out because an acknowledged seq closed the gap before them, in seq order per
    /// conversation: handle them next.
    public var released: [Message]

    public init(outcomes: [AckOutcome], released: [Message]) {
        self.outcomes = outcomes
        self.released = released
    }
}
