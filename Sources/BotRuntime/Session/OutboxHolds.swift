import ChatterBots
import Foundation
import WebSocket

/// Which outbox entries wait behind one the service refused for now (a transient `error` reply), so that each
/// conversation's messages reach the service in the order they were committed.
///
/// A refused entry holds its conversation: it goes out again alone at its retry time, and the conversation's later
/// entries not sent yet wait behind it until it is settled (acknowledged, failed for good, expired, or found
/// delivered); then they go, oldest first. Several refused entries of one conversation go out one after the
/// other, oldest first. Entries of a held conversation older than its first refused one (sent again after a
/// reconnect) are not held back, and other conversations are not held at all. A plain value owned by
/// `OutboxStateMachine`: entries leave it only through what its events return.
struct OutboxHolds: Sendable {
    private struct Refused: Sendable {
        var sequence: Int64
        var id: ClientMessageID
        var retryAt: Date
    }

    private struct Hold: Sendable {
        /// The refused entries not settled yet, oldest first: the first is the one that goes out next.
        var refused: [Refused]
        /// While the first refused entry waits for its retry time, the id of its item in `retries`; nil once it went
        /// back to the queue (it is queued or in flight again).
        var retry: UInt64?
        /// The conversation's entries set aside, oldest first: refused ones not out, and the later ones behind them.
        var waiting: [OutboxEntry] = []
    }

    private var holds: [Conversation.ID: Hold] = [:]

    /// When the first refused entry of each hold that waits for one may go out again, earliest first, so that no
    /// event looks at every hold. Items are deleted lazily: one whose id is no longer in `retrying` (its hold was
    /// settled, refused again, or released) is dropped when it reaches the top.
    private var retries = MinHeap<Date, UInt64>()
    /// The conversation of each live item of `retries`, by item id.
    private var retrying: [UInt64: Conversation.ID] = [:]
    private var lastRetryID: UInt64 = 0

    /// The earliest time a refused entry that waits for its retry may go out again; nil when none waits for one.
    private(set) var nextRetry: Date?

    /// Whether no conversation is held: then no entry is held back.
    var isEmpty: Bool { holds.isEmpty }

    /// `entry` was refused for now and may go out again at `retryAt`; until it is settled, the later entries of its
    /// conversation that were not sent yet wait behind it.
    mutating func refused(_ entry: OutboxEntry, retryAt: Date) {
        let conversation = entry.message.conversationId
        // Taken out while it changes, so that its arrays are not copied.
        var hold = holds.removeValue(forKey: conversation) ?? Hold(refused: [])
        let index: Int
        if let refusedBefore = hold.refused.firstIndex(where: { $0.id == entry.id }) {
            index = refusedBefore
            hold.refused[index].retryAt = retryAt
        } else {
            index = hold.refused.firstIndex { $0.sequence > entry.sequence } ?? hold.refused.count
            hold.refused.insert(Refused(sequence: entry.sequence, id: entry.id, retryAt: retryAt), at: index)
        }
        // The first waits for its retry time. A refused entry older than the one out goes first; the one out is set
        // aside when it comes back.
        if index == 0 { scheduleRetry(of: &hold, in: conversation) }
        Self.insertSorted(entry, into: &hold.waiting)
        holds[conversation] = hold
        updateNextRetry()
    }

    /// Whether `entry`, next in the queue, waits behind a refused entry of its conversation; if so it is taken in
    /// and comes back with the entries released after it.
    mutating func holdsBack(_ entry: OutboxEntry) -> Bool {
        let conversation = entry.message.conversationId
        guard let first = holds[conversation]?.refused.first, entry.id != first.id, entry.sequence > first.sequence else {
            return false
        }
        Self.insertSorted(entry, into: &holds[conversation]!.waiting)
        return true
    }

    /// The refused entries whose retry time has come by `now` and that go out next in their conversation, oldest
    /// first, taken out for the queue.
    mutating func due(at now: Date) -> [OutboxEntry] {
        guard let nextRetry, nextRetry <= now else { return [] }
        var released: [OutboxEntry] = []
        while let top = retries.min, top.key <= now {
            retries.popMin()
            guard let conversation = retrying.removeValue(forKey: top.value), var hold = holds.removeValue(forKey: conversation)
            else { continue }
            hold.retry = nil
            if let entry = Self.takeFirstOut(of: &hold) { released.append(entry) }
            holds[conversation] = hold
        }
        updateNextRetry()
        return released.sorted { $0.sequence < $1.sequence }
    }

    /// The entry `id` of `conversation` is settled (acknowledged, failed for good, expired, or found delivered).
    /// Returns the entries that may go now, oldest first, taken out for the queue: every waiting entry when it
    /// was the conversation's last refused one, else the next refused one once its retry time has come.
    mutating func settled(_ id: ClientMessageID, in conversation: Conversation.ID, now: Date) -> [OutboxEntry] {
        guard let index = holds[conversation]?.refused.firstIndex(where: { $0.id == id }),
            var hold = holds.removeValue(forKey: conversation)
        else { return [] }
        hold.refused.remove(at: index)
        hold.waiting.removeAll { $0.id == id }
        guard let next = hold.refused.first else {
            cancelRetry(of: &hold)
            updateNextRetry()
            return hold.waiting
        }
        var released: [OutboxEntry] = []
        if index == 0 {
            // The next refused entry goes out next: now if its retry time has come, else at it.
            if next.retryAt <= now {
                cancelRetry(of: &hold)
                if let entry = Self.takeFirstOut(of: &hold) { released.append(entry) }
            } else {
                scheduleRetry(of: &hold, in: conversation)
            }
        }
        holds[conversation] = hold
        updateNextRetry()
        return released
    }

    /// Takes the entry `id` of `conversation` out if it waits here (it was found delivered); returns whether it did.
    mutating func remove(_ id: ClientMessageID, in conversation: Conversation.ID) -> Bool {
        guard let index = holds[conversation]?.waiting.firstIndex(where: { $0.id == id }) else { return false }
        holds[conversation]!.waiting.remove(at: index)
        return true
    }

    /// Changes every entry set aside with `body` (their first send was recorded).
    mutating func updateEntries(where ids: Set<ClientMessageID>, _ body: (inout OutboxEntry) -> Void) {
        for conversation in Array(holds.keys) {
            for index in holds[conversation]!.waiting.indices where ids.contains(holds[conversation]!.waiting[index].id) {
                body(&holds[conversation]!.waiting[index])
            }
        }
    }

    /// The first refused entry of `hold`, taken out of those waiting; nil when it is not waiting (it went out already:
    /// an older refused entry went ahead of it meanwhile).
    private static func takeFirstOut(of hold: inout Hold) -> OutboxEntry? {
        guard let first = hold.refused.first, let index = hold.waiting.firstIndex(where: { $0.id == first.id }) else {
            return nil
        }
        return hold.waiting.remove(at: index)
    }

    /// The first refused entry of `hold` waits for its retry time: it comes due then, instead of when it was to.
    private mutating func scheduleRetry(of hold: inout Hold, in conversation: Conversation.ID) {
        cancelRetry(of: &hold)
        guard let first = hold.refused.first else { return }
        lastRetryID += 1
        retries.push(lastRetryID, key: first.retryAt)
        retrying[lastRetryID] = conversation
        hold.retry = lastRetryID
    }

    /// The first refused entry of `hold` no longer waits for a retry time (it went out, or it was settled).
    private mutating func cancelRetry(of hold: inout Hold) {
        guard let id = hold.retry else { return }
        retrying[id] = nil
        hold.retry = nil
    }

    /// Drops the items of `retries` no longer live from its top, so that it is the earliest retry that waits, and
    /// all of them once they outnumber the live ones, so that the heap stays as small as the holds.
    private mutating func updateNextRetry() {
        if retrying.isEmpty {
            retries.removeAll()
        } else if retries.count > 2 * retrying.count + 64 {
            retries.removeAll { retrying[$0.value] == nil }
        }
        while let top = retries.min, retrying[top.value] == nil { retries.popMin() }
        nextRetry = retries.min?.key
    }

    /// Inserts `entry` in sequence order; entries usually come oldest first, so appending is the common case.
    private static func insertSorted(_ entry: OutboxEntry, into entries: inout [OutboxEntry]) {
        guard let last = entries.last, last.sequence > entry.sequence else {
            entries.append(entry)
            return
        }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].sequence > entry.sequence { high = middle } else { low = middle + 1 }
        }
        entries.insert(entry, at: low)
    }
}
