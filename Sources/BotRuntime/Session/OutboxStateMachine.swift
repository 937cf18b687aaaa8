import ChatterBots
import Foundation

/// The rules of a bot's outbox: which entries are pending (queued oldest first, in flight on the current connection,
/// held for a retry with the later entries of its conversation behind it (`OutboxHolds`), or acknowledged with the
/// ack not recorded yet), when each goes out (pacing by `SendPacer`, rate-limit pauses, retry backoff), when one
/// fails for good or expires, and who waits for which outcome.
///
/// Events in, actions out, time passed in: it reads no clock and performs no I/O, so `OutboxSender` only carries
/// its actions out (frames on the connection, store writes, resuming waiters, sleeping until a wake time), and every
/// rule is tested without sockets or SQLite. Contract with the carrier:
/// - Entries are durable before `entriesCommitted`; the frame of an entry carries `frameID(of:)`.
/// - One send loop per connection asks `nextStep(generation:now:)` and does what it says until `.endSending`.
///   A `.send` whose `recordingFirstSendOf` is not empty is written only after those first sends are durable
///   (`firstSendsRecorded`); when that write fails, `firstSendsNotRecorded` says when to ask again.
/// - Acks are recorded by one writer at a time: `ackReceived` says when to start one, which takes batches with
///   `nextAckBatch()` until it returns nil and reports each written batch with `ackBatchWritten`.
/// - The send loop is woken after an `ackReceived` that says `wakesSender` and after a `.retry` or `.fail`
///   reaction: each may have released entries that waited behind a refused one.
/// - An entry the machine hands out to fail or expire stays pending until `entrySettledForGood` after its store write.
package struct OutboxStateMachine: Sendable {
    /// How long the service turns a repeated `clientMessageId` into the same message (`chatter-api.md`: at least
    /// 24 hours; the realtime seed gives no bound).
    static let serviceIdempotencyWindow: Duration = .seconds(24 * 3600)

    /// The code stored on an entry failed for its age: not a service code, it never comes from the wire.
    static let expiredCode: ChatterErrorCode = "CLIENT_OUTBOX_EXPIRED"

    /// At most this many `message.send` frames go out in one socket write.
    static let maxSendsPerWrite = 64

    /// The WebSocket close code of a message over the peer's size limit.
    static let messageTooBigCloseCode: UInt16 = 1009

    /// How long the send loop waits before trying again when the first sends could not be recorded.
    static let firstSendRetryDelay: Duration = .seconds(1)

    /// What the send loop of a connection does next.
    enum Step: Sendable, Equatable {
        /// Write these entries' frames in one socket write, oldest first; first make the first send of
        /// `recordingFirstSendOf` (entries never sent before) durable.
        case send([OutboxEntry], recordingFirstSendOf: [ClientMessageID])
        /// Fail this entry as expired instead of sending it, then report `entrySettledForGood`.
        case expire(OutboxEntry)
        /// Nothing to send before `until` (nil: before the next event); sleep until then or a wake-up.
        case wait(until: Date?)
        /// The connection of this loop is over (or the outbox stopped): the loop ends.
        case endSending
    }

    /// What to do with an ack that arrived.
    enum AckReception: Sendable, Equatable {
        /// Start the ack writer: none is running.
        case startRecording
        /// The running writer takes it with its next batch.
        case queued
        /// Recording has closed (the store is closing): it is not written, the entry is sent again after a restart.
        case dropped
    }

    /// Acks to write in one store transaction, with the outbox row of each when it was in flight here (the store
    /// then needs no index search); nil for an entry sent before the last reconnect or by another run.
    struct AckBatch: Sendable, Equatable {
        var acks: [MessageAck]
        var rows: [Int64?]
    }

    /// The outcome of a written ack batch.
    struct AckSettlement: Sendable {
        /// Waiters to resume with the ack of their entry.
        var waiters: [(AckPromise, MessageAck)]
        /// Entries acknowledged for the first time (each counts once, however many acks the service sends).
        var settled: Int
        /// Whether nothing is pending any more (or the outbox stopped).
        var isSettled: Bool
    }

    /// What an `error` reply means for the outbox.
    enum ErrorReaction: Sendable, Equatable {
        /// Not a reply to an outbox frame.
        case notOurs
        /// A reply to a frame whose entry is no longer in flight (its connection ended, it was requeued).
        case stale
        /// Refused for good: record it failed, fail its waiters, then report `entrySettledForGood`.
        case fail(OutboxEntry)
        /// Refused for now: it goes out again after `after` (the send loop must be woken); count the attempt.
        case retry(OutboxEntry, after: Duration)
    }

    /// What a connection's end did to the entries in flight.
    enum Disconnection: Sendable, Equatable {
        /// Not the current connection: nothing changed.
        case stale
        /// Entries in flight went back to the queue, to be sent again with their clientMessageIds.
        case requeued
        /// A 1009 close: these entries in flight are over the service's size limits and must fail
        /// (`PAYLOAD_TOO_LARGE`); the others went back to the queue. `inFlight` counts all that were in flight.
        case messageTooBig(failing: [OutboxEntry], inFlight: Int)
    }

    /// Entries first sent longer ago than this are failed instead of sent again.
    let resendWindow: Duration

    /// Waiting to be sent, by ascending sequence (oldest first), from `queueHead` on.
    private var queue: [OutboxEntry] = []
    private var queueHead = 0
    /// Sent on the current connection, not acknowledged yet.
    private var inFlight: [ClientMessageID: OutboxEntry] = [:]
    private var inFlightBySequence: [Int64: ClientMessageID] = [:]
    /// Entries set aside after a transient error, and the later entries of their conversations behind them.
    private var holds = OutboxHolds()
    /// Transient failures per entry, for the retry delay.
    private var failures: [ClientMessageID: Int] = [:]
    /// Every entry known to be pending (queued, in flight, held, or acked but not recorded yet).
    private var known: Set<ClientMessageID> = []
    /// Entries found delivered (`ownMessagesFound`) that may still be in the queue: dropped when they reach its head.
    private var foundDelivered: Set<ClientMessageID> = []
    /// The generation of the connection sends go out on; nil while there is none.
    private(set) var connection: UInt64?
    private var pacer: SendPacer
    private var waiters: [ClientMessageID: [AckPromise]] = [:]
    private var acksToRecord: [MessageAck] = []
    private var ackRowsToRecord: [Int64?] = []
    /// Whether an ack writer is running.
    private(set) var isRecordingAcks = false
    /// Set by `closeAckRecording()`: the store is about to close, no further ack is written.
    private(set) var isAckRecordingClosed = false
    private(set) var isStopped = false
    /// Whether entries committed now go out at once, as the send loop last found: a live connection, and no pacing
    /// or rate-limit pause holding sends back (`OutboxLiveness` tells the store).
    private(set) var sendsAtCommit = false

    /// - Parameters:
    ///   - pacing: the pacer's configuration; nil paces nothing but still obeys rate limits.
    ///   - resendWindow: entries first sent longer ago than this are failed instead of sent again.
    init(pacing: SendPacer.Configuration?, resendWindow: Duration = Self.serviceIdempotencyWindow) {
        self.resendWindow = resendWindow
        let configuration = pacing ?? SendPacer.Configuration(sendsPerSecond: 1e12, burst: 1 << 40)
        self.pacer = SendPacer(configuration: configuration)
    }

    /// Entries pending: queued, in flight, held for a retry, or acked with the ack not recorded yet.
    var depth: Int { known.count }

    /// Whether `waitUntilEmpty()` callers may resume: nothing is pending, or the outbox stopped.
    var isSettled: Bool { known.isEmpty || isStopped }

    // MARK: - Entries in

    /// Entries became durable (committed, or loaded from the store at start); those still pending and not known
    /// yet are queued in sequence order. Returns whether the send loop must be woken.
    mutating func entriesCommitted(_ entries: [OutboxEntry]) -> Bool {
        guard !isStopped else { return false }
        var added = false
        for entry in entries where entry.status == .pending && known.insert(entry.id).inserted {
            insertSorted(entry)
            added = true
        }
        return added && connection != nil
    }

    // MARK: - The connection

    /// The connection of `generation` is live: sends go out on it. Returns false when the outbox has stopped (no
    /// send loop is started).
    mutating func connected(generation: UInt64) -> Bool {
        guard !isStopped else { return false }
        connection = generation
        sendsAtCommit = true
        return true
    }

    /// The connection of `generation` ended with `closeCode` at `now`: entries in flight go back to the queue in
    /// sequence order, to be sent again with the same clientMessageId on the next connection (those of a held
    /// conversation behind its refused entry: each conversation's entries go oldest first).
    ///
    /// After a 1009 (message too big), entries in flight over the service's size limits (`MessageSizeLimit`) fail
    /// for good: sending one again would close every connection the same way and block the queue behind it. A 1009
    /// does not say which frame it refused (it may even come from our side, for an inbound message), so entries
    /// within the limits are resent as usual.
    mutating func disconnected(generation: UInt64, closeCode: UInt16?, now: Date) -> Disconnection {
        guard connection == generation else { return .stale }
        connection = nil
        sendsAtCommit = false
        let inFlightCount = inFlight.count
        var tooLarge: [OutboxEntry] = []
        if closeCode == Self.messageTooBigCloseCode {
            tooLarge = inFlight.values
                .filter { !MessageSizeLimit.accepts($0.message, encodedAs: $0.encodedMessage) }
                .sorted { $0.sequence < $1.sequence }
            for entry in tooLarge {
                inFlight[entry.id] = nil
                inFlightBySequence[entry.sequence] = nil
            }
        }
        let requeued = Array(inFlight.values)
        inFlight = [:]
        inFlightBySequence = [:]
        insertSorted(contentsOf: requeued)
        for entry in tooLarge { insertSorted(contentsOf: holds.settled(entry.id, in: entry.message.conversationId, now: now)) }
        guard closeCode == Self.messageTooBigCloseCode else { return .requeued }
        return .messageTooBig(failing: tooLarge, inFlight: inFlightCount)
    }

    /// The service rate-limited the device (a 4008 close, or a `RATE_LIMITED` reply): nothing is sent before
    /// `now + retryAfter`.
    mutating func rateLimited(retryAfter: Duration, now: Date) {
        pacer.rateLimited(retryAfter: retryAfter, now: now)
    }

    // MARK: - Sending

    /// What the send loop of the connection `generation` does at `now`: expire the oldest entry if it is too old to
    /// resend, send what is ready and the pacer allows (up to `maxSendsPerWrite` in one write), or wait for the
    /// pacer, the next retry, or the next event.
    mutating func nextStep(generation: UInt64, now: Date) -> Step {
        guard !isStopped, connection == generation else { return .endSending }
        if isRetryDue(at: now) { insertSorted(contentsOf: holds.due(at: now)) }
        let retry = holds.nextRetry
        guard let head = nextInLine() else { return .wait(until: retry) }
        // Checked before pacing: an entry that is not sent costs no send.
        if isExpired(head, now: now) {
            let entry = popFirst()
            insertSorted(contentsOf: holds.settled(entry.id, in: entry.message.conversationId, now: now))
            return .expire(entry)
        }
        switch pacer.requestSend(now: now) {
        case .waitUntil(let date):
            // Paced or paused: what is committed meanwhile waits, so its first send is recorded when it goes out.
            sendsAtCommit = false
            return .wait(until: min(date, retry ?? date))
        case .sendNow:
            // What else is ready and the pacer allows now goes in the same write.
            var entries: [OutboxEntry] = []
            var firstSends: [ClientMessageID] = []
            while true {
                let entry = takeIntoFlight()
                entries.append(entry)
                if entry.firstAttemptAt == nil { firstSends.append(entry.id) }
                guard entries.count < Self.maxSendsPerWrite, let next = nextInLine(), !isExpired(next, now: now),
                    pacer.requestSend(now: now) == .sendNow
                else { break }
            }
            sendsAtCommit = true
            return .send(entries, recordingFirstSendOf: firstSends)
        }
    }

    /// What goes out at once as entries commit, without the send loop: the entries at the head of the queue that
    /// ``nextStep(generation:now:)`` would send now, as long as nothing else is due first (a retry, an expiry, a
    /// first send to record, a pacing wait). Empty when anything is, and then nothing changed: the loop's next step
    /// decides. ``hasQueued`` says whether entries are left for the loop.
    mutating func sendableAtCommit(generation: UInt64, now: Date) -> [OutboxEntry] {
        guard !isStopped, connection == generation, !isRetryDue(at: now) else { return [] }
        var entries: [OutboxEntry] = []
        while entries.count < Self.maxSendsPerWrite, let head = nextInLine(), head.firstAttemptAt != nil,
            !isExpired(head, now: now), pacer.requestSend(now: now) == .sendNow
        {
            entries.append(takeIntoFlight())
        }
        return entries
    }

    /// Whether entries wait in the queue (some may turn out to wait behind a refused entry of their conversation).
    var hasQueued: Bool { !isQueueEmpty }

    /// Whether a refused entry's retry time has come by `now`.
    private func isRetryDue(at now: Date) -> Bool {
        guard let retry = holds.nextRetry else { return false }
        return retry <= now
    }

    /// The first send of `ids` is durable at `date`: the resend window of each counts from there, wherever the
    /// entry is now (in flight, or back in the queue or held back after its connection ended meanwhile).
    mutating func firstSendsRecorded(_ ids: [ClientMessageID], at date: Date) {
        var missing = Set(ids)
        for id in ids {
            guard var entry = inFlight[id] else { continue }
            entry.firstAttemptAt = entry.firstAttemptAt ?? date
            inFlight[id] = entry
            missing.remove(id)
        }
        guard !missing.isEmpty else { return }
        for index in queueHead..<queue.count where missing.contains(queue[index].id) {
            queue[index].firstAttemptAt = queue[index].firstAttemptAt ?? date
        }
        holds.updateEntries(where: missing) { $0.firstAttemptAt = $0.firstAttemptAt ?? date }
    }

    /// The first send of `entries` could not be recorded, so none of them was written: those still in flight go
    /// back to the queue. Returns when the send loop asks again.
    mutating func firstSendsNotRecorded(_ entries: [OutboxEntry], now: Date) -> Date {
        var unsent: [OutboxEntry] = []
        for entry in entries where inFlight.removeValue(forKey: entry.id) != nil {
            inFlightBySequence[entry.sequence] = nil
            unsent.append(entry)
        }
        insertSorted(contentsOf: unsent)
        return now.adding(Self.firstSendRetryDelay)
    }

    /// Whether `entry` went out first at least the resend window ago; an entry never sent does not expire (it
    /// cannot have created a message).
    func isExpired(_ entry: OutboxEntry, now: Date) -> Bool {
        guard let first = entry.firstAttemptAt else { return false }
        return now.timeIntervalSince(first) >= resendWindow.timeInterval
    }

    /// The outcome a caller of `acknowledged()` gets for `entry`, expired for its age.
    func expiry(of entry: OutboxEntry) -> OutgoingMessageExpired {
        OutgoingMessageExpired(
            clientMessageId: entry.id, enqueuedAt: entry.createdAt, firstAttemptAt: entry.firstAttemptAt ?? entry.createdAt,
            window: resendWindow)
    }

    /// The id of `entry`'s `message.send` frame: `error` replies name it in `replyTo`.
    static func frameID(of entry: OutboxEntry) -> String {
        "o-\(entry.sequence)"
    }

    // MARK: - Acks

    /// A `message.ack` arrived at `now`: the entry is acknowledged once the ack is recorded. Acks that arrive while a
    /// batch is being written go into the next batch. The ack of a refused entry releases the entries of its
    /// conversation waiting behind it: `wakesSender` says the send loop must be woken for them.
    mutating func ackReceived(_ ack: MessageAck, now: Date) -> (recording: AckReception, wakesSender: Bool) {
        var wakesSender = false
        if !holds.isEmpty {
            let released = holds.settled(ack.clientMessageId, in: ack.conversationId, now: now)
            insertSorted(contentsOf: released)
            wakesSender = !released.isEmpty && connection != nil
        }
        guard !isAckRecordingClosed else { return (.dropped, wakesSender) }
        let entry = inFlight.removeValue(forKey: ack.clientMessageId)
        if let entry { inFlightBySequence[entry.sequence] = nil }
        acksToRecord.append(ack)
        ackRowsToRecord.append(entry?.sequence)
        guard !isRecordingAcks else { return (.queued, wakesSender) }
        isRecordingAcks = true
        return (.startRecording, wakesSender)
    }

    /// The acks received since the last batch, for the running writer to record; nil when there are none (or
    /// recording has closed), and the writer stops.
    mutating func nextAckBatch() -> AckBatch? {
        guard !acksToRecord.isEmpty, !isAckRecordingClosed else {
            isRecordingAcks = false
            return nil
        }
        defer {
            acksToRecord = []
            ackRowsToRecord = []
        }
        return AckBatch(acks: acksToRecord, rows: ackRowsToRecord)
    }

    /// The writer finished with `acks` (recorded, or not: an entry whose ack was not recorded stays pending in the
    /// store and is sent again after the next start): their entries are settled and their waiters get the ack.
    mutating func ackBatchWritten(_ acks: [MessageAck]) -> AckSettlement {
        var resumed: [(AckPromise, MessageAck)] = []
        var settled = 0
        for ack in acks {
            if known.remove(ack.clientMessageId) != nil { settled += 1 }
            if !failures.isEmpty { failures[ack.clientMessageId] = nil }
            for promise in takeWaiters(ack.clientMessageId) { resumed.append((promise, ack)) }
        }
        return AckSettlement(waiters: resumed, settled: settled, isSettled: isSettled)
    }

    /// The bot's own messages of these entries came in at `now` (the sync, or a page fetched over REST), and the
    /// store recorded the entries acknowledged with them: each settles as its ack would (its waiters get the ack),
    /// and is not sent again. `wakesSender` says entries waiting behind one of them were released.
    mutating func ownMessagesFound(_ acks: [MessageAck], now: Date) -> (settlement: AckSettlement, wakesSender: Bool) {
        var resumed: [(AckPromise, MessageAck)] = []
        var settled = 0
        var released: [OutboxEntry] = []
        for ack in acks {
            let id = ack.clientMessageId
            for promise in takeWaiters(id) { resumed.append((promise, ack)) }
            guard known.remove(id) != nil else { continue }
            settled += 1
            failures[id] = nil
            if let entry = inFlight.removeValue(forKey: id) {
                inFlightBySequence[entry.sequence] = nil
            } else if holds.isEmpty || !holds.remove(id, in: ack.conversationId) {
                // Queued, or acked with the ack not recorded yet: the queue drops it when it comes up.
                foundDelivered.insert(id)
            }
            if !holds.isEmpty { released += holds.settled(id, in: ack.conversationId, now: now) }
        }
        insertSorted(contentsOf: released)
        let settlement = AckSettlement(waiters: resumed, settled: settled, isSettled: isSettled)
        return (settlement, !released.isEmpty && connection != nil)
    }

    /// The store is about to close: no further ack is written. Returns how many received acks are dropped unwritten,
    /// and whether a batch is being written still.
    mutating func closeAckRecording() -> (dropped: Int, writing: Bool) {
        isAckRecordingClosed = true
        defer {
            acksToRecord = []
            ackRowsToRecord = []
        }
        return (acksToRecord.count, isRecordingAcks)
    }

    // MARK: - Errors

    /// An `error` reply to the frame `replyTo` arrived at `now`. Permanent codes fail the entry (entries of its
    /// conversation held back behind it go on); transient ones hold it back for the retry backoff with the later
    /// entries of its conversation not sent yet behind it (`OutboxHolds`), and a `RATE_LIMITED` pauses every send
    /// (`retry(after:failures:)`).
    mutating func errorReceived(_ error: ChatterErrorBody, replyTo: String, now: Date) -> ErrorReaction {
        guard replyTo.hasPrefix("o-"), let sequence = Int64(replyTo.dropFirst(2)) else { return .notOurs }
        guard let id = inFlightBySequence.removeValue(forKey: sequence), let entry = inFlight.removeValue(forKey: id) else {
            return .stale
        }
        if Self.isPermanent(error.code) {
            insertSorted(contentsOf: holds.settled(entry.id, in: entry.message.conversationId, now: now))
            return .fail(entry)
        }
        let count = failures[entry.id, default: 0] + 1
        failures[entry.id] = count
        let retry = Self.retry(after: error, failures: count)
        if let pause = retry.pauseAllSends { pacer.rateLimited(retryAfter: pause, now: now) }
        holds.refused(entry, retryAt: now.adding(retry.delay))
        return .retry(entry, after: retry.delay)
    }

    /// When an entry refused with a transient `error` goes out again, after its `failures`-th failure: 1, 2, 4 …
    /// 30 s. A `RATE_LIMITED` reply speaks for the whole device, so every send pauses (like a 4008), for the
    /// `retryAfter` seconds the service gave (`details.retryAfter`), or for the entry's delay without one.
    package static func retry(after error: ChatterErrorBody, failures: Int) -> (delay: Duration, pauseAllSends: Duration?) {
        let backoff = Duration.seconds(min(30, 1 << min(max(failures, 1) - 1, 5)))
        guard error.code == .rateLimited else { return (backoff, nil) }
        let pause = RateLimitDelay.hint(in: error.details) ?? backoff
        return (max(pause, backoff), pause)
    }

    /// Codes that no resend can fix. Not `UNAUTHORIZED`: the session refreshes its token and the entry goes out again.
    static func isPermanent(_ code: ChatterErrorCode) -> Bool {
        !code.isTransient && code != .unauthorized
    }

    /// An entry handed out to fail or expire is recorded as failed: it is no longer pending. Returns its waiters,
    /// to fail, and whether nothing is pending any more.
    mutating func entrySettledForGood(_ id: ClientMessageID) -> (waiters: [AckPromise], isSettled: Bool) {
        known.remove(id)
        failures[id] = nil
        return (takeWaiters(id), isSettled)
    }

    // MARK: - Waiters

    /// `promise` waits for the outcome of the entry `id`. Returns false when the outbox has stopped (nothing will
    /// settle it).
    mutating func addWaiter(_ promise: AckPromise, for id: ClientMessageID) -> Bool {
        guard !isStopped else { return false }
        waiters[id, default: []].append(promise)
        return true
    }

    /// `promise` no longer waits (it was settled, or its caller went away).
    mutating func removeWaiter(_ promise: AckPromise, for id: ClientMessageID) {
        waiters[id]?.removeAll { $0 === promise }
        if waiters[id]?.isEmpty == true { waiters[id] = nil }
    }

    /// The waiters of `ids`, taken out: their entries never reached the outbox (their commit failed).
    mutating func takeWaiters(of ids: [ClientMessageID]) -> [AckPromise] {
        ids.flatMap { takeWaiters($0) }
    }

    /// The outcome a waiter gets for an entry as the store holds it; nil while it is pending.
    func outcome(ofStored entry: OutboxEntry) -> Result<MessageAck, any Error>? {
        switch entry.status {
        case .acked:
            guard let ack = entry.acknowledgement else { return nil }
            return .success(MessageAck(
                clientMessageId: entry.id, messageId: ack.messageId, conversationId: entry.message.conversationId,
                seq: ack.seq, createdAt: ack.createdAt))
        case .failed where entry.lastError == Self.expiredCode:
            return .failure(expiry(of: entry))
        case .failed:
            let code = entry.lastError ?? .validationFailed
            return .failure(ChatterAPIError(code: code, message: "The service refused this message for good (\(code))."))
        case .pending:
            return nil
        }
    }

    // MARK: - The end

    /// Forgets every entry (the store deleted them: they belonged to another account). Returns every waiter, to
    /// fail. Sending goes on with what is committed later.
    mutating func discardAll() -> [AckPromise] {
        queue = []
        queueHead = 0
        inFlight = [:]
        inFlightBySequence = [:]
        holds = OutboxHolds()
        failures = [:]
        known = []
        foundDelivered = []
        defer { waiters = [:] }
        return waiters.values.flatMap { $0 }
    }

    /// Stops sending for good (the session is over; entries stay pending in the store). Returns every waiter, to
    /// fail with `CancellationError`; send loops end at their next step.
    mutating func stop() -> [AckPromise] {
        isStopped = true
        connection = nil
        sendsAtCommit = false
        defer { waiters = [:] }
        return waiters.values.flatMap { $0 }
    }

    // MARK: - The queue

    private var isQueueEmpty: Bool { queueHead == queue.count }

    /// Puts an entry into the queue in sequence order (appending is the usual case: entries come oldest first).
    private mutating func insertSorted(_ entry: OutboxEntry) {
        guard let last = queue.last, last.sequence > entry.sequence else {
            queue.append(entry)
            return
        }
        let index = firstQueued(after: entry.sequence)
        if index == queueHead, queueHead > 0 {
            // Ahead of everything queued, as a returning entry usually is: into the room the head left.
            queueHead -= 1
            queue[queueHead] = entry
        } else {
            queue.insert(entry, at: index)
        }
    }

    /// Puts entries into the queue in sequence order, merging them in one pass over the queued entries they go
    /// between (a single returning entry goes by `insertSorted(_:)`).
    private mutating func insertSorted(contentsOf entries: [OutboxEntry]) {
        guard entries.count > 1 else {
            if let entry = entries.first { insertSorted(entry) }
            return
        }
        let incoming = entries.sorted { $0.sequence < $1.sequence }
        guard let last = queue.last, !isQueueEmpty, last.sequence > incoming[0].sequence else {
            queue.append(contentsOf: incoming)
            return
        }
        let start = firstQueued(after: incoming[0].sequence)
        var merged: [OutboxEntry] = []
        merged.reserveCapacity(queue.count - start + incoming.count)
        var queued = start
        var next = 0
        while queued < queue.count, next < incoming.count {
            if queue[queued].sequence > incoming[next].sequence {
                merged.append(incoming[next])
                next += 1
            } else {
                merged.append(queue[queued])
                queued += 1
            }
        }
        merged.append(contentsOf: queue[queued...])
        merged.append(contentsOf: incoming[next...])
        queue.replaceSubrange(start..., with: merged)
    }

    /// The index of the first queued entry with a sequence above `sequence` (`queue.count` when there is none).
    private func firstQueued(after sequence: Int64) -> Int {
        var low = queueHead
        var high = queue.count
        while low < high {
            let middle = (low + high) / 2
            if queue[middle].sequence > sequence { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The entry at the head of the queue, once those found delivered are dropped and those waiting behind a
    /// refused entry of their conversation are set aside (`OutboxHolds`); nil when none is left. Each entry is
    /// looked at once per hold or finding.
    private mutating func nextInLine() -> OutboxEntry? {
        while !isQueueEmpty {
            let entry = queue[queueHead]
            if !foundDelivered.isEmpty, foundDelivered.remove(entry.id) != nil {
                _ = popFirst()
                continue
            }
            guard !holds.isEmpty, holds.holdsBack(entry) else { return entry }
            _ = popFirst()
        }
        // None of those left can be queued: they were acked with the ack not recorded yet.
        if !foundDelivered.isEmpty { foundDelivered = [] }
        return nil
    }

    /// The entry at the head of the queue, now in flight.
    private mutating func takeIntoFlight() -> OutboxEntry {
        let entry = popFirst()
        inFlight[entry.id] = entry
        inFlightBySequence[entry.sequence] = entry.id
        return entry
    }

    private mutating func popFirst() -> OutboxEntry {
        let entry = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 1024)
            queueHead = 0
        } else if queueHead >= 1024 && queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return entry
    }

    /// The promises waiting for `id`'s outcome, taken out. Most entries have none, and an empty table is not
    /// searched (hashing a key is the cost of a lookup, found or not).
    private mutating func takeWaiters(_ id: ClientMessageID) -> [AckPromise] {
        waiters.isEmpty ? [] : waiters.removeValue(forKey: id) ?? []
    }
}
