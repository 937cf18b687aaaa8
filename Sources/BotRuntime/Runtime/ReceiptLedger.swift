import ChatterBots

/// The rule of `ReceiptSender`, apart from its I/O: the highest delivered and read seq per conversation, what of
/// them went out on which connection, and what must go out again.
///
/// Receipts are watermarks, so only the highest seq per conversation is sent. A receipt written to a connection
/// that was already dying may be lost, so when a connection ends, what was written to it goes out again on the
/// next one, unless the service answered a ping written after it: it reads a connection's frames in order, so
/// such a pong proves the receipt arrived. Without that proof every receipt ever sent would go out again on every
/// reconnect.
struct ReceiptLedger {
    private struct Marks {
        var delivered = 0
        var read = 0
        var sentDelivered = 0
        var sentRead = 0
        /// The connection the last receipt of this conversation was written to, until a pong proved it arrived.
        var sentOn: UInt64?
        /// How many pings of `sentOn` must be answered to prove the last receipt arrived.
        var provenByPongs = 0

        var hasUnsent: Bool { read > sentRead || delivered > max(sentDelivered, sentRead) }
    }

    private var marks: [Conversation.ID: Marks] = [:]
    private var dirty: [Conversation.ID] = []
    /// The conversations of the last `takeUnsent`, until `written` names the ping that proves them.
    private var taken: [Conversation.ID] = []

    /// Whether a receipt waits to be sent.
    var hasUnsent: Bool { !dirty.isEmpty }

    /// Messages up to `seq` of `conversation` are stored by the bot.
    mutating func delivered(_ seq: Int, in conversation: Conversation.ID) {
        update(conversation) { $0.delivered = max($0.delivered, seq) }
    }

    /// Messages up to `seq` of `conversation` were handled.
    mutating func read(_ seq: Int, in conversation: Conversation.ID) {
        update(conversation) { $0.read = max($0.read, seq) }
    }

    /// The receipts to write now to the connection of `generation`; they count as sent, unproven until `written`
    /// says which ping proves them. A `receipt.read` covers delivery too.
    mutating func takeUnsent(generation: UInt64) -> [ClientRequest] {
        var requests: [ClientRequest] = []
        for conversation in dirty {
            guard var marks = marks[conversation] else { continue }
            if marks.read > marks.sentRead {
                requests.append(.receiptRead(ReceiptPosition(conversationId: conversation, seq: marks.read)))
                marks.sentRead = marks.read
                marks.sentDelivered = max(marks.sentDelivered, marks.read)
            }
            if marks.delivered > marks.sentDelivered {
                requests.append(.receiptDelivered(ReceiptPosition(conversationId: conversation, seq: marks.delivered)))
                marks.sentDelivered = marks.delivered
            }
            marks.sentOn = generation
            marks.provenByPongs = .max
            self.marks[conversation] = marks
            taken.append(conversation)
        }
        dirty = []
        return requests
    }

    /// The receipts taken for the connection of `generation` were written to it, and then its heartbeat had counted
    /// `pingsWritten` pings. A ping is counted before it is written, whoever writes it, so every ping counted later
    /// is written after the receipts: its pong proves they arrived.
    mutating func written(generation: UInt64, pingsWritten: Int) {
        for conversation in taken {
            // In place: no copy of the dictionary, whatever the number of conversations.
            Self.prove(&marks[conversation, default: Marks()], generation: generation, by: pingsWritten + 1)
        }
        taken = []
    }

    private static func prove(_ marks: inout Marks, generation: UInt64, by pongs: Int) {
        if marks.sentOn == generation && marks.provenByPongs == .max { marks.provenByPongs = pongs }
    }

    /// The connection of `generation` ended after `pongsReceived` of its pings were answered. What was written to
    /// it and not proven to have arrived waits for the next connection.
    mutating func connectionEnded(generation: UInt64, pongsReceived: Int) {
        for (conversation, var marks) in marks where marks.sentOn == generation {
            marks.sentOn = nil
            if marks.provenByPongs > pongsReceived {
                let hadUnsent = marks.hasUnsent
                marks.sentRead = 0
                marks.sentDelivered = 0
                if !hadUnsent && marks.hasUnsent { dirty.append(conversation) }
            }
            self.marks[conversation] = marks
        }
    }

    private mutating func update(_ conversation: Conversation.ID, _ change: (inout Marks) -> Void) {
        // In place: one lookup of the conversation (a hash of its id) per message, not two.
        if Self.apply(change, to: &marks[conversation, default: Marks()]) { dirty.append(conversation) }
    }

    /// Applies `change` to `marks`; true when they had nothing unsent before and have now.
    private static func apply(_ change: (inout Marks) -> Void, to marks: inout Marks) -> Bool {
        let hadUnsent = marks.hasUnsent
        change(&marks)
        return !hadUnsent && marks.hasUnsent
    }
}
