import ChatterBots

/// What the admission takes, in arrival order: incoming messages (live, from a sync, from a REST page), edits,
/// conversations created, updated or removed, rewinds after a refused unit, and barriers.
enum AdmissionItem: Sendable {
    /// Where a conversation comes from, which decides the handler it reaches.
    enum ConversationReport: Sendable {
        /// `conversation.created`: `onConversationCreated`, unless the bot knows it already (a repeated event).
        case created
        /// `conversation.updated`: `onConversationUpdated` (`onConversationCreated` if the bot did not know it).
        case updated
        /// The REST refresh or a look-up: created when new, updated when changed since last recorded.
        case refreshed
    }

    /// Messages to admit (`message.new`, a sync, a REST page).
    case messages([Message])
    /// A page the admission's own backfill fetched: admitted even while its conversation sheds (the backfill
    /// waits for room in the lane before each page), since it is what fills the gap or the backlog.
    case fetched([Message])
    /// `message.updated`: to the message's lane, after what came before it.
    case updated(Message, trace: String)
    /// Conversations the service reported.
    case conversations([Conversation], ConversationReport, trace: String)
    /// `conversation.removed`, or a conversation the sync no longer returns.
    case removed(Conversation.ID, trace: String)
    /// The store refused a unit of the conversation: forget what was handed out and not committed, and fetch
    /// its messages again from the store's contiguous seq (after marking `passingOver` handled, when given).
    case rewind(Conversation.ID, passingOver: Message?)
    /// Runs once everything before it was processed.
    case barrier(@Sendable () -> Void)
}
