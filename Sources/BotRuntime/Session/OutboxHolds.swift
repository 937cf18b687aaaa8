import ChatterBots
import Foundation

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
        /// Whether the first refused entry went back to the queue (it is queued or in flight again).
        var firstIsOut = false
        /// The conversation's entries set aside, oldest first: refused ones not out, and the later ones behind them.
        var waiting: [OutboxEntry] = []
    }

    private var holds: [Conversation.ID: Hold] = [:]

    /// The earliest time a refused entry that waits for its retry may go out again; nil when none waits for one.
    private(set) var nextRetry: Date?

    /// Whether no conversation is held: then no entry is held back.
    var isEmpty: Bool { holds.isEmpty }

    /// `entry` was refused for now and may go out again at `retryAt`; until it is settled, the later entries of its
    /// conversation that were not sent yet wait behind it.
    mutating func refused(_ entry: OutboxEntry, retryAt: Date) {
        let conversation = entry.message.conversationId
        var hold = holds[conversation] ?? Hold(refused: [])
        if let index = hold.refused.firstIndex(where: { $0.id == entry.id }) {
            hold.refused[index].retryAt = retryAt
            if index == 0 { hold.firstIsOut = false }
        } else {
            let index = hold.refused.firstIndex { $0.sequence > entry.sequence } ?? hold.refused.count
            hold.refused.insert(Refused(sequence: entry.sequence, id: entry.id, retryAt: retryAt), at: index)
            // A refused entry older than the one out goes first; the one out is set aside when it comes back.
            if index == 0 { hold.firstIsOut = false }
        }
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
        for conversation in Array(holds.keys) {
            if let entry = Self.releaseFirst(of: &holds[conversation]!, at: now) { released.append(entry) }
        }
        updateNextRetry()
        return released.sorted { $0.sequence < $1.sequence }
    }

    /// The entry `id` of `conversation` is settled (acknowledged, failed for good, expired, or found delivered).
    /// Returns the entries that may go now, oldest first, taken out for the queue: every waiting entry when it
    /// was the conversation's last refused one, else the next refused one once its retry time has come.
    mutating func settled(_ id: ClientMessageID, in conversation: Conversation.ID, now: Date) -> [OutboxEntry] {
        guard var hold = holds[conversation], let index = hold.refused.firstIndex(where: { $0.id == id }) else { return [] }
        hold.refused.remove(at: index)
        hold.waiting.removeAll { $0.id == id }
        guard !hold.refused.isEmpty else {
            holds[conversation] = nil
            updateNextRetry()
            return hold.waiting
        }
        var released: [OutboxEntry] = []
        if index == 0 {
            hold.firstIsOut = false
            if let entry = Self.releaseFirst(of: &hold, at: now) { released.append(entry) }
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

    /// The first refused entry of `hold`, taken out, when it waits and its retry time has come. One that is not
    /// waiting went out already (an older refused entry went ahead of it meanwhile).
    private static func releaseFirst(of hold: inout Hold, at now: Date) -> OutboxEntry? {
        guard !hold.firstIsOut, let first = hold.refused.first, first.retryAt <= now else { return nil }
        hold.firstIsOut = true
        guard let index = hold.waiting.firstIndex(where: { $0.id == first.id }) else { return nil }
        return hold.waiting.remove(at: index)
    }

    private mutating func updateNextRetry() {
        nextRetry = holds.values.lazy.filter { !$0.firstIsOut }.compactMap { $0.refused.first?.retryAt }.min()
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
