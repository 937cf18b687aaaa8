import ChatterBots

/// What the admission takes, in arrival order: incoming messages (live, from a sync, from a REST page), edits,
/// conversations created, updated or removed, rewinds after a refused unit, and barriers.
enum AdmissionItem: Sendable {
    /// Where a conversation comes from, which decides the handler it reaches.
    enum ConversationReport: Sendable {
        /// `conversation.created`: `onConversationCreated`, unless the bot knows it already (a repeated event).
        case created
        /// `conversation.updated`: `onConversationUpdated` (`onConversationCreated` if the bot did not know it),
        /// unless the bot recorded that state or a newer one already (a repeated event).
        case updated
        /// A page of the REST refresh (`GET /conversations?updatedSince=`): created when new, updated when changed
        /// since last recorded.
        case refreshed
        /// A conversation looked up by id (`GET /conversations/{id}`): reported as a refresh page is.
        case lookedUp

        /// Whether recording it moves the store's `updatedSince` marker: only a refresh page lists every
        /// conversation changed up to its newest, so anything else would let the next refresh skip some.
        var isRefreshPage: Bool { self == .refreshed }
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
