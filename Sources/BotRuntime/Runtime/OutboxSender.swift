import ChatterBots
import Foundation
import Synchronization

/// Carries out a bot's outbox, whose rules are `OutboxStateMachine`'s: writes the `message.send` frames on the live
/// connection, records first sends, acks and failures in the store, resumes the callers of
/// `OutgoingMessage.acknowledged()`, and sleeps on the session's clock until the machine's next wake time.
///
/// - Entries are durable before they reach this type (committed with their handler's work); they go out oldest
///   first, paced by `SendPacer`, and stay until the service acknowledges them.
/// - Frames carry the id `o-<entry sequence>`; `message.ack`s are matched by `clientMessageId`, `error` replies by
///   that id. Many sends are in flight at once, with no waiter per frame: replies come through the session's
///   single reader.
/// - Acks are recorded in the store in batches (acks that arrive while a batch is written go into the next);
///   callers of `OutgoingMessage.acknowledged()` resume once their ack is durable.
/// - When the connection ends, the entries in flight go back to the queue in order; after the next `resume(on:)`
///   they are sent again with their original `clientMessageId`, which the service turns into the same message.
/// - Permanent errors fail the entry for good and reach the caller; transient ones are retried after a growing
///   delay, the later entries of the conversation not sent yet waiting behind it, and a `RATE_LIMITED` reply
///   pauses every send for its retry hint, as a 4008 close does.
/// - An entry whose message comes in as the bot's own (the sync, a page fetched over REST) is settled by it as by
///   its ack, and not sent again.
/// - An entry first sent longer ago than the resend window (the service's 24 h idempotency window) is failed with
///   `OutgoingMessageExpired`, logged and counted instead of sent again. The first send is recorded in the store
///   before its frame is written (by the commit itself while the connection is live, see `OutboxLiveness`).
final class OutboxSender: Sendable {
    /// How long a stopping session still writes the acks it has received once its connection closed, when the
    /// shutdown deadline leaves less: they arrived (often in the close handshake) and only need a local write.
    static let finalAckRecordingGrace: Duration = .seconds(1)

    /// The machine and the `waitUntilEmpty()` callers it releases, under one lock.
    private struct State {
        var machine: OutboxStateMachine
        /// Callers of `waitUntilEmpty()`, resumed once the machine is settled.
        var emptyWaiters: [CheckedContinuation<Void, Never>] = []
        /// The connection whose send loop waits for work, every frame it took written; nil while it runs (or none
        /// does). Entries committed meanwhile go out on it at once, without waking the loop.
        var idleLink: RealtimeLink?

        /// The `waitUntilEmpty()` callers to resume now, taken out of the state.
        mutating func takeEmptyWaitersIfSettled() -> [CheckedContinuation<Void, Never>] {
            guard machine.isSettled, !emptyWaiters.isEmpty else { return [] }
            defer { emptyWaiters = [] }
            return emptyWaiters
        }
    }

    private let store: BotStore
    private let clock: any ChatterClock
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
        resendWindow: Duration = OutboxStateMachine.serviceIdempotencyWindow, log: SessionLog, metrics: SessionMetrics,
        onRecorded: @escaping @Sendable ([MessageAck], [Message]) -> Void
    ) {
        self.store = store
        self.clock = clock
        self.log = log
        self.metrics = metrics
        self.onRecorded = onRecorded
        self.state = Mutex(State(machine: OutboxStateMachine(pacing: pacing, resendWindow: resendWindow)))
        self.work = WakeSignal(clock: clock)
        self.acksRecorded = WakeSignal(clock: clock)
    }

    /// Loads the entries left pending by earlier runs, oldest first; they go out after the next `resume(on:)`.
    func loadPending() async throws(BotStoreError) {
        let pending = try await store.pendingOutbox()
        enqueue(pending)
    }

    /// Entries waiting for their acknowledgement (queued, in flight or held for a retry).
    var depth: Int { state.withLock { $0.machine.depth } }

    // MARK: - Entries in

    /// Queues committed entries (those still pending) for sending; entries already known are ignored. While the
    /// send loop waits idle, nothing else is due and this runs on the connection's event loop with room in the
    /// socket's queue, the entries go out at once (at the end of the loop's turn), and the loop is not woken for
    /// them: one hand-off fewer per reply. Otherwise the loop sends them, waiting for room as it must.
    func enqueue(_ entries: [OutboxEntry]) {
        guard !entries.isEmpty else { return }
        let now = clock.now
        let wakesLoop = state.withLock { state -> Bool in
            guard state.machine.entriesCommitted(entries) else { return false }
            guard let link = state.idleLink, link.connection.acceptsMessagesWithoutWaiting else { return true }
            let sending = state.machine.sendableAtCommit(generation: link.generation, now: now)
            // Written under the lock, so that no frame the loop takes later can overtake them.
            if !sending.isEmpty {
                do {
                    try link.connection.sendMessagesWithoutWaiting(sending.map { ($0.encodedMessage, OutboxStateMachine.frameID(of: $0)) })
                    traceSent(sending)
                } catch {
                    // The connection is ending; `suspend` puts the entries back in the queue.
                    for entry in sending { log.debug("message.send not written: \(error)", trace: entry.traceID) }
                }
            }
            return state.machine.hasQueued
        }
        if wakesLoop { work.wake() }
    }

    // MARK: - The connection

    /// Starts sending on `link`: entries in the queue first (oldest first), then whatever is committed later.
    func resume(on link: RealtimeLink) {
        let liveness = store.outboxLiveness
        let start = state.withLock { state -> Bool in
            guard state.machine.connected(generation: link.generation) else { return false }
            liveness.set(state.machine.sendsAtCommit)
            return true
        }
        guard start else { return }
        Task(executorPreference: SessionExecutor.preferred) { await self.sendLoop(on: link) }
        work.wake()
    }

    /// The connection of `generation` ended with `closeCode`: entries in flight go back to the queue, to be sent
    /// again with the same clientMessageId on the next connection; after a 1009, those over the service's size
    /// limits fail for good instead (`OutboxStateMachine.disconnected(generation:closeCode:now:)`).
    func suspend(generation: UInt64, closeCode: UInt16? = nil) {
        let liveness = store.outboxLiveness
        let now = clock.now
        let outcome = state.withLock { state -> OutboxStateMachine.Disconnection in
            let outcome = state.machine.disconnected(generation: generation, closeCode: closeCode, now: now)
            if outcome != .stale { liveness.set(state.machine.sendsAtCommit) }
            return outcome
        }
        if case .messageTooBig(let tooLarge, let inFlight) = outcome {
            if tooLarge.isEmpty {
                log.warning("connection closed with 1009 (message too big), but no message in flight is over the size "
                    + "limits; nothing is failed, the messages in flight are sent again", ["inFlight": String(inFlight)])
            }
            for entry in tooLarge {
                let error = ChatterErrorBody(
                    code: .payloadTooLarge,
                    message: "The connection closed with 1009 (message too big) while this message, over the service's "
                        + "size limits, was in flight; it is not sent again.")
                Task(executorPreference: SessionExecutor.preferred) { await self.fail(entry, with: error) }
            }
        }
        work.wake()
    }

    /// The server rate-limited the device (close 4008): nothing is sent before `retryAfter` has passed.
    func rateLimited(retryAfter: Duration) {
        let now = clock.now
        state.withLock { $0.machine.rateLimited(retryAfter: retryAfter, now: now) }
    }

    /// Forgets every entry (the store deleted them: they belonged to another account) and fails their waiters
    /// with `error`. Sending goes on with what is committed later.
    func discardAll(failingWaitersWith error: any Error) {
        let waiters = state.withLock { $0.machine.discardAll() }
        resumeEmptyWaiters()
        for waiter in waiters { waiter.settle(.failure(error)) }
    }

    /// Stops sending for good and fails every waiter (the session is over; entries stay pending in the store).
    func stop() {
        let liveness = store.outboxLiveness
        let waiters = state.withLock { state -> [AckPromise] in
            let waiters = state.machine.stop()
            liveness.set(state.machine.sendsAtCommit)
            return waiters
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
                guard !state.machine.isSettled else { return true }
                state.emptyWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Resumes the `waitUntilEmpty()` callers if nothing is pending any more or the sender stopped.
    private func resumeEmptyWaiters() {
        for waiter in state.withLock({ $0.takeEmptyWaitersIfSettled() }) { waiter.resume() }
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

    /// Carries out the machine's steps for the connection `link` until it says the connection's sending is over.
    private func sendLoop(on link: RealtimeLink) async {
        let liveness = store.outboxLiveness
        while true {
            let now = clock.now
            let step = state.withLock { state -> OutboxStateMachine.Step in
                if state.idleLink?.generation == link.generation { state.idleLink = nil }
                let step = state.machine.nextStep(generation: link.generation, now: now)
                if case .endSending = step { return step }
                liveness.set(state.machine.sendsAtCommit)
                if case .wait = step { state.idleLink = link }
                return step
            }
            switch step {
            case .endSending:
                return
            case .wait(let deadline):
                await work.wait(until: deadline)
            case .expire(let entry):
                await expire(entry)
            case .send(let entries, let firstSends):
                guard await recordFirstSends(firstSends, of: entries) else { continue }
                do {
                    if entries.count == 1, let entry = entries.first {
                        try await link.connection.sendMessage(
                            encodedData: entry.encodedMessage, id: OutboxStateMachine.frameID(of: entry))
                    } else {
                        try await link.connection.sendMessages(entries.map { ($0.encodedMessage, OutboxStateMachine.frameID(of: $0)) })
                    }
                    traceSent(entries)
                } catch {
                    // The connection is ending; `suspend` puts the entries back in the queue.
                    for entry in entries { log.debug("message.send not written: \(error)", trace: entry.traceID) }
                    return
                }
            }
        }
    }

    private func traceSent(_ entries: [OutboxEntry]) {
        guard log.accepts(.trace) else { return }
        for entry in entries {
            log.trace("sent message.send", trace: entry.traceID, [
                "clientMessageId": entry.id.rawValue, "conversation": entry.message.conversationId.rawValue,
            ])
        }
    }

    /// Records the first send of `firstSends` (entries never sent before), durably, before their frames are
    /// written: the resend window counts from it. When the store cannot record it, nothing is sent: the machine
    /// takes the entries back and the loop waits until it asks again (returns false).
    private func recordFirstSends(_ firstSends: [ClientMessageID], of entries: [OutboxEntry]) async -> Bool {
        guard !firstSends.isEmpty else { return true }
        let now = clock.now
        do {
            try await store.recordFirstAttempts(firstSends, at: now)
            state.withLock { $0.machine.firstSendsRecorded(firstSends, at: now) }
            return true
        } catch {
            log.error("could not record the first send of \(firstSends.count) messages (\(error)); not sending them yet")
            let retryAt = state.withLock { $0.machine.firstSendsNotRecorded(entries, now: now) }
            await work.wait(until: retryAt)
            return false
        }
    }

    // MARK: - Replies

    /// A `message.ack` arrived: the entry is acknowledged once the store has recorded it.
    func received(_ ack: MessageAck) {
        let now = clock.now
        let (recording, wakesSender) = state.withLock { $0.machine.ackReceived(ack, now: now) }
        if wakesSender { work.wake() }
        switch recording {
        case .startRecording: recordNextAckBatch()
        case .queued: break
        case .dropped:
            log.warning("ack received after the store closed, not recorded; the entry is sent again after the next start",
                ["clientMessageId": ack.clientMessageId.rawValue])
        }
    }

    /// The bot's own messages of these entries came in (the sync, or a page fetched over REST), and the store
    /// recorded the entries acknowledged with them: they settle as their acks would and are not sent again.
    func ownMessagesFound(_ acks: [MessageAck]) {
        guard !acks.isEmpty else { return }
        let now = clock.now
        let (settlement, wakesSender) = state.withLock { $0.machine.ownMessagesFound(acks, now: now) }
        if wakesSender { work.wake() }
        metrics.countOut(settlement.settled)
        for (promise, ack) in settlement.waiters { promise.settle(.success(ack)) }
        if settlement.isSettled { resumeEmptyWaiters() }
    }

    /// Waits until every ack received so far is recorded (the batch being written and those queued behind it),
    /// or until `deadline` on the clock; then records no further ack. Acks still unwritten at the deadline are
    /// dropped with a warning: their entries stay pending and are sent again (same clientMessageId) after the
    /// next start. Call it once the connection has closed, before the store closes.
    func finishRecordingAcks(before deadline: Date) async {
        while state.withLock({ $0.machine.isRecordingAcks }), clock.now < deadline {
            await acksRecorded.wait(until: deadline)
        }
        let (dropped, writing) = state.withLock { $0.machine.closeAckRecording() }
        if dropped > 0 || writing {
            log.warning("shutdown deadline passed before every ack was recorded; "
                + "their entries are sent again after the next start", ["dropped": String(dropped), "writing": String(writing)])
        }
    }

    /// Hands the acks received so far to the store as one batch, written with its next transaction; once written,
    /// the next batch (acks that arrived meanwhile) follows. No task waits for it.
    private func recordNextAckBatch() {
        guard let batch = state.withLock({ $0.machine.nextAckBatch() }) else {
            acksRecorded.wake()
            return
        }
        store.markAcked(batch.acks, rows: batch.rows) { result in
            self.ackBatchWritten(batch.acks, result)
            self.recordNextAckBatch()
        }
    }

    private func ackBatchWritten(_ acks: [MessageAck], _ result: Result<AckReport, BotStoreError>) {
        if case .failure(let error) = result {
            // Not recorded: the entries stay pending in the store and are sent again after the next start; the
            // service answers with the same acks.
            if state.withLock({ $0.machine.isAckRecordingClosed }) {
                log.warning("could not record \(acks.count) acks before the store closed: \(error)")
            } else {
                log.error("could not record \(acks.count) acks: \(error)")
            }
        }
        if log.accepts(.trace) {
            for ack in acks { log.trace("ack recorded", ["clientMessageId": ack.clientMessageId.rawValue]) }
        }
        let settlement = state.withLock { $0.machine.ackBatchWritten(acks) }
        metrics.countOut(settlement.settled)
        for (promise, ack) in settlement.waiters { promise.settle(.success(ack)) }
        if settlement.isSettled { resumeEmptyWaiters() }
        if case .success(let report) = result { onRecorded(acks, report.released) }
    }

    /// An `error` reply arrived; returns false when `replyTo` is not one of this sender's frames.
    func received(_ error: ChatterErrorBody, replyTo: String) -> Bool {
        let now = clock.now
        switch state.withLock({ $0.machine.errorReceived(error, replyTo: replyTo, now: now) }) {
        case .notOurs:
            return false
        case .stale:
            return true  // a reply for a connection that has ended: the entry was requeued
        case .fail(let entry):
            Task(executorPreference: SessionExecutor.preferred) { await self.fail(entry, with: error) }
            work.wake()  // entries of its conversation may have waited behind it
        case .retry(let entry, let delay):
            log.warning("message.send failed with \(error.code) (\(error.message)); retrying in \(delay)", trace: entry.traceID, [
                "clientMessageId": entry.id.rawValue, "code": error.code.rawValue,
            ])
            let store = store
            Task(executorPreference: SessionExecutor.preferred) { try? await store.recordAttempts([entry.id], error: error.code) }
            work.wake()
        }
        return true
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
        let expired = state.withLock { $0.machine.expiry(of: entry) }
        let window = expired.window.components.seconds
        log.error("message not sent again: first sent longer ago than the service's idempotency window, a resend could "
            + "duplicate it; the outbox entry is failed", trace: entry.traceID, [
            "clientMessageId": entry.id.rawValue, "conversation": entry.message.conversationId.rawValue,
            "enqueuedAt": Timestamp(expired.enqueuedAt).description, "firstAttemptAt": Timestamp(expired.firstAttemptAt).description,
            "window": "\(window)s",
        ])
        metrics.countExpired()
        metrics.setLastError("message \(entry.id) expired unacknowledged \(window / 3600) h after its first send")
        await settleForGood(entry, code: OutboxStateMachine.expiredCode, error: expired)
    }

    /// Records `entry` as failed for good with `code` and fails its waiters with `error`.
    private func settleForGood(_ entry: OutboxEntry, code: ChatterErrorCode, error: any Error) async {
        do {
            try await store.markFailed(entry.id, code: code)
        } catch {
            log.error("could not record the failed outbox entry: \(error)", trace: entry.traceID)
        }
        let (promises, isSettled) = state.withLock { $0.machine.entrySettledForGood(entry.id) }
        for promise in promises { promise.settle(.failure(error)) }
        if isSettled { resumeEmptyWaiters() }
    }

    // MARK: - Waiting for one message

    /// The ack of the entry `id`, once the store has recorded it; throws `ChatterAPIError` when the service
    /// refused the message for good, and `CancellationError` when it was never stored (its unit was refused or
    /// discarded). Waits across reconnects.
    func acknowledgement(of id: ClientMessageID) async throws -> MessageAck {
        let promise = AckPromise()
        guard state.withLock({ $0.machine.addWaiter(promise, for: id) }) else { throw CancellationError() }
        defer { state.withLock { $0.machine.removeWaiter(promise, for: id) } }
        if let entry = try await store.outboxEntry(id) {
            if let outcome = state.withLock({ $0.machine.outcome(ofStored: entry) }) { promise.settle(outcome) }
        } else {
            // Never stored: the unit that made it was refused or discarded (the trigger is handled again).
            promise.settle(.failure(CancellationError()))
        }
        return try await promise.value
    }

    /// Fails the waiters of entries whose commit failed (they never reached the outbox).
    func failWaiters(of ids: [ClientMessageID], with error: any Error) {
        let promises = state.withLock { $0.machine.takeWaiters(of: ids) }
        for promise in promises { promise.settle(.failure(error)) }
    }
}
