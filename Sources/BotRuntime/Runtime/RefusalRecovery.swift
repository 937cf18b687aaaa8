import ChatterBots

/// What a conversation does when the store refuses the unit of work of one of its messages (any refusal but
/// "already handled": a failed write, or a unit out of order because one before it was refused): it is rewound to
/// the store's contiguous seq and its messages are handed out again from there, so no refusal wedges it. A message
/// whose unit keeps being refused is passed over after ``maxAttempts`` (marked handled, its effects discarded), so it
/// cannot hold its conversation forever either.
///
/// A plain value: the session asks it once per refusal of the conversation's current rewind epoch (refusals of units
/// taken before the latest rewind are expected and not counted).
struct RefusalRecovery: Sendable {
    enum Decision: Equatable, Sendable {
        /// Hand the message out again, from the store's contiguous seq.
        case rewind
        /// Mark the message handled without its effects, then go on from the store's contiguous seq.
        case passOver
    }

    /// How many refusals in a row of one message's unit are tried again before it is passed over.
    static let maxAttempts = 3

    /// Per conversation, the message refused last and how many times in a row.
    private var refusals: [Conversation.ID: (message: Message.ID, count: Int)] = [:]

    /// The store refused the unit of `message` (of the conversation's current epoch).
    mutating func refused(_ message: Message) -> Decision {
        let conversation = message.conversationId
        var count = 1
        if let last = refusals[conversation], last.message == message.id { count = last.count + 1 }
        guard count < Self.maxAttempts else {
            refusals[conversation] = nil
            return .passOver
        }
        refusals[conversation] = (message.id, count)
        return .rewind
    }
}
