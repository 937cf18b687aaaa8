/// What a conversation's lane knows of the store's contiguous seq, so that it starts a message only when every
/// message before it was handled or passed over.
///
/// Messages reach a lane from several tasks (the admission of new messages, acks that pass the bot's own
/// messages and release parked ones, commits that release parked ones); the store hands them out in seq order,
/// but those tasks may resume in another order. The lane therefore keeps its messages sorted and starts the
/// first one only when it follows the known contiguous seq, counting the bot's own messages acknowledged
/// since. When it cannot tell, it asks the store; when a message before it is still on its way, the lane waits
/// for it.
struct ConversationSequencer: Sendable {
    /// The highest seq known to be handled or passed over; nil until learned.
    private(set) var contiguous: Int?
    /// The bot's own messages acknowledged above `contiguous`, in ascending order. Acks come mostly in seq order,
    /// so a new one is nearly always appended, and what the contiguous seq passes is a prefix: each message then
    /// costs a look at the first few, where a set had to be filtered (and copied) whole.
    private var own: [Int] = []

    /// How far `own` may grow before it is forgotten (the store is asked again instead).
    private static let ownLimit = 4096

    enum Verdict: Equatable {
        /// The message is next: handle it.
        case next
        /// The message is at or below the contiguous seq: it was handled already.
        case handled
        /// A message before it is missing or unknown here.
        case gap
        /// Nothing is known yet: ask the store.
        case unknown
    }

    /// Where `seq` stands.
    mutating func verdict(for seq: Int) -> Verdict {
        guard var current = contiguous else { return .unknown }
        var passed = 0
        while passed < own.count, own[passed] == current + 1 {
            current += 1
            passed += 1
        }
        own.removeFirst(passed)
        contiguous = current
        if seq == current + 1 { return .next }
        if seq <= current { return .handled }
        return .gap
    }

    /// The store's contiguous seq is at least `seq` (a commit's receipt, a cursor read).
    mutating func noteContiguous(_ seq: Int) {
        let raised = max(contiguous ?? seq, seq)
        contiguous = raised
        own.removeFirst(own.prefix { $0 <= raised }.count)
    }

    /// Forgets what it knew of the contiguous seq: the conversation was rewound to the store's truth, which the
    /// lane asks for before its next message. The bot's own acknowledged messages stay known.
    mutating func forgetContiguous() {
        contiguous = nil
    }

    /// The bot's own message at `seq` was passed over by the store.
    mutating func noteOwn(_ seq: Int) {
        guard let contiguous else { return }
        guard seq > contiguous else { return }
        let index = own.insertionIndex(of: seq)
        guard index == own.count || own[index] != seq else { return }
        if own.count >= Self.ownLimit {
            own = []
            self.contiguous = nil
            return
        }
        own.insert(seq, at: index)
    }
}

extension [Int] {
    /// Where `value` is in this ascending array, or where it goes: the index of the first element not below it.
    fileprivate func insertionIndex(of value: Int) -> Int {
        if let last, last < value { return count }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
