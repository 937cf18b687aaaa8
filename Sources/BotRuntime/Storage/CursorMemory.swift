import ChatterBots
import Synchronization

/// What the store keeps in memory about its conversations: the committed cursors (so the hot path does not
/// read them back from SQLite in every transaction), the parked messages and the bot's own messages ahead of the
/// contiguous seq (``ParkedMessages``), and per conversation the highest seq handed out for handling but not
/// committed yet.
///
/// Parked messages and hand-out marks exist in memory only: after a restart nothing is in flight, and everything
/// above the contiguous seq comes again through sync. All three change only on the database queue, after the
/// transaction that decided the change committed; the cached contiguous seqs are exactly the committed rows because
/// every write of `conversations` goes through a ``CursorWorkspace`` or forgets the conversation here (a cached
/// `lastSeq` may be ahead of its row: admission raises it in memory only). The store must be the only writer of its
/// file.
final class CursorMemory: Sendable {
    private struct State {
        var cursors: [Conversation.ID: CursorWorkspace.Cursor] = [:]
        var handedOut: [Conversation.ID: Int] = [:]
        var parked: [Conversation.ID: ParkedMessages] = [:]
    }

    private let state = Mutex(State())

    func handedOut(in conversation: Conversation.ID) -> Int? {
        state.withLock { $0.handedOut[conversation] }
    }

    func cursor(_ conversation: Conversation.ID) -> CursorWorkspace.Cursor? {
        state.withLock { $0.cursors[conversation] }
    }

    /// What `conversation` waits for: the next seq neither handled, handed out nor the bot's own (`expected`), the
    /// messages parked, and the lowest seq parked above it (entries below are handed out, or own markers the cursor
    /// will pass); the gap is open when something is parked beyond `expected`.
    func gap(in conversation: Conversation.ID) -> (expected: Int, parkedMessages: Int, firstParkedSeq: Int?, isOpen: Bool) {
        state.withLock { state in
            var expected = max(state.cursors[conversation]?.contiguous ?? 0, state.handedOut[conversation] ?? 0) + 1
            guard let parked = state.parked[conversation] else { return (expected, 0, nil, false) }
            for (seq, entry) in parked.entries(from: expected) {
                guard seq == expected, case .own = entry else { break }
                expected += 1
            }
            let first = parked.first(after: expected - 1)?.seq
            return (expected, parked.messageCount, first, first.map { $0 > expected } ?? false)
        }
    }

    func parked(in conversation: Conversation.ID) -> ParkedMessages {
        state.withLock { $0.parked[conversation] } ?? ParkedMessages()
    }

    /// Records a committed transaction's cursors, hand-out marks and parked messages, and forgets the marks its
    /// contiguous seqs have caught up with.
    func publish(
        cursors: [Conversation.ID: CursorWorkspace.Cursor], handedOut changes: [Conversation.ID: Int],
        parked: [Conversation.ID: ParkedMessages]
    ) {
        state.withLock { state in
            for (conversation, seq) in changes { state.handedOut[conversation] = seq }
            for (conversation, messages) in parked {
                state.parked[conversation] = messages.isEmpty ? nil : messages
            }
            for (conversation, var cursor) in cursors {
                cursor.isDirty = false
                state.cursors[conversation] = cursor
                if let mark = state.handedOut[conversation], mark <= cursor.contiguous {
                    state.handedOut[conversation] = nil
                }
            }
        }
    }

    /// Forgets the hand-out marks of `conversation` (of every conversation when nil).
    func forgetHandedOut(_ conversation: Conversation.ID?) {
        state.withLock { state in
            if let conversation { state.handedOut[conversation] = nil } else { state.handedOut.removeAll() }
        }
    }

    /// Forgets everything about `conversation`, after a write that bypassed a workspace.
    func forget(_ conversation: Conversation.ID) {
        state.withLock { state in
            state.cursors[conversation] = nil
            state.handedOut[conversation] = nil
            state.parked[conversation] = nil
        }
    }

    /// The conversations whose next message (after what is handled or handed out, passing over the bot's own) is
    /// parked, by id.
    func conversationsWithDeliverableMessages() -> [Conversation.ID] {
        state.withLock { state in
            var found: [Conversation.ID] = []
            for (conversation, messages) in state.parked {
                guard let cursor = state.cursors[conversation] else { continue }
                var next = max(cursor.contiguous, state.handedOut[conversation] ?? 0) + 1
                for (seq, entry) in messages.entries(from: next) {
                    guard seq == next else { break }
                    if case .message = entry {
                        found.append(conversation)
                        break
                    }
                    next += 1
                }
            }
            return found.sorted { $0.rawValue < $1.rawValue }
        }
    }
}
