import ChatterBots
import Synchronization
import WebSocket

/// Sends `receipt.delivered` (an incoming message is stored) and `receipt.read` (its handler finished) as the
/// policy says. Receipts are watermarks, so only the highest seq per conversation is sent: a burst of a thousand
/// messages costs a few frames. A write that succeeded may still be lost with a connection that was dying, so the
/// marks sent on a connection are sent again on the next one (watermarks only move forward: resending is safe).
///
/// On an event loop the receipts go out at the end of the loop's turn, without a task: a message stored and handled
/// in one turn then costs one `receipt.read` (it covers delivery too), written with the reply.
final class ReceiptSender: Sendable {
    private struct Marks {
        var delivered = 0
        var read = 0
        var sentDelivered = 0
        var sentRead = 0
        /// The connection the last receipt of this conversation was written to.
        var sentOn: UInt64?

        var hasUnsent: Bool { read > sentRead || delivered > max(sentDelivered, sentRead) }
    }

    private struct State {
        var marks: [Conversation.ID: Marks] = [:]
        var dirty: [Conversation.ID] = []
        var link: RealtimeLink?
        var isFlushing = false
    }

    let policy: ReceiptPolicy
    private let log: SessionLog
    private let state = Mutex(State())

    init(policy: ReceiptPolicy, log: SessionLog) {
        self.policy = policy
        self.log = log
    }

    /// Messages up to `seq` of `conversation` are stored by the bot.
    func delivered(_ seq: Int, in conversation: Conversation.ID) {
        guard policy.sendsDelivered else { return }
        update(conversation) { $0.delivered = max($0.delivered, seq) }
    }

    /// Messages up to `seq` of `conversation` were handled.
    func read(_ seq: Int, in conversation: Conversation.ID) {
        guard policy.sendsRead else { return }
        update(conversation) { $0.read = max($0.read, seq) }
    }

    /// Sends pending receipts on `link` from now on.
    func attach(_ link: RealtimeLink) {
        let flush = state.withLock { state -> Bool in
            state.link = link
            return Self.beginFlush(&state)
        }
        if flush { scheduleFlush() }
    }

    /// The connection of `generation` ended; receipts wait for the next one. What was written to it may not have
    /// reached the service, so those marks go out again on the next connection.
    func detach(generation: UInt64) {
        state.withLock { state in
            guard state.link?.generation == generation else { return }
            state.link = nil
            for (conversation, var marks) in state.marks where marks.sentOn == generation {
                let hadUnsent = marks.hasUnsent
                marks.sentRead = 0
                marks.sentDelivered = 0
                marks.sentOn = nil
                state.marks[conversation] = marks
                if !hadUnsent && marks.hasUnsent { state.dirty.append(conversation) }
            }
        }
    }

    private func update(_ conversation: Conversation.ID, _ change: (inout Marks) -> Void) {
        let flush = state.withLock { state -> Bool in
            // In place: one lookup of the conversation (a hash of its id) per message, not two.
            let becameUnsent = Self.apply(change, to: &state.marks[conversation, default: Marks()])
            if becameUnsent { state.dirty.append(conversation) }
            return Self.beginFlush(&state)
        }
        if flush { scheduleFlush() }
    }

    /// Applies `change` to `marks`; true when they had nothing unsent before and have now.
    private static func apply(_ change: (inout Marks) -> Void, to marks: inout Marks) -> Bool {
        let hadUnsent = marks.hasUnsent
        change(&marks)
        return !hadUnsent && marks.hasUnsent
    }

    private static func beginFlush(_ state: inout State) -> Bool {
        guard !state.isFlushing, state.link != nil, !state.dirty.isEmpty else { return false }
        state.isFlushing = true
        return true
    }

    /// Flushes at the end of the event loop's turn, or at once off a loop.
    private func scheduleFlush() {
        if !EventLoopTurn.atEnd({ self.flush() }) { flush() }
    }

    private func flush() {
        while true {
            let batch = state.withLock { state -> (RealtimeLink, [ClientRequest])? in
                guard let link = state.link, !state.dirty.isEmpty else {
                    state.isFlushing = false
                    return nil
                }
                var requests: [ClientRequest] = []
                for conversation in state.dirty {
                    guard var marks = state.marks[conversation] else { continue }
                    if marks.read > marks.sentRead {
                        requests.append(.receiptRead(ReceiptPosition(conversationId: conversation, seq: marks.read)))
                        marks.sentRead = marks.read
                        marks.sentDelivered = max(marks.sentDelivered, marks.read)
                    }
                    if marks.delivered > marks.sentDelivered {
                        requests.append(.receiptDelivered(ReceiptPosition(conversationId: conversation, seq: marks.delivered)))
                        marks.sentDelivered = marks.delivered
                    }
                    marks.sentOn = link.generation
                    state.marks[conversation] = marks
                }
                state.dirty = []
                return (link, requests)
            }
            guard let (link, requests) = batch else { return }
            for request in requests {
                do {
                    try link.connection.sendWithoutWaiting(request)
                } catch {
                    log.debug("receipt not sent: \(error)")
                    break
                }
            }
        }
    }
}
