import ChatterBots
import Synchronization

/// Per conversation, the highest seq handed out for handling but not committed yet.
///
/// In memory only: after a restart nothing is in flight, and uncommitted messages come again (parked ones
/// from the store, the others through sync). Changed only on the database queue, after the transaction
/// that decided the hand-out committed.
final class DeliveryLedger: Sendable {
    private let marks = Mutex<[Conversation.ID: Int]>([:])

    func handedOut(in conversation: Conversation.ID) -> Int? {
        marks.withLock { $0[conversation] }
    }

    /// Applies the marks of a committed transaction and forgets those the contiguous seq has caught up with.
    func apply(_ changes: [Conversation.ID: Int], contiguous: [Conversation.ID: Int]) {
        marks.withLock { marks in
            for (conversation, seq) in changes { marks[conversation] = seq }
            for (conversation, seq) in contiguous where (marks[conversation] ?? .max) <= seq {
                marks[conversation] = nil
            }
        }
    }

    func forget(_ conversation: Conversation.ID?) {
        marks.withLock { marks in
            if let conversation { marks[conversation] = nil } else { marks.removeAll() }
        }
    }
}
