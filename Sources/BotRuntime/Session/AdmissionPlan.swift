import ChatterBots
import Foundation

/// The rules of admission as a plain value: the order items are taken in, which conversations shed (leave their
/// new messages on the server) because their lane is over the backlog limit or too many messages wait behind a
/// gap, when a conversation is fetched page by page over REST (its shed backlog drained, its gap still open after
/// the gap-fill delay, a rewind after a refused unit), and when a gap is looked at again.
///
/// Events in, actions out, time passed in: it reads no clock, store or lane. `AdmissionQueue` carries the actions
/// out (admits into the store, runs the fetches, keeps the gap checks on the session's deadline scheduler).
/// Contract with it:
/// - A turn (``Submission/admitNow(_:)`` or ``Submission/startDrain``) ends when ``takeItems()`` returns nothing or
///   ``turnEnded()`` returns false; until then every item submitted is queued for it.
/// - Every ``Action/backfill(_:after:)`` and ``Action/fetchGap(_:missingSeq:waited:)`` is answered by exactly one
///   ``backfillFinished(_:gap:backlog:now:)``. At most ``maximumFetches`` run at once: a fetch decided beyond them
///   waits, its conversation counted as fetched, and its action comes out of the `backfillFinished` (or the
///   ``fetchPaused()`` of a fetch waiting for room in its lane, answered by ``fetchResumed()``) that frees a place.
/// - Every ``Action/scheduleGapCheck(_:at:)`` is answered by ``gapCheckDue(_:gap:backlog:now:)`` at its deadline,
///   unless an ``Action/cancelGapCheck(_:)`` of the conversation follows it.
struct AdmissionPlan: Sendable {
    /// What to do with a submitted item.
    enum Submission: Equatable {
        /// The admission is stopped: the item is dropped (what it carried comes again with the next sync).
        case refused
        /// A turn runs and takes it in order.
        case queued
        /// The admission was idle and the item is one message: admit it on the caller's thread, in a turn that
        /// ends with ``turnEnded()`` (or goes on as a drain after ``storeBusy(admitting:)``).
        case admitNow([Message])
        /// Start a turn that takes the items (``takeItems()``) until none is left.
        case startDrain
    }

    /// What the admission must do.
    enum Action: Equatable {
        /// Fetch the conversation page by page after `after` (nil: its contiguous seq in the store).
        case backfill(Conversation.ID, after: Int?)
        /// Fetch the conversation from its contiguous seq: `missingSeq` is still missing after `waited`.
        case fetchGap(Conversation.ID, missingSeq: Int, waited: Duration)
        /// Report ``gapCheckDue(_:gap:backlog:now:)`` for the conversation at `at`.
        case scheduleGapCheck(Conversation.ID, at: Date)
        /// The conversation's scheduled gap check is not wanted any more.
        case cancelGapCheck(Conversation.ID)
    }

    /// Why a conversation started shedding.
    enum ShedReason: Equatable {
        /// Its lane holds `limit` messages or more.
        case backlog(limit: Int)
        /// `parked` messages wait behind the gap at `missingSeq`: only a message below them can fill it, so more
        /// above would grow the bot's memory without end.
        case parkedBehindGap(parked: Int, missingSeq: Int)
    }

    /// A conversation that started shedding, and the message that made it.
    struct Shedding: Equatable {
        var conversation: Conversation.ID
        var reason: ShedReason
        var message: Message.ID
    }

    /// What of a batch of messages the conversations take now.
    struct Acceptance {
        /// In the order given.
        var accepted: [Message]
        var shed: [Shedding] = []
        var actions: [Action] = []
    }

    /// What a page of a fetch leads to.
    enum PageOutcome: Equatable {
        /// Fetch the page after this seq.
        case nextPage(after: Int)
        /// The server has no more.
        case finished
        /// The pages went past `missingSeq` without it while the parked messages reached the backlog limit: stop,
        /// and look at the gap again later.
        case missingFromPages(missingSeq: Int)
    }

    /// What ``stop()`` leaves to do.
    struct Stopping {
        /// Barriers that were queued: run each once.
        var barriers: [@Sendable () -> Void]
        var actions: [Action]
    }

    /// The last gap check of a conversation: the seq it waited for and the delay before it.
    struct GapCheck: Equatable {
        var expected: Int
        var delay: Duration
        var isScheduled: Bool
    }

    /// What admission does about one conversation; dropped when it is all default.
    private struct ConversationState {
        /// Its new messages are left on the server until its lane drains.
        var isShedding = false
        /// Fetched page by page now.
        var isBackfilling = false
        var gapCheck: GapCheck?
        /// Rewound after a refused unit: the fetch that runs (or the next one) goes back to this seq.
        var rewoundFrom: Int?

        var isEmpty: Bool { !isShedding && !isBackfilling && gapCheck == nil && rewoundFrom == nil }
    }

    /// The most fetches that run at once. A bot in many busy conversations (the sync's `hasMore` after an outage)
    /// fetches them a few at a time rather than all together: the service rate-limits the device, not the request,
    /// and each running fetch holds a connection.
    static let maximumFetches = 4

    static let minimumGapFillDelay: Duration = .seconds(1)
    static let maximumGapFillDelay: Duration = .seconds(300)

    /// How many messages a conversation's lane (or its parked messages) may hold before new ones are shed.
    let backlogLimit: Int
    /// The wait before a new gap is checked.
    let gapFillDelay: Duration

    private var items: [AdmissionItem] = []
    private var isInTurn = false
    /// How many fetches were started and not finished.
    private var fetchesRunning = 0
    /// Fetches decided while ``maximumFetches`` ran, in the order decided.
    private var waitingFetches: [Action] = []
    private(set) var isStopped = false
    private var conversations: [Conversation.ID: ConversationState] = [:]

    init(backlogLimit: Int, gapFillDelay: Duration) {
        self.backlogLimit = backlogLimit
        self.gapFillDelay = max(gapFillDelay, Self.minimumGapFillDelay)
    }

    // MARK: - Order

    /// An item arrived; it is taken after every item submitted before it.
    mutating func submit(_ item: AdmissionItem) -> Submission {
        guard !isStopped else { return .refused }
        guard !isInTurn else {
            items.append(item)
            return .queued
        }
        isInTurn = true
        // One message alone is admitted at once; several that arrived together (a flood) go to the drain.
        if case .messages(let messages) = item, messages.count == 1 { return .admitNow(messages) }
        items.append(item)
        return .startDrain
    }

    /// The items the turn takes next, in order; none once the queue is empty or stopped, which ends the turn.
    mutating func takeItems() -> [AdmissionItem] {
        guard !items.isEmpty, !isStopped else {
            isInTurn = false
            return []
        }
        defer { items = [] }
        return items
    }

    /// The store could not take the messages of an ``Submission/admitNow(_:)`` turn inline: they go first, and the
    /// turn goes on as a drain.
    mutating func storeBusy(admitting accepted: [Message]) {
        items.insert(.fetched(accepted), at: 0)
    }

    /// The caller's turn is done. True when items came meanwhile: the turn goes on as a drain.
    mutating func turnEnded() -> Bool {
        guard items.isEmpty || isStopped else { return true }
        isInTurn = false
        return false
    }

    /// Stops: items later submitted are refused, queued barriers are released, gap checks are cancelled.
    mutating func stop() -> Stopping {
        isStopped = true
        let pending = items
        items = []
        var barriers: [@Sendable () -> Void] = []
        for case .barrier(let done) in pending { barriers.append(done) }
        let cancelled = conversations.filter { $0.value.gapCheck?.isScheduled == true }.keys.sorted { $0.rawValue < $1.rawValue }
        for conversation in cancelled { conversations[conversation]?.gapCheck?.isScheduled = false }
        waitingFetches = []
        return Stopping(barriers: barriers, actions: cancelled.map { .cancelGapCheck($0) })
    }

    // MARK: - Shedding

    /// What of `messages` (live, or from a sync) their conversations take now, in order. `backlog` tells how many
    /// messages a conversation's lane holds, `gap` what it waits for; each is asked only when needed.
    mutating func accept(
        _ messages: [Message], backlog: (Conversation.ID) -> Int, gap: (Conversation.ID) -> ConversationLedger.Gap
    ) -> Acceptance {
        var acceptance = Acceptance(accepted: [])
        acceptance.accepted.reserveCapacity(messages.count)
        var stalled: [Conversation.ID] = []
        for message in messages {
            let conversation = message.conversationId
            if conversations[conversation]?.isShedding == true { continue }
            if backlog(conversation) >= backlogLimit {
                conversations[conversation, default: ConversationState()].isShedding = true
                acceptance.shed.append(Shedding(conversation: conversation, reason: .backlog(limit: backlogLimit), message: message.id))
                continue
            }
            let gap = gap(conversation)
            if gap.isOpen, gap.parkedMessages >= backlogLimit, let first = gap.firstParkedSeq, message.seq > first {
                conversations[conversation, default: ConversationState()].isShedding = true
                acceptance.shed.append(Shedding(
                    conversation: conversation, reason: .parkedBehindGap(parked: gap.parkedMessages, missingSeq: gap.expected),
                    message: message.id))
                stalled.append(conversation)
                continue
            }
            acceptance.accepted.append(message)
        }
        // A lane stalled by a gap has nothing to drain, so nothing else would start the fetch that fills it.
        for conversation in stalled where backlog(conversation) == 0 { acceptance.actions += laneDrained(conversation) }
        return acceptance
    }

    /// A conversation's lane has nothing queued: if it shed messages, fetch them now.
    mutating func laneDrained(_ conversation: Conversation.ID) -> [Action] {
        guard !isStopped, let state = conversations[conversation], state.isShedding, !state.isBackfilling else { return [] }
        conversations[conversation]?.isBackfilling = true
        return fetch(.backfill(conversation, after: nil))
    }

    /// Whether a conversation sheds its new messages now.
    func isShedding(_ conversation: Conversation.ID) -> Bool {
        conversations[conversation]?.isShedding ?? false
    }

    // MARK: - Fetching

    /// Someone else (the sync, after a conversation's `hasMore`) asks to fetch the conversation after `after`:
    /// nothing when a fetch of it runs or waits already (it goes on to the end) or the admission stopped.
    mutating func requestBackfill(_ conversation: Conversation.ID, after: Int?) -> [Action] {
        guard !isStopped, conversations[conversation]?.isBackfilling != true else { return [] }
        conversations[conversation, default: ConversationState()].isBackfilling = true
        return fetch(.backfill(conversation, after: after))
    }

    /// A fetch decided now: it starts unless ``maximumFetches`` run or others wait already, else it waits its turn.
    private mutating func fetch(_ action: Action) -> [Action] {
        guard fetchesRunning < Self.maximumFetches, waitingFetches.isEmpty else {
            waitingFetches.append(action)
            return []
        }
        fetchesRunning += 1
        return [action]
    }

    /// A fetch of the conversation starts: it brings what was shed until now, so new messages are taken again.
    mutating func backfillStarted(_ conversation: Conversation.ID) {
        update(conversation) { $0.isShedding = false }
    }

    /// The seq the fetch's next page follows: `after`, or the seq the conversation was rewound to since if lower.
    /// Nil once the admission stopped.
    mutating func pageStart(in conversation: Conversation.ID, after: Int) -> Int? {
        guard !isStopped else { return nil }
        var start = after
        update(conversation) { state in
            if let rewound = state.rewoundFrom.take() { start = min(start, rewound) }
        }
        return start
    }

    /// Whether the fetch waits before its next page: the lane holds half the backlog limit or more.
    func waitsForRoom(backlog: Int) -> Bool {
        !isStopped && backlog >= max(1, backlogLimit / 2)
    }

    /// Where a fetch goes after a page after `after` whose last seq is `lastSeq`, with the conversation's gap as
    /// it is once the page was admitted.
    func afterPage(after: Int, lastSeq: Int?, hasMore: Bool, gap: ConversationLedger.Gap) -> PageOutcome {
        if gap.isOpen, let lastSeq, lastSeq >= gap.expected, gap.parkedMessages >= backlogLimit {
            return .missingFromPages(missingSeq: gap.expected)
        }
        guard hasMore, let lastSeq, lastSeq > after else { return .finished }
        return .nextPage(after: lastSeq)
    }

    /// A fetch ended, leaving the conversation with `gap` and `backlog` messages in its lane. Rewound while it
    /// ran: fetch again from there. A gap still open is checked again later; otherwise what was shed meanwhile is
    /// fetched once the lane is empty.
    mutating func backfillFinished(
        _ conversation: Conversation.ID, gap: ConversationLedger.Gap, backlog: Int, now: Date
    ) -> [Action] {
        update(conversation) { $0.isBackfilling = false }
        fetchesRunning -= 1
        guard !isStopped else { return [] }
        var actions: [Action]
        if let rewound = conversations[conversation]?.rewoundFrom {
            conversations[conversation]?.isBackfilling = true
            actions = fetch(.backfill(conversation, after: rewound))
        } else if gap.isMissing {
            actions = gapFoundOpen(conversation, waitingFor: gap.expected, now: now)
        } else {
            actions = gapClosed(conversation)
            if backlog == 0 { actions += laneDrained(conversation) }
        }
        // The place this fetch held goes to the first that waits.
        return actions + startWaitingFetch()
    }

    /// A running fetch waits for room in its lane (``waitsForRoom(backlog:)``), which may take as long as its
    /// handlers do: its place goes to the first fetch that waits, so a few busy conversations do not hold up the
    /// fetch of a quiet one's gap.
    mutating func fetchPaused() -> [Action] {
        fetchesRunning -= 1
        guard !isStopped else { return [] }
        return startWaitingFetch()
    }

    /// A fetch that waited for room goes on with its next page: it counts again, even past ``maximumFetches`` (it
    /// was started already; new fetches wait until the count is under the limit).
    mutating func fetchResumed() {
        fetchesRunning += 1
    }

    private mutating func startWaitingFetch() -> [Action] {
        guard fetchesRunning < Self.maximumFetches, !waitingFetches.isEmpty else { return [] }
        fetchesRunning += 1
        return [waitingFetches.removeFirst()]
    }

    /// The store refused a unit of the conversation and went back to `contiguous`: fetch from there (a fetch that
    /// runs goes back there with its next page).
    mutating func rewound(_ conversation: Conversation.ID, contiguous: Int) -> [Action] {
        guard !isStopped else { return [] }
        var state = conversations[conversation] ?? ConversationState()
        state.rewoundFrom = min(state.rewoundFrom ?? contiguous, contiguous)
        defer { conversations[conversation] = state }
        guard !state.isBackfilling else { return [] }
        state.isBackfilling = true
        return fetch(.backfill(conversation, after: contiguous))
    }

    // MARK: - Gaps

    /// Messages of the conversation were parked behind a gap waiting for `waitingFor`: check it after the gap-fill
    /// delay, or twice the last delay when the last check waited for the same seq. Nothing when one is scheduled.
    mutating func gapFoundOpen(_ conversation: Conversation.ID, waitingFor: Int, now: Date) -> [Action] {
        guard !isStopped else { return [] }
        var state = conversations[conversation] ?? ConversationState()
        guard state.gapCheck?.isScheduled != true else { return [] }
        let previous = state.gapCheck.map { (expected: $0.expected, delay: $0.delay) }
        let delay = Self.gapCheckDelay(waitingFor: waitingFor, previous: previous, base: gapFillDelay)
        state.gapCheck = GapCheck(expected: waitingFor, delay: delay, isScheduled: true)
        conversations[conversation] = state
        return [.scheduleGapCheck(conversation, at: now.adding(delay))]
    }

    /// The conversation's gap closed: its check is cancelled and the next gap starts from the gap-fill delay.
    mutating func gapClosed(_ conversation: Conversation.ID) -> [Action] {
        guard let check = conversations[conversation]?.gapCheck else { return [] }
        update(conversation) { $0.gapCheck = nil }
        return check.isScheduled ? [.cancelGapCheck(conversation)] : []
    }

    /// The conversation's gap check is due, and it waits for `gap` with `backlog` messages in its lane. The same
    /// seq still missing (a hole before parked messages, or a message known to exist): fetch from the contiguous
    /// seq (or, while a fetch runs, look again later). Another one missing: look again later. None: fetch what was
    /// shed meanwhile once the lane is empty.
    mutating func gapCheckDue(
        _ conversation: Conversation.ID, gap: ConversationLedger.Gap, backlog: Int, now: Date
    ) -> [Action] {
        guard var state = conversations[conversation], var check = state.gapCheck, check.isScheduled else { return [] }
        check.isScheduled = false
        state.gapCheck = gap.isMissing ? check : nil
        conversations[conversation] = state.isEmpty ? nil : state
        guard !isStopped else { return [] }
        guard gap.isMissing else { return backlog == 0 ? laneDrained(conversation) : [] }
        if !gap.isOpen {
            // Only a message known to exist is missing: while the lane sheds, the fetch of what it shed brings it;
            // while it holds messages, look again later rather than fetch what it holds.
            if state.isShedding { return backlog == 0 ? laneDrained(conversation) : [] }
            if backlog > 0 { return gapFoundOpen(conversation, waitingFor: gap.expected, now: now) }
        }
        if gap.expected == check.expected, !state.isBackfilling {
            conversations[conversation]?.isBackfilling = true
            return fetch(.fetchGap(conversation, missingSeq: check.expected, waited: check.delay))
        }
        return gapFoundOpen(conversation, waitingFor: gap.expected, now: now)
    }

    /// The conversation's latest gap check, if any.
    func gapCheck(of conversation: Conversation.ID) -> GapCheck? {
        conversations[conversation]?.gapCheck
    }

    /// The wait before the next check of a gap waiting for seq `waitingFor`: `base` for a new gap, twice the
    /// previous wait (at most ``maximumGapFillDelay``) when the check before waited for the same seq, so a hole the
    /// service cannot fill costs a fetch every few minutes, not one per `base`.
    static func gapCheckDelay(waitingFor: Int, previous: (expected: Int, delay: Duration)?, base: Duration) -> Duration {
        guard let previous, previous.expected == waitingFor else { return base }
        return min(previous.delay * 2, maximumGapFillDelay)
    }

    private mutating func update(_ conversation: Conversation.ID, _ change: (inout ConversationState) -> Void) {
        var state = conversations[conversation] ?? ConversationState()
        change(&state)
        conversations[conversation] = state.isEmpty ? nil : state
    }
}
