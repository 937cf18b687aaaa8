import ChatterBots

/// The seq rules of one conversation, as a plain value: its cursor (the contiguous seq and the highest seq seen),
/// what is handed out for handling and not committed yet, and what waits above the contiguous seq (messages parked
/// ahead of a gap, and the bot's own acknowledged messages as markers).
///
/// This is the one place that decides what "next", "duplicate", "parked" and "passed over" mean. The store keeps
/// one committed ledger per conversation in memory (``CursorMemory``) and changes copies of them inside its
/// transactions (``CursorWorkspace``), which carry out the I/O: the `seen_messages` rows, the outbox's acks and
/// the cursor rows. The contiguous seq moves only over messages that were handled, and over the bot's own
/// messages as soon as it reaches them.
///
/// Parked messages and the hand-out mark live in memory only: the contiguous seq never passes a message before it
/// is handled, so after a restart `sync.request` from it brings every one of them back.
struct ConversationLedger: Sendable {
    /// The durable part, as the `conversations` row holds it.
    struct Cursor: Sendable, Equatable {
        /// Every message at or below it was handled or passed over.
        var contiguous: Int
        /// The highest seq the bot has heard of.
        var lastSeq: Int
    }

    /// Where a message about to be handled stands.
    enum Position: Equatable {
        /// It follows the contiguous seq, once the bot's own messages right after it are passed over.
        case next
        /// It is at or below the contiguous seq.
        case handled
        /// It is not the one that follows the contiguous seq, which is `expectedSeq`.
        case outOfOrder(expectedSeq: Int)
        /// The conversation has no cursor.
        case unknownConversation
    }

    /// What a conversation waits for, for the admission's gap checks.
    struct Gap: Equatable {
        /// The next seq neither handled, handed out nor the bot's own.
        var expected: Int
        /// How many messages (not own markers) are parked.
        var parkedMessages: Int
        /// The lowest seq parked above `expected - 1`.
        var firstParkedSeq: Int?
        /// Whether something is parked beyond `expected`, with a hole before it.
        var isOpen: Bool
        /// Whether a message at or past `expected` is known to exist though none is parked: the highest seq heard
        /// of (an update of a message not received, the bot's own message beyond a hole) is past what is handled or
        /// handed out.
        var awaitsKnownMessage = false

        /// Whether something is missing that a fetch from the contiguous seq would bring: a hole before parked
        /// messages, or a message known to exist.
        var isMissing: Bool { isOpen || awaitsKnownMessage }
    }

    /// At most this many parked messages are released at once; the rest follow with the next release.
    static let releaseLimit = 256

    /// Nil while the conversation has no cursor (never recorded, or not read from the store yet).
    private(set) var cursor: Cursor?
    /// The highest seq handed out for handling and not committed; nil when nothing beyond the contiguous seq is out.
    private(set) var handedOut: Int?
    private(set) var parked = ParkedMessages()
    /// Whether the cursor changed in a way the `conversations` row must be written for. A raised `lastSeq` alone
    /// does not count: nothing reads it back from the file, and the row catches up with the next write.
    private(set) var cursorNeedsWrite = false
    /// Whether the bot was removed from the conversation (`conversation.removed`) and not added back: the messages
    /// of others and the updates that still come (a sync or a fetch under way at the removal) are passed over, as
    /// the bot can no longer answer there. Its cursor stays, for a later re-add.
    var isRemoved = false

    init(cursor: Cursor? = nil) {
        self.cursor = cursor
    }

    /// What a unit of work changed, to be undone if the store refuses it (see ``beginUnit()``): the scalar fields as
    /// they were, and each change to `parked` with what stood there before. Kept as a journal rather than a copy so
    /// that a unit does not copy the parked messages.
    private struct Journal: Sendable {
        var cursor: Cursor?
        var handedOut: Int?
        var cursorNeedsWrite: Bool
        /// In the order made: the seq changed and the entry it held before (nil: none).
        var parkedChanges: [(seq: Int, previous: ParkedMessages.Entry?)] = []
    }

    private var journal: Journal?

    /// Whether nothing is known: a ledger like this need not be kept.
    var isEmpty: Bool { cursor == nil && handedOut == nil && parked.isEmpty }

    /// The highest seq handled or handed out: the next deliverable message follows it. Nil without a cursor.
    var expectedThrough: Int? { cursor.map { max($0.contiguous, handedOut ?? 0) } }

    // MARK: - Loading and writing

    /// Takes the cursor read from the store's file (the ledger had none in memory).
    mutating func load(_ cursor: Cursor) {
        self.cursor = cursor
        normalizeHandedOut()
    }

    /// The cursor row was written: it no longer needs writing.
    mutating func cursorWritten() {
        cursorNeedsWrite = false
    }

    /// Sets the cursor to exactly these values (a new conversation, or history skipped), dropping what is parked at
    /// or below `contiguous`.
    mutating func reset(contiguous: Int, lastSeq: Int) {
        removeParked(through: contiguous)
        cursor = Cursor(contiguous: contiguous, lastSeq: max(lastSeq, contiguous))
        sweep()
        changedCursor()
    }

    /// Raises the highest seq heard of (the service reported the conversation); never lowers it.
    mutating func raiseLastSeq(_ seq: Int) {
        guard var cursor else { return }
        cursor.lastSeq = max(cursor.lastSeq, seq)
        self.cursor = cursor
        changedCursor()
    }

    // MARK: - Arrivals

    /// Decides what to do with an incoming message: deliver it when it is next (counting what is handed out), park
    /// it ahead of a gap, drop a duplicate, pass over the bot's own. `isSeen` asks the store whether a message with
    /// its id was handled; it is asked only for a message the ledger cannot place by its seq.
    mutating func admit(_ message: Message, bot: User.ID, isSeen: () throws -> Bool) rethrows -> MessageAdmission {
        guard var cursor, let expected = expectedThrough else { return .unknownConversation }
        guard message.seq > expected else { return .duplicate }
        if isRemoved, message.senderId != bot { return .removedConversation }
        if parked.entry(at: message.seq) != nil {
            // Parked already. If nothing before it is missing any more, this copy is the one to handle.
            guard message.seq == expected + 1, message.senderId != bot else { return .duplicate }
            handedOut = message.seq
            return .deliver
        }
        if try isSeen() { return .duplicate }
        if message.senderId == bot {
            passOwn(seq: message.seq)
            return .own
        }
        if message.seq > cursor.lastSeq {
            cursor.lastSeq = message.seq
            self.cursor = cursor
        }
        if message.seq == expected + 1 {
            handedOut = message.seq
            return .deliver
        }
        insertParked(.message(message), at: message.seq)
        return .parked
    }

    /// Where an update of a message (`message.updated`) goes, so that the bot never hears of a change to a message
    /// before the message itself.
    enum UpdatePlacement: Equatable {
        /// To the bot: its message was handled or handed out (its lane runs the update after it), is the bot's
        /// own, or the conversation has no cursor here.
        case deliver
        /// Into the parked copy of its message, which waits ahead of a gap: the bot gets that message in its
        /// current state.
        case intoParked
        /// Nowhere: its message has not arrived; the highest seq heard of rises to it, so that the gap check the
        /// admission schedules (``Gap/awaitsKnownMessage``) fetches it, in its current state, if nothing else brings it.
        case dropped
        /// Nowhere: the bot was removed from the conversation (``isRemoved``).
        case removedConversation
    }

    /// Decides where `update` goes (see ``UpdatePlacement``); `.intoParked` has replaced the parked copy.
    mutating func placeUpdate(_ update: Message, bot: User.ID) -> UpdatePlacement {
        guard !isRemoved else { return .removedConversation }
        guard let expected = expectedThrough, update.senderId != bot, update.seq > expected else { return .deliver }
        guard case .message? = parked.entry(at: update.seq) else {
            raiseLastSeq(update.seq)
            return .dropped
        }
        removeParked(at: update.seq)
        insertParked(.message(update), at: update.seq)
        return .intoParked
    }

    /// The bot's own message sits at `seq` (seen through an ack or an arrival): the contiguous seq passes over it
    /// at once when it is next, or when it reaches it later (a marker). Without a cursor the marker waits for one.
    mutating func passOwn(seq: Int) {
        guard var cursor else {
            insertParked(.own, at: seq)
            return
        }
        cursor.lastSeq = max(cursor.lastSeq, seq)
        self.cursor = cursor
        if seq > cursor.contiguous {
            let expected = max(cursor.contiguous, handedOut ?? 0)
            sweep()
            if seq == (self.cursor?.contiguous ?? cursor.contiguous) + 1 {
                removeParked(at: seq)
                self.cursor?.contiguous = seq
                sweep()
            } else {
                insertParked(.own, at: seq)
                if seq == expected + 1 { handedOut = seq }
            }
        }
        changedCursor()
    }

    // MARK: - Handling

    /// Where `seq` stands for handling, with the bot's own messages right after the contiguous seq passed over.
    func position(of seq: Int) -> Position {
        guard let cursor else { return .unknownConversation }
        guard seq > cursor.contiguous else { return .handled }
        let contiguous = sweptContiguous(from: cursor.contiguous)
        return seq == contiguous + 1 ? .next : .outOfOrder(expectedSeq: contiguous + 1)
    }

    /// Records that the message at `seq`, which ``position(of:)`` found next, was handled. Returns the contiguous
    /// seq after it.
    @discardableResult
    mutating func handled(_ seq: Int) -> Int {
        sweep()
        guard var cursor else { return seq }
        removeParked(at: seq)
        cursor.contiguous = max(cursor.contiguous, seq)
        cursor.lastSeq = max(cursor.lastSeq, seq)
        self.cursor = cursor
        sweep()
        changedCursor()
        return self.cursor?.contiguous ?? seq
    }

    // MARK: - Handing out

    /// Hands out the parked messages that follow what is handled or handed out, in seq order, passing over own
    /// markers; at most `limit`.
    mutating func handOutParked(limit: Int) -> [Message] {
        guard limit > 0, let expected = expectedThrough else { return [] }
        var next = expected + 1
        var messages: [Message] = []
        for (seq, entry) in parked.entries(from: next) {
            guard seq == next else { break }
            next += 1
            guard case .message(let message) = entry else { continue }
            messages.append(message)
            if messages.count == limit { break }
        }
        if next - 1 > expected { handedOut = next - 1 }
        return messages
    }

    /// Hands out the parked messages that are now next (none while a gap remains).
    mutating func release() -> [Message] {
        guard let expected = expectedThrough, parked.entry(at: expected + 1) != nil else { return [] }
        return handOutParked(limit: Self.releaseLimit)
    }

    /// Whether the next message (after what is handled or handed out, passing over the bot's own) is parked.
    var hasDeliverableMessage: Bool {
        guard var next = expectedThrough.map({ $0 + 1 }) else { return false }
        for (seq, entry) in parked.entries(from: next) {
            guard seq == next else { return false }
            if case .message = entry { return true }
            next += 1
        }
        return false
    }

    /// Forgets what was handed out beyond the contiguous seq, which it returns (nil: no cursor): those messages are
    /// handed out again when they come back.
    mutating func rewind() -> Int? {
        handedOut = nil
        return cursor?.contiguous
    }

    /// Forgets the hand-out mark (a session restarts its handling without restarting the store).
    mutating func forgetHandedOut() {
        handedOut = nil
    }

    /// What the conversation waits for.
    var gap: Gap {
        var expected = max(cursor?.contiguous ?? 0, handedOut ?? 0) + 1
        let lastSeq = cursor?.lastSeq ?? 0
        guard !parked.isEmpty else {
            return Gap(
                expected: expected, parkedMessages: 0, firstParkedSeq: nil, isOpen: false,
                awaitsKnownMessage: lastSeq >= expected)
        }
        for (seq, entry) in parked.entries(from: expected) {
            guard seq == expected, case .own = entry else { break }
            expected += 1
        }
        let first = parked.first(after: expected - 1)?.seq
        return Gap(
            expected: expected, parkedMessages: parked.messageCount, firstParkedSeq: first,
            isOpen: first.map { $0 > expected } ?? false, awaitsKnownMessage: first == nil && lastSeq >= expected)
    }

    // MARK: - A lane's copy

    /// How many own markers a lane's copy holds before it forgets them and asks the store again.
    static let laneMarkerLimit = 4096

    /// A lane's copy: the contiguous seq is at least `seq` (a handler finished, a commit's receipt, a cursor read).
    /// The lane keeps its own ledger because it starts a message as soon as the previous one's handler returned,
    /// before the store commits it; the rules it applies are the same.
    mutating func raiseContiguous(to seq: Int) {
        var cursor = cursor ?? Cursor(contiguous: seq, lastSeq: seq)
        cursor.contiguous = max(cursor.contiguous, seq)
        cursor.lastSeq = max(cursor.lastSeq, cursor.contiguous)
        self.cursor = cursor
        removeParked(through: cursor.contiguous)
        normalizeHandedOut()
    }

    /// A lane's copy: forgets the contiguous seq (the conversation was rewound to the store's truth, which the lane
    /// asks for before its next message). The bot's own messages stay known.
    mutating func forgetContiguous() {
        cursor = nil
        handedOut = nil
    }

    /// A lane's copy: the store passed over the bot's own message at `seq`. Without a contiguous seq the lane asks
    /// the store, which knows it; past ``laneMarkerLimit`` markers the copy forgets everything and asks again.
    mutating func notePassedOwn(_ seq: Int) {
        guard cursor != nil else { return }
        guard parked.count < Self.laneMarkerLimit else {
            self = ConversationLedger()
            return
        }
        passOwn(seq: seq)
    }

    // MARK: - Units

    /// Starts recording changes, so that ``rollBackUnit()`` can undo them (a unit of work the store may refuse).
    mutating func beginUnit() {
        journal = Journal(cursor: cursor, handedOut: handedOut, cursorNeedsWrite: cursorNeedsWrite)
    }

    /// Keeps the changes made since ``beginUnit()``.
    mutating func endUnit() {
        journal = nil
    }

    /// Undoes the changes made since ``beginUnit()``.
    mutating func rollBackUnit() {
        guard let journal else { return }
        self.journal = nil
        cursor = journal.cursor
        handedOut = journal.handedOut
        cursorNeedsWrite = journal.cursorNeedsWrite
        for change in journal.parkedChanges.reversed() {
            if let previous = change.previous {
                parked.insert(previous, at: change.seq)
            } else {
                _ = parked.remove(at: change.seq)
            }
        }
    }

    private mutating func insertParked(_ entry: ParkedMessages.Entry, at seq: Int) {
        if parked.insert(entry, at: seq) { journal?.parkedChanges.append((seq, nil)) }
    }

    private mutating func removeParked(at seq: Int) {
        guard let removed = parked.remove(at: seq) else { return }
        journal?.parkedChanges.append((seq, removed))
    }

    private mutating func removeParked(through seq: Int) {
        guard let first = parked.firstSeq, first <= seq else { return }
        for (seq, entry) in parked.removeThrough(seq) { journal?.parkedChanges.append((seq, entry)) }
    }

    // MARK: - Rules

    /// Passes over the own markers right after the contiguous seq.
    private mutating func sweep() {
        guard var cursor else { return }
        while let first = parked.first(after: cursor.contiguous), first.seq == cursor.contiguous + 1, first.own {
            removeParked(at: first.seq)
            cursor.contiguous = first.seq
        }
        self.cursor = cursor
    }

    /// The contiguous seq once the own markers right after `contiguous` are passed over.
    private func sweptContiguous(from contiguous: Int) -> Int {
        var contiguous = contiguous
        while let first = parked.first(after: contiguous), first.seq == contiguous + 1, first.own {
            contiguous = first.seq
        }
        return contiguous
    }

    private mutating func changedCursor() {
        cursorNeedsWrite = true
        normalizeHandedOut()
    }

    /// A hand-out mark the contiguous seq has caught up with says nothing more.
    private mutating func normalizeHandedOut() {
        if let mark = handedOut, let cursor, mark <= cursor.contiguous { handedOut = nil }
    }
}
