import ChatterBots
import Synchronization
import WebSocket

/// Sends `receipt.delivered` (an incoming message is stored) and `receipt.read` (its handler finished) as the
/// policy says, on the session's current connection, by the rules of `ReceiptLedger`: a burst of a thousand
/// messages costs a few frames, and what a dying connection may have lost goes out again on the next one.
///
/// On an event loop the receipts go out at the end of the loop's turn, without a task: a message stored and handled
/// in one turn then costs one `receipt.read` (it covers delivery too), written with the reply.
final class ReceiptSender: Sendable {
    private struct State {
        var ledger = ReceiptLedger()
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
        update { $0.delivered(seq, in: conversation) }
    }

    /// Messages up to `seq` of `conversation` were handled.
    func read(_ seq: Int, in conversation: Conversation.ID) {
        guard policy.sendsRead else { return }
        update { $0.read(seq, in: conversation) }
    }

    /// Sends pending receipts on `link` from now on.
    func attach(_ link: RealtimeLink) {
        let flush = state.withLock { state -> Bool in
            state.link = link
            return Self.beginFlush(&state)
        }
        if flush { scheduleFlush() }
    }

    /// The connection of `generation` ended; receipts wait for the next one, with those it may have lost.
    func detach(generation: UInt64) {
        state.withLock { state in
            guard let link = state.link, link.generation == generation else { return }
            state.link = nil
            state.ledger.connectionEnded(generation: generation, pongsReceived: link.heartbeat.pongsReceived)
        }
    }

    private func update(_ change: (inout ReceiptLedger) -> Void) {
        let flush = state.withLock { state -> Bool in
            change(&state.ledger)
            return Self.beginFlush(&state)
        }
        if flush { scheduleFlush() }
    }

    private static func beginFlush(_ state: inout State) -> Bool {
        guard !state.isFlushing, state.link != nil, state.ledger.hasUnsent else { return false }
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
                guard let link = state.link, state.ledger.hasUnsent else {
                    state.isFlushing = false
                    return nil
                }
                return (link, state.ledger.takeUnsent(generation: link.generation))
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
            let pingsWritten = link.heartbeat.pingsWritten
            state.withLock { $0.ledger.written(generation: link.generation, pingsWritten: pingsWritten) }
        }
    }
}
