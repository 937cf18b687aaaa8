import ChatterBots

/// What committing one ``UnitOfWork`` stored.
package struct CommitReceipt: Hashable, Sendable {
    /// The unit's outbox entries in send order, as stored. A send whose clientMessageId was already in the
    /// outbox is the existing entry, unchanged (possibly already acknowledged: then do not send it again).
    public var outboxEntries: [OutboxEntry]
    /// The clientMessageIds of the entries this commit created.
    public var createdEntries: Set<ClientMessageID>
    /// For a handled message: its conversation's contiguous seq after the commit (beyond the message when
    /// the bot's own messages follow it). The seq to report in `receipt.read`.
    public var contiguousSeq: Int?
    /// For a job occurrence: the job after completing it.
    public var job: ScheduledJobRecord? {
        get { if case .record(let record) = storedJob { record } else { nil } }
        set { storedJob = newValue.map(StoredJob.record) }
    }
    /// Parked messages of the handled message's conversation that are next now: they are handed out to the
    /// caller, in seq order, to handle after this one.
    public var released: [Message]
    /// The unit's edits, deletions and reactions as stored, to carry out now.
    var messageActions: [StoredMessageAction] = []

    public init(
        outboxEntries: [OutboxEntry], createdEntries: Set<ClientMessageID>, contiguousSeq: Int?, job: ScheduledJobRecord?,
        released: [Message]
    ) {
        self.outboxEntries = outboxEntries
        self.createdEntries = createdEntries
        self.contiguousSeq = contiguousSeq
        self.storedJob = job.map(StoredJob.record)
        self.released = released
    }

    /// The job out of line: a record is large, and nearly every receipt (one per handled message) has none.
    private var storedJob: StoredJob?

    private indirect enum StoredJob: Hashable, Sendable {
        case record(ScheduledJobRecord)
    }

    /// The entries to send now: those still pending.
    public var entriesToSend: [OutboxEntry] {
        outboxEntries.filter { $0.status == .pending }
    }
}
