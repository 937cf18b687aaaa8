import BotRuntime
import ChatterBots

/// The messages the terminal client has seen, per conversation, remembered only down to a floor the screen gives:
/// the lowest `seq` that can still arrive again (`ChatScreen.lowestRepeatableSeq(in:)`). A message below it can only
/// be a repeat, so it counts as seen without being remembered, and a chat left open for days keeps a bounded set.
struct SeenMessages: Sendable, Hashable {
    /// The `seq` of each remembered message, per conversation.
    private var seqs: [Conversation.ID: [Message.ID: Int]] = [:]

    /// Notes a message; true when it is new (neither remembered nor below `floor`).
    mutating func insert(_ id: Message.ID, seq: Int, in conversation: Conversation.ID, floor: Int) -> Bool {
        guard seq >= floor, seqs[conversation]?[id] == nil else { return false }
        seqs[conversation, default: [:]][id] = seq
        return true
    }

    /// Whether the message would be new to `insert`.
    func isNew(_ id: Message.ID, seq: Int, in conversation: Conversation.ID, floor: Int) -> Bool {
        seq >= floor && seqs[conversation]?[id] == nil
    }

    /// Whether the message was seen and is still remembered: what the screen shows edits and reactions of.
    func remembers(_ id: Message.ID, in conversation: Conversation.ID) -> Bool {
        seqs[conversation]?[id] != nil
    }

    /// Forgets the messages of `conversation` below `floor` and returns their ids.
    mutating func forget(below floor: Int, in conversation: Conversation.ID) -> [Message.ID] {
        guard let known = seqs[conversation], known.values.contains(where: { $0 < floor }) else { return [] }
        let (old, kept) = (known.filter { $0.value < floor }, known.filter { $0.value >= floor })
        seqs[conversation] = kept
        return Array(old.keys)
    }

    /// Forgets every message of `conversation` and returns their ids.
    mutating func forgetAll(in conversation: Conversation.ID) -> [Message.ID] {
        Array((seqs.removeValue(forKey: conversation) ?? [:]).keys)
    }

    /// How many messages of `conversation` are remembered.
    func count(in conversation: Conversation.ID) -> Int {
        seqs[conversation]?.count ?? 0
    }
}
