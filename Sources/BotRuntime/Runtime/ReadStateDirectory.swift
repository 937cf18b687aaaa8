import ChatterBots
import Synchronization

/// The last known read state of each conversation (members' watermarks and the bot's latest message), in memory:
/// fed by the sync response's member watermarks, by conversation objects, by `receipt.updated` and by the bot's
/// own messages. Best effort, like the events feeding it; nothing is stored.
final class ReadStateDirectory: Sendable {
    private let states = Mutex<[Conversation.ID: ConversationReadState]>([:])

    /// Merges a `receipt.updated`; returns whether a watermark moved (false for a repeated or late receipt).
    func update(_ receipt: ReceiptUpdate) -> Bool {
        merge([MemberWatermarks(
            userId: receipt.userId, lastDeliveredSeq: receipt.lastDeliveredSeq, lastReadSeq: receipt.lastReadSeq)],
            in: receipt.conversationId)
    }

    /// Merges the watermarks a sync response lists for a conversation; returns the moves to tell the bot of (see
    /// ``recordMoves(_:in:bot:lastMessage:)``).
    func record(_ members: [MemberWatermarks], in conversationId: Conversation.ID, bot: User.ID?) -> [ReceiptUpdate] {
        recordMoves(members, in: conversationId, bot: bot, lastMessage: nil)
    }

    /// Merges a conversation object's member watermarks, and its last message when `bot` sent it; returns the
    /// moves to tell the bot of (see ``recordMoves(_:in:bot:lastMessage:)``).
    func record(_ conversation: Conversation, bot: User.ID?) -> [ReceiptUpdate] {
        let members = conversation.members.map {
            MemberWatermarks(userId: $0.userId, lastDeliveredSeq: $0.lastDeliveredSeq, lastReadSeq: $0.lastReadSeq)
        }
        return recordMoves(members, in: conversation.id, bot: bot, lastMessage: conversation.lastMessage)
    }

    /// The moves a sync or a conversation object tells of: another member's read watermark that was known and moved,
    /// with both watermarks as they are now (a read while the bot was disconnected). With nothing known before (a new
    /// process, a new conversation) there is no move to tell of; a delivered watermark moving alone is merged but not
    /// told (after an outage it moves for every member of every active conversation).
    private func recordMoves(
        _ members: [MemberWatermarks], in conversationId: Conversation.ID, bot: User.ID?, lastMessage: Message?
    ) -> [ReceiptUpdate] {
        states.withLock { states in
            var state = states[conversationId] ?? ConversationReadState(conversationId: conversationId)
            var moves: [ReceiptUpdate] = []
            for member in members {
                let before = state.members[member.userId]
                guard state.merge(member), let before, member.userId != bot, let now = state.members[member.userId],
                      now.lastReadSeq > before.lastReadSeq
                else { continue }
                moves.append(ReceiptUpdate(
                    conversationId: conversationId, userId: now.userId, lastDeliveredSeq: now.lastDeliveredSeq,
                    lastReadSeq: now.lastReadSeq))
            }
            if let lastMessage, let bot, lastMessage.senderId == bot { state.noteOwnMessage(lastMessage.seq) }
            states[conversationId] = state
            return moves
        }
    }

    /// Notes messages of the bot's own (acknowledged sends, or sent from its other devices).
    func noteOwn(_ seqs: [Int], in conversationId: Conversation.ID) {
        guard let last = seqs.max() else { return }
        states.withLock { states in
            var state = states[conversationId] ?? ConversationReadState(conversationId: conversationId)
            state.noteOwnMessage(last)
            states[conversationId] = state
        }
    }

    /// Forgets a conversation the bot is no longer a member of.
    func remove(_ conversationId: Conversation.ID) {
        _ = states.withLock { $0.removeValue(forKey: conversationId) }
    }

    func readState(of conversationId: Conversation.ID) -> ConversationReadState? {
        states.withLock { $0[conversationId] }
    }

    @discardableResult
    private func merge(_ members: [MemberWatermarks], in conversationId: Conversation.ID) -> Bool {
        states.withLock { states in
            var state = states[conversationId] ?? ConversationReadState(conversationId: conversationId)
            var moved = false
            for member in members where state.merge(member) { moved = true }
            states[conversationId] = state
            return moved
        }
    }
}
