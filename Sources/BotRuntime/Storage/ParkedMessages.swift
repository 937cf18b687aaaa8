import ChatterBots

/// What one conversation holds above its contiguous seq, in seq order: messages that arrived ahead of a gap
/// (parked until the messages before them are handled) and the bot's own messages acknowledged ahead of it
/// (markers the cursor passes over when it reaches them).
///
/// Kept in memory only. Nothing here needs to survive the process: the contiguous seq never passes an entry
/// before it is handled or passed over, so after a restart `sync.request` (from that seq) brings every one of
/// them back from the service, the bot's own messages included.
struct ParkedMessages: Sendable {
    enum Entry: Sendable {
        /// A message to hand out once it is next.
        case message(Message)
        /// The bot's own message at this seq: passed over, never handed out.
        case own
    }

    private(set) var entries: [(seq: Int, entry: Entry)] = []
    /// How many entries are messages (not own markers): what a conversation's cap on parked messages counts.
    private(set) var messageCount = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// The lowest seq held, if any: a message below it fills the gap before everything parked.
    var firstSeq: Int? { entries.first?.seq }

    /// The index of the first entry at or above `seq`.
    private func lowerBound(_ seq: Int) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The entry at `seq`, if any.
    func entry(at seq: Int) -> Entry? {
        let index = lowerBound(seq)
        guard index < entries.count, entries[index].seq == seq else { return nil }
        return entries[index].entry
    }

    /// The first entry above `seq`: its seq and whether it is an own marker.
    func first(after seq: Int) -> (seq: Int, own: Bool)? {
        let index = lowerBound(seq + 1)
        guard index < entries.count else { return nil }
        if case .own = entries[index].entry { return (entries[index].seq, true) }
        return (entries[index].seq, false)
    }

    /// The entries from `seq` on, in seq order.
    func entries(from seq: Int) -> ArraySlice<(seq: Int, entry: Entry)> {
        entries[lowerBound(seq)...]
    }

    /// Adds `entry` at `seq`; false (nothing changes) when that seq holds one already.
    @discardableResult
    mutating func insert(_ entry: Entry, at seq: Int) -> Bool {
        if let last = entries.last, last.seq < seq {
            entries.append((seq, entry))
        } else {
            let index = lowerBound(seq)
            if index < entries.count, entries[index].seq == seq { return false }
            entries.insert((seq, entry), at: index)
        }
        if case .message = entry { messageCount += 1 }
        return true
    }

    /// Removes the entry at `seq` and returns it.
    @discardableResult
    mutating func remove(at seq: Int) -> Entry? {
        let index = lowerBound(seq)
        guard index < entries.count, entries[index].seq == seq else { return nil }
        let entry = entries.remove(at: index).entry
        if case .message = entry { messageCount -= 1 }
        return entry
    }

    /// Removes every entry at or below `seq` and returns them, in seq order.
    mutating func removeThrough(_ seq: Int) -> [(seq: Int, entry: Entry)] {
        let end = lowerBound(seq + 1)
        guard end > 0 else { return [] }
        let removed = Array(entries[..<end])
        entries.removeFirst(end)
        for (_, entry) in removed { if case .message = entry { messageCount -= 1 } }
        return removed
    }
}
