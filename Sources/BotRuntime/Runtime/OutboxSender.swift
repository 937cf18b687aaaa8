import ChatterBots
import Foundation
import Synchronization

/// Sends a bot's outbox: entries are durable before they reach this type (committed with their handler's work),
/// go out oldest first on the live connection, paced by `SendPacer`, and stay until the service acknowledges them.
///
/// - Frames carry the id `o-<entry sequence>`; `message.ack`s are matched by `clientMessageId`, `error` replies by
///   that id. Many sends are in flight at once, with no waiter per frame: replies come through the session's
///   single reader.
/// - Acks are recorded in the store in batches (acks that arrive while a batch is written go into the next);
///   callers of `OutgoingMessage.acknowledged()` resume once their ack is durable.
/// - When the connection ends, the entries in flight go back to the queue in order; after the next `resume(on:)`
///   they are sent again with their original `clientMessageId`, which the service turns into the same message.
/// - Permanent errors (`NOT_FRIENDS`, `NOT_FOUND`, `VALIDATION_FAILED`, any non-transient code) fail the entry for
///   good and reach the caller; transient ones (`RATE_LIMITED`, `INTERNAL`) are retried after a growing delay,
///   and a `RATE_LIMITED` reply pauses every send for its retry hint, as a 4008 close does.
/// - An entry first sent longer ago than the resend window (the service's 24 h idempotency window) is not sent
///   again: the service may have created its message already and forgotten the clientMessageId, so a resend could
///   duplicate it. It is failed with `OutgoingMessageExpired`, logged and counted instead. The first send is
///   recorded in the store before its frame is written (by the commit itself while the connection is live, see
///   `OutboxLiveness`); an entry committed while the bot could not send (offline, paced, paused) never expires
///   before it is sent (it cannot be a duplicate).
final class OutboxSender: Sendable {
    /// How long the service turns a repeated `clientMessageId` into the same message (`chatter-api.md`: at least
    /// 24 hours; the realtime seed gives no bound).
    static let serviceIdempotencyWindow: Duration = .seconds(24 * 3600)

    /// How long a stopping session still writes the acks it has received once its connection closed, when the
    /// shutdown deadline leaves less: they arrived (often in the close handshake) and only need a local write.
    static let finalAckRecordingGrace: Duration = .seconds(1)

    /// The code stored on an entry failed for its age: not a service code, it never comes from the wire.
    static let expiredCode: ChatterErrorCode = "CLIENT_OUTBOX_EXPIRED"

    private struct State {
        /// Waiting to be sent, by ascending sequence (oldest first), from `queueHead` on.
        var queue: [OutboxEntry] = []
        var queueHead = 0
        /// Sent on the current connection, not acknowledged yet.
        var inFlight: [ClientMessageID: OutboxEntry] = [:]
        var inFlightBySequence: [Int64: ClientMessageID] = [:]
        /// Entries set aside after a transient error, until their retry time.
        var held: [(until: Date, entry: OutboxEntry)] = []
        /// Transient failures per entry, for the retry delay.
        var failures: [ClientMessageID: Int] = [:]
        /// Every entry this sender knows to be pending (queued, in flight, held, or acked but not recorded yet).
        var known: Set<ClientMessageID> = []
        var link: RealtimeLink?
        var pacer: SendPacer
        var waiters: [ClientMessageID: [AckPromise]] = [:]
        var acksToRecord: [MessageAck] = []
        /// The outbox row of each ack in `acksToRecord` when it was in flight here (the store then needs no index
        /// search to find it); nil for an ack of an entry sent before the last reconnect or by another run.
        var ackRowsToRecord: [Int64?] = []
        var isRecordingAcks = false
        /// Set by `finishRecordingAcks(before:)`: the store is about to close, no further ack is written.
        var isAckRecordingClosed = false
        var isStopped = false
        /// Callers of `waitUntilEmpty()`, resumed once nothing is pending or the sender stops.
        var emptyWaiters: [CheckedContinuation<Void, Never>] = []

        /// The `waitUntilEmpty()` callers to resume now, taken out of the state.
        mutating func takeEmptyWaitersIfDone() -> [CheckedContinuation<Void, Never>] {
            guard known.isEmpty || isStopped, !emptyWaiters.isEmpty else { return [] }
            defer { emptyWaiters = [] }
            return emptyWaiters
        }

        mutating func insert(_ entry: OutboxEntry) {
            guard known.insert(entry.id).inserted else { return }
            insertSorted(entry)
        }

        /// Puts an entry the sender already knows back into the queue, in sequence order.
        mutating func insertSorted(_ entry: OutboxEntry) {
            if let last = queue.last, last.sequence > entry.sequence {
                var low = queueHead
                var high = queue.count
                while low < high {
                    let middle = (low + high) / 2
                    if queue[middle].sequence > entry.sequence { high = middle } else { low = middle + 1 }
                }
                queue.insert(entry, at: low)
            } else {
                queue.append(entry)
            }
        }

        var isQueueEmpty: Bool { queueHead == queue.count }

        mutating func popFirst() -> OutboxEntry {
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

        /// Notes the first send of the entries `ids`, wherever they are now (in flight, or back in the queue or
        /// held after the connection ended meanwhile).
        mutating func setFirstAttempt(_ date: Date, of ids: Set<ClientMessageID>) {
            var missing = ids
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
            for index in held.indices where missing.contains(held[index].entry.id) {
                held[index].entry.firstAttemptAt = held[index].entry.firstAttemptAt ?? date
            }
        }

        /// The promises waiting for `id`'s ack, taken out of the state. Most entries have none, and an empty table
        /// is not searched (hashing a key is the cost of a lookup, found or not).
        mutating func takeWaiters(_ id: ClientMessageID) -> [AckPromise] {
            waiters.isEmpty ? [] : waiters.removeValue(forKey: id) ?? []
        }
    }

    /// What the send loop does next.
    /// At most this many `message.send` frames go out in one socket write.
    static let maxSendsPerWrite = 64

    private enum Step {
        /// Entries to write together, oldest first (one socket write for all of them).
        case send([OutboxEntry], RealtimeLink)
        case expire(OutboxEntry)
        case wait(until: Date?)
        case stop
    }

    private let store: BotStore
    private let clock: any ChatterClock
    private let resendWindow: Duration
    private let log: SessionLog
    private let metrics: SessionMetrics
    private let onRecorded: @Sendable ([MessageAck], [Message]) -> Void
    private let state: Mutex<State>
    private let work: WakeSignal
    /// Woken whenever ack recording goes idle (nothing being written, nothing queued).
    private let acksRecorded: WakeSignal

    /// - Parameters:
    ///   - pacing: the pacer's configuration; nil paces nothing but still obeys rate limits.
    ///   - resendWindow: entries first sent longer ago than this are failed instead of sent again.
    ///   - onRecorded: receives the acks recorded (the bot's own seqs the cursors passed over) and the parked
    ///     messages they made deliverable.
    init(
        store: BotStore, clock: any ChatterClock, pacing: SendPacer.Configuration?,
        resendWindow: Duration = OutboxSender.serviceIdempotencyWindow, log: SessionLog, metrics: SessionMetrics,
        onRecorded: @escaping @Sendable ([MessageAck], [Message]) -> Void
    ) {
        self.store = store
        self.clock = clock
        self.resendWindow = resendWindow
        self.log = log
        self.metrics = metrics
        self.onRecorded = onRecorded
        let configuration = pacing ?? SendPacer.Configuration(sendsPerSecond: 1e12, burst: 1 << 40)
        self.state = Mutex(State(pacer: SendPacer(configuration: configuration)))
        self.work = WakeSignal(clock: clock)
        self.acksRecorded = WakeSignal(clock: clock)
    }

    /// Loads the entries left pending by earlier runs, oldest first; they go out after the next `resume(on:)`.
    func loadPending() async throws(BotStoreError) {
        let pending = try await store.pendingOutbox()
        state.withLock { state in
            for entry in pending { state.insert(entry) }
        }
    }

    /// Entries waiting for their acknowledgement (queued, in flight or held for a retry).
    var depth: Int { state.withLock { $0.known.count } }

    // MARK: - Entries in

    /// Queues committed entries (those still pending) for sending; entries already known are ignored.
    func enqueue(_ entries: [OutboxEntry]) {
        guard !entries.isEmpty else { return }
        let wake = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            var added = false
            for entry in entries where entry.status == .pending && !state.known.contains(entry.id) {
                state.insert(entry)
                added = true
            }
            return added && state.link != nil
        }
        if wake { work.wake() }
    }

    // MARK: - The connection

    /// Starts sending on `link`: entries in the queue first (oldest first), then whatever is committed later.
    func resume(on link: RealtimeLink) {
        let start = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.link = link
            return true
        }
        guard start else { return }
        store.outboxLiveness.set(true)
        Task(executorPreference: SessionExecutor.preferred) { await self.sendLoop(generation: link.generation) }
        work.wake()
    }

    /// The connection of `generation` ended with `closeCode`: entries in flight go back to the queue, to be sent
    /// again with the same clientMessageId on the next connection.
    ///
    /// After a 1009 (message too big), entries in flight that are over the service's size limits
    /// (`MessageSizeLimit`) fail for good (`PAYLOAD_TOO_LARGE`): sending one again would close every connection the
    /// same way and block the queue behind it. A 1009 says nothing about which frame it refused (it may even come
    /// from our own side, for an inbound message), so entries within the limits are resent as usual.
    func suspend(generation: UInt64, closeCode: UInt16? = nil) {
        let outcome = state.withLock { state -> (tooLarge: [OutboxEntry], inFlight: Int)? in
            guard state.link?.generation == generation else { return nil }
            state.link = nil
            store.outboxLiveness.set(false)
            var tooLarge: [OutboxEntry] = []
            let inFlight = state.inFlight.count
            if closeCode == Self.messageTooBigCloseCode {
                tooLarge = state.inFlight.values.filter { !MessageSizeLimit.accepts($0.message, encodedAs: $0.encodedMessage) }.sorted { $0.sequence < $1.sequence }
                for entry in tooLarge {
                    state.inFlight[entry.id] = nil
                    state.inFlightBySequence[entry.sequence] = nil
                }
            }
            Self.requeueInFlight(&state)
            return (tooLarge, inFlight)
        }
        if closeCode == Self.messageTooBigCloseCode, let outcome {
            if outcome.tooLarge.isEmpty {
                log.warning("connection closed with 1009 (message too big), but no message in flight is over the size "
                    + "limits; nothing is failed, the messages in flight are sent again", ["inFlight": String(outcome.inFlight)])
            }
            for entry in outcome.tooLarge {
                let error = ChatterErrorBody(
                    code: .payloadTooLarge,
                    message: "The connection closed with 1009 (message too big) while this message, over the service's "
                        + "size limits, was in flight; it is not sent again.")
                Task(executorPreference: SessionExecutor.preferred) { await self.fail(entry, with: error) }
            }
        }
        work.wake()
    }

    /// The WebSocket close code of a message over the peer's size limit.
    static let messageTooBigCloseCode: UInt16 = 1009

    private static func requeueInFlight(_ state: inout State) {
        let inFlight = state.inFlight.values.sorted { $0.sequence < $1.sequence }
        state.inFlight = [:]
        state.inFlightBySequence = [:]
        for entry in inFlight { state.insertSorted(entry) }
    }

    /// The server rate-limited the device (close 4008): nothing is sent before `retryAfter` has passed.
    func rateLimited(retryAfter: Duration) {
        let now = clock.now
        state.withLock { $0.pacer.rateLimited(retryAfter: retryAfter, now: now) }
    }

    /// Forgets every entry (the store deleted them: they belonged to another account) and fails their waiters
    /// with `error`. Sending goes on with what is committed later.
    func discardAll(failingWaitersWith error: any Error) {
        let waiters = state.withLock { state -> [AckPromise] in
            state.queue = []
            state.queueHead = 0
            state.inFlight = [:]
            state.inFlightBySequence = [:]
            state.held = []
            state.failures = [:]
            state.known = []
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap { $0 }
        }
        resumeEmptyWaiters()
        for waiter in waiters { waiter.settle(.failure(error)) }
    }

    /// Stops sending for good and fails every waiter (the session is over; entries stay pending in the store).
    func stop() {
        let waiters = state.withLock { state -> [AckPromise] in
            state.isStopped = true
            state.link = nil
            store.outboxLiveness.set(false)
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap { $0 }
        }
        work.wake()
        resumeEmptyWaiters()
        for waiter in waiters { waiter.settle(.failure(CancellationError())) }
    }

    /// Waits until no entry is pending (every known entry acknowledged and recorded, or failed), or the sender
    /// stopped. Any number of callers may wait.
    func waitUntilEmpty() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard !state.known.isEmpty, !state.isStopped else { return true }
                state.emptyWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Resumes the `waitUntilEmpty()` callers if nothing is pending any more or the sender stopped.
    private func resumeEmptyWaiters() {
        for waiter in state.withLock({ $0.takeEmptyWaitersIfDone() }) { waiter.resume() }
    }

    /// Waits until every known entry is acknowledged or failed, or until `deadline` on the clock. (A wait cut
    /// short by the deadline leaves a ``waitUntilEmpty()`` behind, resumed when the sender stops.)
    func waitUntilSettled(before deadline: Date) async {
        let settled = WakeSignal(clock: clock)
        let waiter = Task(executorPreference: SessionExecutor.preferred) {
            await self.waitUntilEmpty()
            settled.wake()
        }
        await settled.wait(until: deadline)
        waiter.cancel()
    }

    // MARK: - Sending

    private func sendLoop(generation: UInt64) async {
        while true {
            switch nextStep(generation: generation) {
            case .stop:
                return
            case .wait(let deadline):
                await work.wait(until: deadline)
            case .expire(let entry):
                await expire(entry)
            case .send(let entries, let link):
                guard await recordFirstAttempts(of: entries) else { continue }
                do {
                    if entries.count == 1, let entry = entries.first {
                        try await link.connection.sendMessage(encodedData: entry.encodedMessage, id: "o-\(entry.sequence)")
                    } else {
                        try await link.connection.sendMessages(entries.map { ($0.encodedMessage, "o-\($0.sequence)") })
                    }
                    for entry in entries {
                        log.trace("sent message.send", trace: entry.traceID, [
                            "clientMessageId": entry.id.rawValue, "conversation": entry.message.conversationId.rawValue,
                        ])
                    }
                } catch {
                    // The connection is ending; `suspend` puts the entries back in the queue.
                    for entry in entries { log.debug("message.send not written: \(error)", trace: entry.traceID) }
                    return
                }
            }
        }
    }

    private func nextStep(generation: UInt64) -> Step {
        let now = clock.now
        return state.withLock { state -> Step in
            guard !state.isStopped, let link = state.link, link.generation == generation else { return .stop }
            if !state.held.isEmpty {
                var stillHeld: [(until: Date, entry: OutboxEntry)] = []
                for held in state.held {
                    if held.until <= now { state.insertSorted(held.entry) } else { stillHeld.append(held) }
                }
                state.held = stillHeld
            }
            let retry = state.held.map(\.until).min()
            guard !state.isQueueEmpty else { return .wait(until: retry) }
            // Checked before pacing: an entry that is not sent costs no send.
            if isExpired(state.queue[state.queueHead], now: now) {
                return .expire(state.popFirst())
            }
            switch state.pacer.requestSend(now: now) {
            case .waitUntil(let date):
                // Paced or paused: what is committed meanwhile waits, so its first send is recorded when it goes out.
                store.outboxLiveness.set(false)
                return .wait(until: min(date, retry ?? date))
            case .sendNow:
                // What else is ready and the pacer allows now goes in the same write.
                var entries: [OutboxEntry] = []
                repeat {
                    let entry = state.popFirst()
                    state.inFlight[entry.id] = entry
                    state.inFlightBySequence[entry.sequence] = entry.id
                    entries.append(entry)
                } while entries.count < Self.maxSendsPerWrite && !state.isQueueEmpty
                    && !isExpired(state.queue[state.queueHead], now: now)
                    && state.pacer.requestSend(now: now) == .sendNow
                store.outboxLiveness.set(true)
                return .send(entries, link)
            }
        }
    }

    /// Whether `entry` went out first longer ago than the resend window; an entry never sent is not expired.
    private func isExpired(_ entry: OutboxEntry, now: Date) -> Bool {
        guard let first = entry.firstAttemptAt else { return false }
        return now.timeIntervalSince(first) >= resendWindow.timeInterval
    }

    /// Records the first send of the `entries` never sent before, durably, before their frames are written: the
    /// resend window counts from it. When the store cannot record it, nothing is sent: the entries go back to
    /// the queue and the loop waits a second (returns false).
    private func recordFirstAttempts(of entries: [OutboxEntry]) async -> Bool {
        let firstSends = entries.filter { $0.firstAttemptAt == nil }.map(\.id)
        guard !firstSends.isEmpty else { return true }
        let now = clock.now
        do {
            try await store.recordFirstAttempts(firstSends, at: now)
            state.withLock { $0.setFirstAttempt(now, of: Set(firstSends)) }
            return true
        } catch {
            log.error("could not record the first send of \(firstSends.count) messages (\(error)); not sending them yet")
            state.withLock { state in
                for entry in entries where state.inFlight.removeValue(forKey: entry.id) != nil {
                    state.inFlightBySequence[entry.sequence] = nil
                    state.insertSorted(entry)
                }
            }
            await work.wait(until: now.adding(.seconds(1)))
            return false
        }
    }

    // MARK: - Replies

    /// A `message.ack` arrived: the entry is acknowledged once the store has recorded it.
    func received(_ ack: MessageAck) {
        let startRecording = state.withLock { state -> Bool? in
            guard !state.isAckRecordingClosed else { return nil }
            let entry = state.inFlight.removeValue(forKey: ack.clientMessageId)
            if let entry { state.inFlightBySequence[entry.sequence] = nil }
            state.acksToRecord.append(ack)
            state.ackRowsToRecord.append(entry?.sequence)
            guard !state.isRecordingAcks else { return false }
            state.isRecordingAcks = true
            return true
        }
        switch startRecording {
        case true?: Task(executorPreference: SessionExecutor.preferred) { await self.recordAcks() }
        case false?: break
        case nil:
            log.warning("ack received after the store closed, not recorded; the entry is sent again after the next start",
                ["clientMessageId": ack.clientMessageId.rawValue])
        }
    }

    /// Waits until every ack received so far is recorded (the batch being written and those queued behind it),
    /// or until `deadline` on the clock; then records no further ack. Acks still unwritten at the deadline are
    /// dropped with a warning: their entries stay pending and are sent again (same clientMessageId) after the
    /// next start. Call it once the connection has closed, before the store closes.
    func finishRecordingAcks(before deadline: Date) async {
        while state.withLock({ $0.isRecordingAcks }), clock.now < deadline {
            await acksRecorded.wait(until: deadline)
        }
        let (dropped, writing) = state.withLock { state -> (Int, Bool) in
            state.isAckRecordingClosed = true
            defer {
                state.acksToRecord = []
                state.ackRowsToRecord = []
            }
            return (state.acksToRecord.count, state.isRecordingAcks)
        }
        if dropped > 0 || writing {
            log.warning("shutdown deadline passed before every ack was recorded; "
                + "their entries are sent again after the next start", ["dropped": String(dropped), "writing": String(writing)])
        }
    }

    /// Writes the acks received so far in one batch, again while more arrived meanwhile.
    private func recordAcks() async {
        while true {
            let (batch, rows) = state.withLock { state -> ([MessageAck], [Int64?]) in
                guard !state.acksToRecord.isEmpty, !state.isAckRecordingClosed else {
                    state.isRecordingAcks = false
                    return ([], [])
                }
                defer {
                    state.acksToRecord = []
                    state.ackRowsToRecord = []
                }
                return (state.acksToRecord, state.ackRowsToRecord)
            }
            guard !batch.isEmpty else {
                acksRecorded.wake()
                return
            }
            var released: [Message] = []
            var recorded = false
            do {
                let report = try await store.markAcked(batch, rows: rows)
                released = report.released
                recorded = true
            } catch {
                // Not recorded: the entries stay pending in the store and are sent again after the next
                // (re)connect; the service answers with the same acks.
                if state.withLock({ $0.isAckRecordingClosed }) {
                    log.warning("could not record \(batch.count) acks before the store closed: \(error)")
                } else {
                    log.error("could not record \(batch.count) acks: \(error)")
                }
            }
            if log.accepts(.trace) {
                for ack in batch { log.trace("ack recorded", ["clientMessageId": ack.clientMessageId.rawValue]) }
            }
            let (promises, isEmpty) = state.withLock { state -> ([(AckPromise, MessageAck)], Bool) in
                var promises: [(AckPromise, MessageAck)] = []
                var settled = 0
                for ack in batch {
                    // Each entry counts once, however many acks the service sends for it.
                    if state.known.remove(ack.clientMessageId) != nil { settled += 1 }
                    if !state.failures.isEmpty { state.failures[ack.clientMessageId] = nil }
                    for promise in state.takeWaiters(ack.clientMessageId) { promises.append((promise, ack)) }
                }
                metrics.countOut(settled)
                return (promises, state.known.isEmpty)
            }
            for (promise, ack) in promises { promise.settle(.success(ack)) }
            if isEmpty { resumeEmptyWaiters() }
            if recorded { onRecorded(batch, released) }
        }
    }

    /// An `error` reply arrived; returns false when `replyTo` is not one of this sender's frames.
    func received(_ error: ChatterErrorBody, replyTo: String) -> Bool {
        guard replyTo.hasPrefix("o-"), let sequence = Int64(replyTo.dropFirst(2)) else { return false }
        let now = clock.now
        let entry = state.withLock { state -> OutboxEntry? in
            guard let id = state.inFlightBySequence.removeValue(forKey: sequence) else { return nil }
            return state.inFlight.removeValue(forKey: id)
        }
        guard let entry else { return true }  // a reply for a connection that has ended: the entry was requeued
        if Self.isPermanent(error.code) {
            Task(executorPreference: SessionExecutor.preferred) { await self.fail(entry, with: error) }
        } else {
            let delay = state.withLock { state -> Duration in
                let failures = state.failures[entry.id, default: 0] + 1
                state.failures[entry.id] = failures
                let retry = Self.retry(after: error, failures: failures)
                if let pause = retry.pauseAllSends { state.pacer.rateLimited(retryAfter: pause, now: now) }
                state.held.append((now.adding(retry.delay), entry))
                return retry.delay
            }
            log.warning("message.send failed with \(error.code) (\(error.message)); retrying in \(delay)", trace: entry.traceID, [
                "clientMessageId": entry.id.rawValue, "code": error.code.rawValue,
            ])
            let store = store
            Task(executorPreference: SessionExecutor.preferred) { try? await store.recordAttempts([entry.id], error: error.code) }
            work.wake()
        }
        return true
    }

    /// When an entry refused with a transient `error` goes out again, after its `failures`-th failure: 1, 2, 4 …
    /// 30 s. A `RATE_LIMITED` reply speaks for the whole device, so every send pauses (like a 4008), for the
    /// `retryAfter` seconds the service gave (`details.retryAfter`), or for the entry's delay without one.
    static func retry(after error: ChatterErrorBody, failures: Int) -> (delay: Duration, pauseAllSends: Duration?) {
        let backoff = Duration.seconds(min(30, 1 << min(max(failures, 1) - 1, 5)))
        guard error.code == .rateLimited else { return (backoff, nil) }
        let hint = error.details?["retryAfter"]?.doubleValue.flatMap { seconds -> Duration? in
            guard seconds.isFinite else { return nil }
            return RateLimitDelay(delay: .seconds(min(max(seconds, 0), 86_400))).delay
        }
        let pause = hint ?? backoff
        return (max(pause, backoff), pause)
    }

    /// Codes that no resend can fix. Not `UNAUTHORIZED`: the session refreshes its token and the entry goes out again.
    static func isPermanent(_ code: ChatterErrorCode) -> Bool {
        !code.isTransient && code != .unauthorized
    }

    private func fail(_ entry: OutboxEntry, with error: ChatterErrorBody) async {
        log.error("message refused for good: \(error.code) (\(error.message)); the outbox entry is failed", trace: entry.traceID, [
            "clientMessageId": entry.id.rawValue, "conversation": entry.message.conversationId.rawValue,
            "code": error.code.rawValue,
        ])
        metrics.setLastError("message \(entry.id) refused: \(error.code)")
        await settleForGood(entry, code: error.code, error: ChatterAPIError(error))
    }

    /// Fails `entry` without sending it again: its first send is older than the resend window, so a resend could
    /// duplicate it.
    private func expire(_ entry: OutboxEntry) async {
        let firstAttemptAt = entry.firstAttemptAt ?? entry.createdAt
        let expired = OutgoingMessageExpired(
            clientMessageId: entry.id, enqueuedAt: entry.createdAt, firstAttemptAt: firstAttemptAt, window: resendWindow)
        log.error("message not sent again: first sent longer ago than the service's idempotency window, a resend could "
            + "duplicate it; the outbox entry is failed", trace: entry.traceID, [
            "clientMessageId": entry.id.rawValue, "conversation": entry.message.conversationId.rawValue,
            "enqueuedAt": Timestamp(entry.createdAt).description, "firstAttemptAt": Timestamp(firstAttemptAt).description,
            "window": "\(resendWindow.components.seconds)s",
        ])
        metrics.countExpired()
        metrics.setLastError("message \(entry.id) expired unacknowledged \(resendWindow.components.seconds / 3600) h after its first send")
        await settleForGood(entry, code: Self.expiredCode, error: expired)
    }

    /// Records `entry` as failed for good with `code` and fails its waiters with `error`.
    private func settleForGood(_ entry: OutboxEntry, code: ChatterErrorCode, error: any Error) async {
        do {
            try await store.markFailed(entry.id, code: code)
        } catch {
            log.error("could not record the failed outbox entry: \(error)", trace: entry.traceID)
        }
        let (promises, isEmpty) = state.withLock { state -> ([AckPromise], Bool) in
            state.known.remove(entry.id)
            state.failures[entry.id] = nil
            return (state.takeWaiters(entry.id), state.known.isEmpty)
        }
        for promise in promises { promise.settle(.failure(error)) }
        if isEmpty { resumeEmptyWaiters() }
    }

    // MARK: - Waiting for one message

    /// The ack of the entry `id`, once the store has recorded it; throws `ChatterAPIError` when the service
    /// refused the message for good, and `CancellationError` when it was never stored (its unit was refused or
    /// discarded). Waits across reconnects.
    func acknowledgement(of id: ClientMessageID) async throws -> MessageAck {
        let promise = AckPromise()
        let stopped = state.withLock { state -> Bool in
            guard !state.isStopped else { return true }
            state.waiters[id, default: []].append(promise)
            return false
        }
        if stopped { throw CancellationError() }
        if let entry = try await store.outboxEntry(id) {
            switch entry.status {
            case .acked:
                if let ack = entry.acknowledgement {
                    promise.settle(.success(MessageAck(
                        clientMessageId: id, messageId: ack.messageId, conversationId: entry.message.conversationId,
                        seq: ack.seq, createdAt: ack.createdAt)))
                }
            case .failed where entry.lastError == Self.expiredCode:
                promise.settle(.failure(OutgoingMessageExpired(
                    clientMessageId: id, enqueuedAt: entry.createdAt, firstAttemptAt: entry.firstAttemptAt ?? entry.createdAt,
                    window: resendWindow)))
            case .failed:
                let code = entry.lastError ?? .validationFailed
                promise.settle(.failure(ChatterAPIError(code: code, message: "The service refused this message for good (\(code)).")))
            case .pending:
                break
            }
        } else {
            // Never stored: the unit that made it was refused or discarded (the trigger is handled again).
            promise.settle(.failure(CancellationError()))
        }
        defer {
            state.withLock { state in
                state.waiters[id]?.removeAll { $0 === promise }
                if state.waiters[id]?.isEmpty == true { state.waiters[id] = nil }
            }
        }
        return try await promise.value
    }

    /// Fails the waiters of entries whose commit failed (they never reached the outbox).
    func failWaiters(of ids: [ClientMessageID], with error: any Error) {
        let promises = state.withLock { state in ids.flatMap { state.takeWaiters($0) } }
        for promise in promises { promise.settle(.failure(error)) }
    }
}
