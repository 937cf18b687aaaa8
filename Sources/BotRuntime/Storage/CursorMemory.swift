import ChatterBots
import Synchronization

/// What the store keeps in memory about its conversations: the committed cursors (so the hot path does not
/// read them back from SQLite in every transaction) and, per conversation, the highest seq handed out for
/// handling but not committed yet.
///
/// Hand-out marks exist in memory only: after a restart nothing is in flight, and uncommitted messages come
/// again (parked ones from the store, the others through sync). Both maps change only on the database queue,
/// after the transaction that decided the change committed; the cached cursors are exactly the committed rows
/// because every write of `conversations` and `parked_messages` goes through a ``CursorWorkspace`` or
/// forgets the conversation here. The store must be the only writer of its file.
final class CursorMemory: Sendable {
    private struct State {
        var cursors: [Conversation.ID: CursorWorkspace.Cursor] = [:]
        var handedOut: [Conversation.ID: Int] = [:]
    }

    private let state = Mutex(State())

    func handedOut(in conversation: Conversation.ID) -> Int? {
        state.withLock { $0.handedOut[conversation] }
    }

    func cursor(_ conversation: Conversation.ID) -> CursorWorkspace.Cursor? {
        state.withLock { $0.cursors[conversation] }
    }

    /// Records a committed transaction's cursors and hand-out marks, and forgets the marks its contiguous
    /// seqs have caught up with.
    func publish(cursors: [Conversation.ID: CursorWorkspace.Cursor], handedOut changes: [Conversation.ID: Int]) {
        state.withLock { state in
            for (conversation, seq) in changes { state.handedOut[conversation] = seq }
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
        }
    }
}
