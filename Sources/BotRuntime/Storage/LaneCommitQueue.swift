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
    /// Units taken by the running commit, still readable until it returns.
    private(set) var inFlight: [Pending] = []
    /// A drain task runs for this lane.
    private(set) var isDraining = false
    private(set) var committedThrough: UInt64 = 0

    /// Whether the queue holds nothing and no drain runs: the lane can be forgotten.
    var isIdle: Bool { !isDraining && pending.isEmpty && inFlight.isEmpty }

    /// Queues `unit`; true when the caller must start a drain task (none runs).
    mutating func submit(_ unit: Unit, ticket: UInt64) -> Bool {
        pending.append(Pending(ticket: ticket, unit: unit))
        guard !isDraining else { return false }
        isDraining = true
        return true
    }

    /// For the drain task: the units to commit next, in submission order; nil when none are pending, and the drain
    /// ends in the same step (the next ``submit(_:ticket:)`` starts a new one).
    mutating func takeBatch() -> [Pending]? {
        guard !pending.isEmpty else {
            isDraining = false
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
