import ChatterBots
import Synchronization

/// The committed ``ConversationLedger`` of each conversation the store has looked at, kept in memory so that the hot
/// path does not read cursors back from SQLite in every transaction, and so that parked messages and hand-out marks
/// (which exist in memory only) outlive the transaction that made them.
///
/// Ledgers change only on the database queue, after the transaction that changed them committed: the cached cursors
/// are exactly the committed rows because every write of `conversations` goes through a ``CursorWorkspace`` or
/// forgets the conversation here (a cached `lastSeq` may be ahead of its row: admission raises it in memory only).
/// Other tasks read them (the admission's gap checks). The store must be the only writer of its file.
final class CursorMemory: Sendable {
    private let ledgers = Mutex<[Conversation.ID: ConversationLedger]>([:])
    /// The ids of `seen_messages`, as far as they have been read.
    private let seen = Mutex(SeenIdReading())

    /// The committed ledger of `conversation`, if the store holds one in memory.
    func ledger(_ conversation: Conversation.ID) -> ConversationLedger? {
        ledgers.withLock { $0[conversation] }
    }

    /// What `conversation` waits for.
    func gap(in conversation: Conversation.ID) -> ConversationLedger.Gap {
        ledgers.withLock { $0[conversation]?.gap } ?? ConversationLedger().gap
    }

    /// Records a committed transaction's ledgers, their cursors now on file; empty ones are dropped.
    func publish(_ changed: [Conversation.ID: ConversationLedger]) {
        ledgers.withLock { ledgers in
            for (conversation, var ledger) in changed {
                ledger.cursorWritten()
                ledgers[conversation] = ledger.isEmpty ? nil : ledger
            }
        }
    }

    /// Forgets the hand-out marks of `conversation` (of every conversation when nil).
    func forgetHandedOut(_ conversation: Conversation.ID?) {
        ledgers.withLock { ledgers in
            if let conversation {
                ledgers[conversation]?.forgetHandedOut()
            } else {
                for conversation in ledgers.keys { ledgers[conversation]?.forgetHandedOut() }
            }
        }
    }

    /// Forgets everything about `conversation`, after a write that bypassed a workspace.
    func forget(_ conversation: Conversation.ID) {
        _ = ledgers.withLock { $0.removeValue(forKey: conversation) }
    }

    /// Whether a message with `id` may be recorded as seen: nil while the ids are not all read (or are being read
    /// again because the filter filled up), false when it surely is not.
    func mightHaveSeen(_ id: Message.ID) -> Bool? {
        seen.withLock { $0.mightContain(id.rawValue) }
    }

    /// What to read next from `seen_messages` on the database queue; nil when the ids are all read.
    var nextSeenRead: SeenIdReading.Step? {
        seen.withLock { $0.nextStep }
    }

    /// Takes the count of `seen_messages`, read for ``nextSeenRead``.
    func countedSeen(_ rows: Int) {
        seen.withLock { $0.counted(rows) }
    }

    /// Takes ids of `seen_messages`, read for `step`, the ``nextSeenRead`` it was.
    func readSeen(_ ids: [String], of step: SeenIdReading.Step) {
        seen.withLock { $0.read(ids, of: step) }
    }

    /// Adds an id written to `seen_messages`, before its transaction commits.
    func recordSeen(_ id: Message.ID) {
        seen.withLock { $0.insert(id.rawValue) }
    }

    /// The conversations whose next message (after what is handled or handed out, passing over the bot's own) is
    /// parked, by id.
    func conversationsWithDeliverableMessages() -> [Conversation.ID] {
        ledgers.withLock { ledgers in
            ledgers.compactMap { $0.value.hasDeliverableMessage ? $0.key : nil }
        }.sorted { $0.rawValue < $1.rawValue }
    }
}
