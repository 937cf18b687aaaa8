/// The units of one lane waiting for their commit, as a plain value: which are pending, which the batch in the
/// store's writer took, and whether the lane has a batch there. ``StoreWriter`` keeps one per busy lane under its lock.
///
/// The one rule it exists for: a unit is either taken by the lane's running batches or starts a new one. "Nothing is
/// pending" and "the lane's batches end" are decided in the same step (``takeBatch()`` returning nil), so a unit
/// submitted at any moment is committed. (They were once two steps under two lock acquisitions, and a unit submitted
/// between them joined a lane that had already decided to end: it was dropped without a commit, and every later unit
/// of the conversation was refused as out of order.)
struct LaneCommitQueue<Unit> {
    struct Pending {
        var ticket: UInt64
        var unit: Unit
    }

    private(set) var pending: [Pending] = []
    /// Units taken by the lane's batch in the writer, still readable until it is committed.
    private(set) var inFlight: [Pending] = []
    /// The lane's batches are going through the writer, one after another.
    private(set) var isCommitting = false
    private(set) var committedThrough: UInt64 = 0

    /// Whether the queue holds nothing and commits nothing: the lane can be forgotten.
    var isIdle: Bool { !isCommitting && pending.isEmpty && inFlight.isEmpty }

    /// Queues `unit`; true when the caller must take the lane's first batch (the lane commits nothing now).
    mutating func submit(_ unit: Unit, ticket: UInt64) -> Bool {
        pending.append(Pending(ticket: ticket, unit: unit))
        guard !isCommitting else { return false }
        isCommitting = true
        return true
    }

    /// The units to commit next, in submission order; nil when none are pending, and the lane's commits end in the
    /// same step (the next ``submit(_:ticket:)`` starts them again).
    mutating func takeBatch() -> [Pending]? {
        guard !pending.isEmpty else {
            isCommitting = false
            return nil
        }
        inFlight = pending
        pending = []
        return inFlight
    }

    /// The batch taken last is committed (or refused, or failed for good).
    mutating func finishBatch() {
        if let last = inFlight.last { committedThrough = last.ticket }
        inFlight = []
    }

    /// Whether the unit of `ticket` is still to be committed.
    func isWaiting(for ticket: UInt64) -> Bool {
        committedThrough < ticket
            && (pending.first.map { $0.ticket <= ticket } ?? false || inFlight.first.map { $0.ticket <= ticket } ?? false)
    }

    /// The newest ticket queued or being committed.
    var lastTicket: UInt64? { (pending.last ?? inFlight.last)?.ticket }

    /// The queued and in-flight units, oldest first.
    var units: [Unit] { (inFlight + pending).map(\.unit) }
}

extension LaneCommitQueue.Pending: Sendable where Unit: Sendable {}
