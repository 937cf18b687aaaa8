import BotRuntime
import ChatterBots

/// What the terminal client knows about one conversation beyond the server's `Conversation`: the newest `seq`
/// it has seen, its unread count, the person's own messages (to report receipts on them), every member's
/// watermarks, and a one-line preview for `/list`.
struct ChatConversation: Sendable, Hashable {
    var conversation: Conversation
    /// The highest `seq` seen: listed by the server, printed, or acknowledged.
    var lastSeq: Int
    /// The highest `seq` up to which nothing is missing: what a reconnect's `sync.request` asks after, and how far
    /// receipts go. A message another member sent may arrive after the ack of a later one of the person's own
    /// (fan-outs of different senders are not ordered), and a sync from the highest seq would never fetch it.
    private(set) var contiguousSeq: Int
    /// Seqs seen after a missing one, until the contiguous seq reaches them.
    private var seenAfterGap: Set<Int> = []
    /// Messages from others not yet read (0 while the conversation is open).
    var unread: Int
    /// The person's own messages seen this run, by `seq`: their text, for receipt lines.
    var ownMessages: [Int: String] = [:]
    /// Every member's watermarks, the person's own included.
    var watermarks: [User.ID: Watermarks] = [:]
    /// When the conversation last had a message, for ordering `/list`.
    var lastActivity: Timestamp
    /// `sender: text` of the newest message, for `/list`.
    var preview: String?
    /// Messages received but not shown yet, by `seq`: they came after a missing one that is on its way (a catch-up,
    /// the ack of the person's own message, the history being loaded), and show once it is here.
    var held: [Int: Message] = [:]

    struct Watermarks: Sendable, Hashable {
        var delivered: Int
        var read: Int
    }

    var id: Conversation.ID { conversation.id }

    /// A conversation as the server lists it. Unread is what the person's read watermark leaves, except after a
    /// last message of their own (answering means they saw what came before; the service does not move the
    /// sender's own read watermark).
    init(_ conversation: Conversation, me: User.ID?) {
        self.conversation = conversation
        lastSeq = conversation.lastSeq
        contiguousSeq = conversation.lastSeq
        lastActivity = conversation.lastMessage?.createdAt ?? conversation.updatedAt
        var marks: [User.ID: Watermarks] = [:]
        for member in conversation.members {
            marks[member.userId] = Watermarks(delivered: member.lastDeliveredSeq, read: member.lastReadSeq)
        }
        watermarks = marks
        let myRead = me.flatMap { marks[$0]?.read } ?? 0
        if let last = conversation.lastMessage, last.senderId == me {
            unread = 0
        } else {
            unread = max(0, conversation.lastSeq - myRead)
        }
    }

    /// Notes that message `seq` is here (printed, acknowledged or loaded with the history).
    mutating func noteSeen(_ seq: Int) {
        lastSeq = max(lastSeq, seq)
        guard seq > contiguousSeq else { return }
        seenAfterGap.insert(seq)
        while seenAfterGap.remove(contiguousSeq + 1) != nil { contiguousSeq += 1 }
    }

    /// Forgets the person's own messages every other member has read (no receipt line can come for them) and those
    /// below `floor` (the screen forgets the messages there), so a long chat keeps a bounded list.
    mutating func forgetSettledOwnMessages(below floor: Int, me: User.ID?) {
        guard !ownMessages.isEmpty else { return }
        let readByAll = others(than: me).map { watermarks[$0]?.read ?? 0 }.min() ?? .max
        let settled = max(floor - 1, readByAll)
        guard ownMessages.keys.contains(where: { $0 <= settled }) else { return }
        ownMessages = ownMessages.filter { $0.key > settled }
    }

    /// The members other than `me`.
    func others(than me: User.ID?) -> [User.ID] {
        conversation.members.map(\.userId).filter { $0 != me }
    }
}
