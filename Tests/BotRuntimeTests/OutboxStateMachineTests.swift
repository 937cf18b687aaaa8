@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Drives an `OutboxStateMachine` the way `OutboxSender` does: events at a moving "now", one connection at a time.
struct OutboxHarness {
    var machine: OutboxStateMachine
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    var now: Date

    /// Unpaced unless asked, with the service's 24 h resend window.
    init(pacing: SendPacer.Configuration? = nil) {
        machine = OutboxStateMachine(pacing: pacing)
        now = start
    }

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// Entry 1 sent and refused for now (`INTERNAL`), entry 2 of the same conversation committed behind it.
    static func holdingTheSecondBehindTheRefusedFirst() -> OutboxHarness {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()
        _ = outbox.error(.internalError, to: 1)
        _ = outbox.machine.entriesCommitted([outbox.entry(2)])
        return outbox
    }

    mutating func advance(to seconds: TimeInterval) { now = at(seconds) }

    /// A pending entry of row `sequence` to `conversation`, never sent unless `firstSentAt` says when.
    func entry(
        _ sequence: Int64, in conversation: Conversation.ID = "C_DIRECT", body: String? = nil, firstSentAt: Date? = nil
    ) -> OutboxEntry {
        OutboxEntry(
            sequence: sequence,
            message: MessageSend(
                conversationId: conversation, clientMessageId: ClientMessageID("cm-\(sequence)"),
                content: .text(body ?? "message \(sequence)")),
            createdAt: start, status: .pending, attempts: 0, lastAttemptAt: nil, firstAttemptAt: firstSentAt,
            lastError: nil, acknowledgement: nil, origin: .direct, traceID: nil)
    }

    func ack(_ sequence: Int64, seq: Int, in conversation: Conversation.ID = "C_DIRECT") -> MessageAck {
        MessageAck(
            clientMessageId: ClientMessageID("cm-\(sequence)"), messageId: Message.ID("M_\(seq)"), conversationId: conversation,
            seq: seq, createdAt: Timestamp(start))
    }

    /// The ack `ack` arrives now; returns what to do with its recording.
    mutating func receive(_ ack: MessageAck) -> OutboxStateMachine.AckReception {
        machine.ackReceived(ack, now: now).recording
    }

    mutating func disconnect(_ generation: UInt64 = 1, closeCode: UInt16? = 1006) -> OutboxStateMachine.Disconnection {
        machine.disconnected(generation: generation, closeCode: closeCode, now: now)
    }

    mutating func step(on generation: UInt64 = 1) -> OutboxStateMachine.Step {
        machine.nextStep(generation: generation, now: now)
    }

    /// The sequences of the entries the next step sends; nil when it sends nothing.
    mutating func sent(on generation: UInt64 = 1) -> [Int64]? {
        guard case .send(let entries, _) = step(on: generation) else { return nil }
        return entries.map(\.sequence)
    }

    mutating func error(_ code: ChatterErrorCode, to sequence: Int64, details: JSONValue? = nil) -> OutboxStateMachine.ErrorReaction {
        machine.errorReceived(ChatterErrorBody(code: code, message: "refused", details: details), replyTo: "o-\(sequence)", now: now)
    }
}

@Suite("OutboxStateMachine: order and connections")
struct OutboxStateMachineOrderTests {
    @Test func entriesGoOutOldestFirstWhateverTheOrderTheyArriveIn() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(3), outbox.entry(1)])
        _ = outbox.machine.entriesCommitted([outbox.entry(2)])
        #expect(outbox.machine.connected(generation: 1) == true)
        #expect(outbox.sent() == [1, 2, 3])
        #expect(outbox.step() == .wait(until: nil))
    }

    @Test func entriesCommittedWhileConnectedWakeTheSenderAndKnownOnesAreIgnored() {
        var outbox = OutboxHarness()
        #expect(outbox.machine.entriesCommitted([outbox.entry(1)]) == false)
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.machine.entriesCommitted([outbox.entry(2)]) == true)
        #expect(outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)]) == false)
        var acked = outbox.entry(3)
        acked.status = .acked
        #expect(outbox.machine.entriesCommitted([acked]) == false)
        #expect(outbox.machine.depth == 2)
        #expect(outbox.sent() == [1, 2])
    }

    @Test func entriesInFlightAreResentInOrderOnTheNextConnectionWithTheirClientMessageIDs() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted((1...3).map { outbox.entry($0) })
        _ = outbox.machine.connected(generation: 1)
        guard case .send(let first, _) = outbox.step(on: 1) else { Issue.record("nothing sent"); return }
        #expect(outbox.receive(outbox.ack(2, seq: 10)) == .startRecording)

        #expect(outbox.disconnect(1) == .requeued)
        #expect(outbox.step(on: 1) == .endSending)
        _ = outbox.machine.connected(generation: 2)
        guard case .send(let resent, _) = outbox.step(on: 2) else { Issue.record("nothing resent"); return }
        #expect(resent.map(\.sequence) == [1, 3])
        #expect(resent.map(\.id) == [first[0].id, first[2].id])
        #expect(resent.map(OutboxStateMachine.frameID(of:)) == ["o-1", "o-3"])
    }

    @Test func entriesInFlightGoBackAheadOfThoseQueuedAfterThem() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)])
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent() == [1, 2])
        _ = outbox.machine.entriesCommitted([outbox.entry(3), outbox.entry(4)])
        _ = outbox.disconnect(1)
        _ = outbox.machine.connected(generation: 2)
        #expect(outbox.sent(on: 2) == [1, 2, 3, 4])
    }

    @Test func aRetriedEntryGoesAheadOfLaterEntriesStillQueued() {
        var outbox = OutboxHarness()
        let count = Int64(OutboxStateMachine.maxSendsPerWrite + 1)
        _ = outbox.machine.entriesCommitted([outbox.entry(1, in: "C_A")] + (2...count).map { outbox.entry($0, in: "C_B") })
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent()?.count == OutboxStateMachine.maxSendsPerWrite)
        _ = outbox.error(.internalError, to: 1)
        outbox.advance(to: 1)
        #expect(outbox.sent() == [1, count])
    }

    @Test func theEndOfAnOlderConnectionChangesNothing() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 2)
        #expect(outbox.sent(on: 2) == [1])
        #expect(outbox.disconnect(1) == .stale)
        #expect(outbox.machine.connection == 2)
        #expect(outbox.step(on: 2) == .wait(until: nil))
    }

    @Test func aMessageTooBigCloseFailsOnlyTheEntriesInFlightOverTheSizeLimits() {
        var outbox = OutboxHarness()
        let big = outbox.entry(2, body: String(repeating: "x", count: MessageSizeLimit.maxBodyCharacters + 1))
        _ = outbox.machine.entriesCommitted([outbox.entry(1), big, outbox.entry(3)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()

        #expect(outbox.disconnect(1, closeCode: 1009) == .messageTooBig(failing: [big], inFlight: 3))
        _ = outbox.machine.connected(generation: 2)
        #expect(outbox.sent(on: 2) == [1, 3])
    }
}

@Suite("OutboxStateMachine: errors and retries")
struct OutboxStateMachineErrorTests {
    @Test func aTransientErrorRetriesTheEntryAfter1_2_4UpTo30Seconds() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        var delays: [Duration] = []
        for _ in 0..<7 {
            #expect(outbox.sent() == [1])
            guard case .retry(_, let delay) = outbox.error(.internalError, to: 1) else { Issue.record("not retried"); return }
            delays.append(delay)
            let retryAt = outbox.now.adding(delay)
            #expect(outbox.step() == .wait(until: retryAt))
            outbox.now = retryAt
        }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
    }

    @Test func aHeldEntryDoesNotHoldBackOtherConversations() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1, in: "C_A")])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()
        _ = outbox.error(.internalError, to: 1)
        _ = outbox.machine.entriesCommitted([outbox.entry(2, in: "C_B")])
        #expect(outbox.sent() == [2])
        outbox.advance(to: 1)
        #expect(outbox.sent() == [1])
    }

    @Test func laterEntriesOfAHeldEntrysConversationGoOnlyOnceItIsAcknowledged() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)])
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent() == [1, 2])
        _ = outbox.error(.internalError, to: 1)
        _ = outbox.receive(outbox.ack(2, seq: 10))
        _ = outbox.machine.entriesCommitted([outbox.entry(3), outbox.entry(4, in: "C_OTHER")])
        #expect(outbox.sent() == [4])

        outbox.advance(to: 1)
        #expect(outbox.sent() == [1], "the refused entry goes out again alone")
        #expect(outbox.step() == .wait(until: nil))
        #expect(outbox.machine.ackReceived(outbox.ack(1, seq: 11), now: outbox.now).wakesSender)
        #expect(outbox.sent() == [3])
    }

    @Test func aRateLimitedEntryKeepsItsConversationBehindItAfterThePauseEnds() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        for _ in 0..<2 {
            #expect(outbox.sent() == [1])
            guard case .retry(_, let delay) = outbox.error(.rateLimited, to: 1, details: ["retryAfter": 1]) else {
                Issue.record("not retried")
                return
            }
            outbox.now = outbox.now.adding(delay)
        }
        // The third failure: every send pauses 1 s, the entry waits the 4 s of its backoff.
        #expect(outbox.sent() == [1])
        _ = outbox.error(.rateLimited, to: 1, details: ["retryAfter": 1])
        let retryAt = outbox.now.adding(.seconds(4))
        _ = outbox.machine.entriesCommitted([outbox.entry(2), outbox.entry(3, in: "C_OTHER")])
        outbox.now = outbox.now.adding(.seconds(1))
        #expect(outbox.sent() == [3])
        #expect(outbox.step() == .wait(until: retryAt))
        outbox.now = retryAt
        #expect(outbox.sent() == [1])
        _ = outbox.receive(outbox.ack(1, seq: 10))
        #expect(outbox.sent() == [2])
    }

    @Test func afterAReconnectEachConversationsEntriesGoOldestFirstHeldOnesInTheirPlace() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted((1...3).map { outbox.entry($0) } + [outbox.entry(4, in: "C_OTHER")])
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent() == [1, 2, 3, 4])
        _ = outbox.error(.internalError, to: 2)
        #expect(outbox.disconnect(1) == .requeued)

        _ = outbox.machine.connected(generation: 2)
        #expect(outbox.sent(on: 2) == [1, 4], "1 is older than the refused 2; 3 waits behind it")
        #expect(outbox.step(on: 2) == .wait(until: outbox.at(1)))
        outbox.advance(to: 1)
        #expect(outbox.sent(on: 2) == [2])
        _ = outbox.receive(outbox.ack(2, seq: 10))
        #expect(outbox.sent(on: 2) == [3])
    }

    @Test func aHeldEntryRefusedForGoodReleasesTheEntriesBehindIt() {
        var outbox = OutboxHarness.holdingTheSecondBehindTheRefusedFirst()
        #expect(outbox.step() == .wait(until: outbox.at(1)))
        outbox.advance(to: 1)
        #expect(outbox.sent() == [1])

        #expect(outbox.error(.notFriends, to: 1) == .fail(outbox.entry(1)))
        #expect(outbox.sent() == [2])
    }

    @Test func refusedEntriesOfOneConversationGoOutAgainOneAfterTheOther() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted((1...3).map { outbox.entry($0) })
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent() == [1, 2, 3])
        _ = outbox.error(.internalError, to: 1)
        _ = outbox.error(.internalError, to: 2)
        _ = outbox.error(.internalError, to: 3)

        outbox.advance(to: 1)
        #expect(outbox.sent() == [1])
        #expect(outbox.step() == .wait(until: nil))
        _ = outbox.receive(outbox.ack(1, seq: 10))
        #expect(outbox.sent() == [2])
        _ = outbox.receive(outbox.ack(2, seq: 11))
        #expect(outbox.sent() == [3])
    }

    @Test func aPermanentErrorFailsTheEntryForGoodAndItsWaiters() {
        var outbox = OutboxHarness()
        let waiter = AckPromise()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        #expect(outbox.machine.addWaiter(waiter, for: "cm-1") == true)
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()

        #expect(outbox.error(.notFriends, to: 1) == .fail(outbox.entry(1)))
        let settlement = outbox.machine.entrySettledForGood("cm-1")
        #expect(settlement.waiters.map { ObjectIdentifier($0) } == [ObjectIdentifier(waiter)])
        #expect(settlement.isSettled)
        #expect(outbox.machine.depth == 0)
        outbox.advance(to: 3600)
        #expect(outbox.step() == .wait(until: nil))
    }

    @Test func unauthorizedIsRetriedNotFailed() {
        #expect(!OutboxStateMachine.isPermanent(.unauthorized))
        #expect(OutboxStateMachine.isPermanent(.validationFailed))
    }

    @Test func aRateLimitedReplyPausesEverySendForItsHint() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()

        #expect(outbox.error(.rateLimited, to: 1, details: ["retryAfter": 7]) == .retry(outbox.entry(1), after: .seconds(7)))
        _ = outbox.machine.entriesCommitted([outbox.entry(2, in: "C_OTHER")])
        #expect(outbox.step() == .wait(until: outbox.at(7)))
        #expect(!outbox.machine.sendsAtCommit)
        outbox.advance(to: 7)
        #expect(outbox.sent() == [1, 2])
    }

    @Test func repliesToOtherFramesAreNotOursAndRepliesToEndedConnectionsAreStale() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()
        let error = ChatterErrorBody(code: .notFriends, message: "no")
        #expect(outbox.machine.errorReceived(error, replyTo: "sync-1", now: outbox.now) == .notOurs)
        _ = outbox.disconnect(1)
        #expect(outbox.error(.notFriends, to: 1) == .stale)
        #expect(outbox.machine.depth == 1)
    }
}

@Suite("OutboxStateMachine: the resend window and pacing")
struct OutboxStateMachineTimingTests {
    let window = OutboxStateMachine.serviceIdempotencyWindow.timeInterval

    @Test func anEntryFirstSentAWindowAgoExpiresInsteadOfGoingOutAgain() {
        var outbox = OutboxHarness()
        let stale = outbox.entry(1, firstSentAt: outbox.start)
        _ = outbox.machine.entriesCommitted([stale, outbox.entry(2, firstSentAt: outbox.at(60))])
        outbox.advance(to: window)
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.step() == .expire(stale))
        #expect(outbox.sent() == [2])
        #expect(outbox.machine.depth == 2)
        _ = outbox.machine.entrySettledForGood(stale.id)
        #expect(outbox.machine.depth == 1)
    }

    @Test func anEntryFirstSentJustInsideTheWindowIsResent() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1, firstSentAt: outbox.start)])
        outbox.advance(to: window - 1)
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.step() == .send([outbox.entry(1, firstSentAt: outbox.start)], recordingFirstSendOf: []))
    }

    @Test func anEntryNeverSentNeverExpiresAndItsFirstSendIsRecordedBeforeItGoesOut() {
        var outbox = OutboxHarness()
        let unsent = outbox.entry(1)
        _ = outbox.machine.entriesCommitted([unsent])
        outbox.advance(to: 3 * window)
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.step() == .send([unsent], recordingFirstSendOf: [unsent.id]))
        outbox.machine.firstSendsRecorded([unsent.id], at: outbox.now)

        // Its first send now counts: after a reconnect a window later it expires.
        _ = outbox.disconnect(1)
        outbox.advance(to: 4 * window)
        _ = outbox.machine.connected(generation: 2)
        guard case .expire(let expired) = outbox.step(on: 2) else { Issue.record("not expired"); return }
        #expect(expired.firstAttemptAt == outbox.at(3 * window))
    }

    @Test func entriesWhoseFirstSendWasNotRecordedGoBackToTheQueueAndWaitASecond() {
        var outbox = OutboxHarness()
        let unsent = outbox.entry(1)
        _ = outbox.machine.entriesCommitted([unsent])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.step()
        #expect(outbox.machine.firstSendsNotRecorded([unsent], now: outbox.now) == outbox.at(1))
        #expect(outbox.step() == .send([unsent], recordingFirstSendOf: [unsent.id]))
    }

    @Test func sendsFollowThePacer() {
        var outbox = OutboxHarness(pacing: SendPacing(sendsPerSecond: 2, burst: 3))
        _ = outbox.machine.entriesCommitted((1...5).map { outbox.entry($0) })
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent() == [1, 2, 3])
        #expect(outbox.step() == .wait(until: outbox.at(0.5)))
        #expect(!outbox.machine.sendsAtCommit)
        outbox.advance(to: 0.5)
        #expect(outbox.sent() == [4])
        #expect(outbox.machine.sendsAtCommit)
        #expect(outbox.step() == .wait(until: outbox.at(1)))
    }

    @Test func oneWriteCarriesAtMostMaxSendsPerWrite() {
        var outbox = OutboxHarness()
        let count = Int64(OutboxStateMachine.maxSendsPerWrite + 1)
        _ = outbox.machine.entriesCommitted((1...count).map { outbox.entry($0) })
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent()?.count == OutboxStateMachine.maxSendsPerWrite)
        #expect(outbox.sent() == [count])
    }
}

@Suite("OutboxStateMachine: what goes out at commit, without the send loop")
struct OutboxStateMachineSendAtCommitTests {
    /// Connected, with entries already sent once (as the commit records while the connection is live).
    func connected(pacing: SendPacer.Configuration? = nil) -> OutboxHarness {
        var outbox = OutboxHarness(pacing: pacing)
        _ = outbox.machine.connected(generation: 1)
        return outbox
    }

    @Test func committedEntriesGoOutAtOnceOldestFirstAndAreInFlight() {
        var outbox = connected()
        _ = outbox.machine.entriesCommitted([outbox.entry(2, firstSentAt: outbox.now), outbox.entry(1, firstSentAt: outbox.now)])
        let sent = outbox.machine.sendableAtCommit(generation: 1, now: outbox.now)
        #expect(sent.map(\.sequence) == [1, 2])
        #expect(!outbox.machine.hasQueued)
        #expect(outbox.step() == .wait(until: nil))
        #expect(outbox.error(.internalError, to: 1) == .retry(outbox.entry(1, firstSentAt: outbox.now), after: .seconds(1)),
            "in flight: an error reply finds it")
    }

    @Test func anEntryWhoseFirstSendIsNotRecordedIsLeftToTheLoop() {
        var outbox = connected()
        let unsent = outbox.entry(1)
        _ = outbox.machine.entriesCommitted([unsent])
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).isEmpty)
        #expect(outbox.machine.hasQueued)
        #expect(outbox.step() == .send([unsent], recordingFirstSendOf: [unsent.id]))
    }

    @Test func aPacedEntryIsLeftToTheLoopAndTakesNoSendFromThePacer() {
        var outbox = connected(pacing: SendPacing(sendsPerSecond: 2, burst: 1))
        _ = outbox.machine.entriesCommitted([outbox.entry(1, firstSentAt: outbox.now), outbox.entry(2, firstSentAt: outbox.now)])
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).map(\.sequence) == [1])
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).isEmpty)
        #expect(outbox.machine.hasQueued)
        #expect(outbox.step() == .wait(until: outbox.at(0.5)))
        outbox.advance(to: 0.5)
        #expect(outbox.sent() == [2])
    }

    @Test func nothingGoesAheadOfARetryThatIsDue() {
        var outbox = connected()
        _ = outbox.machine.entriesCommitted([outbox.entry(1, firstSentAt: outbox.now)])
        _ = outbox.sent()
        _ = outbox.error(.internalError, to: 1)
        outbox.advance(to: 1)
        _ = outbox.machine.entriesCommitted([outbox.entry(2, in: "C_OTHER", firstSentAt: outbox.now)])
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).isEmpty)
        #expect(outbox.sent() == [1, 2])
    }

    @Test func anEntryBehindARefusedOneOfItsConversationDoesNotGoOutAtCommit() {
        var outbox = connected()
        _ = outbox.machine.entriesCommitted([outbox.entry(1, firstSentAt: outbox.now)])
        _ = outbox.sent()
        _ = outbox.error(.internalError, to: 1)
        _ = outbox.machine.entriesCommitted([outbox.entry(2, firstSentAt: outbox.now)])
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).isEmpty)
        #expect(!outbox.machine.hasQueued, "set aside behind the refused entry: nothing for the loop to do before its retry")
    }

    @Test func anExpiredEntryIsLeftToTheLoopToExpire() {
        var outbox = connected()
        let old = outbox.entry(1, firstSentAt: outbox.now)
        _ = outbox.machine.entriesCommitted([old])
        outbox.advance(to: OutboxStateMachine.serviceIdempotencyWindow.timeInterval)
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).isEmpty)
        #expect(outbox.step() == .expire(old))
    }

    @Test func nothingGoesOutForAnotherConnectionOrNone() {
        var outbox = connected()
        _ = outbox.machine.entriesCommitted([outbox.entry(1, firstSentAt: outbox.now)])
        #expect(outbox.machine.sendableAtCommit(generation: 2, now: outbox.now).isEmpty)
        _ = outbox.disconnect(1, closeCode: nil)
        #expect(outbox.machine.sendableAtCommit(generation: 1, now: outbox.now).isEmpty)
        #expect(outbox.machine.hasQueued)
    }
}

@Suite("OutboxStateMachine: acks and waiters")
struct OutboxStateMachineAckTests {
    @Test func acksArrivingWhileABatchIsWrittenGoIntoTheNextBatch() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted((1...3).map { outbox.entry($0) })
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()

        #expect(outbox.receive(outbox.ack(1, seq: 10)) == .startRecording)
        #expect(outbox.machine.nextAckBatch() == .init(acks: [outbox.ack(1, seq: 10)], rows: [1]))
        #expect(outbox.receive(outbox.ack(2, seq: 11)) == .queued)
        #expect(outbox.receive(outbox.ack(3, seq: 12)) == .queued)
        #expect(outbox.machine.ackBatchWritten([outbox.ack(1, seq: 10)]).settled == 1)
        #expect(outbox.machine.nextAckBatch() == .init(acks: [outbox.ack(2, seq: 11), outbox.ack(3, seq: 12)], rows: [2, 3]))
        #expect(outbox.machine.ackBatchWritten([outbox.ack(2, seq: 11), outbox.ack(3, seq: 12)]).isSettled)
        #expect(outbox.machine.nextAckBatch() == nil)
        #expect(!outbox.machine.isRecordingAcks)
        #expect(outbox.receive(outbox.ack(3, seq: 12)) == .startRecording)
    }

    @Test func anAckSettlesItsEntryOnceAndResumesItsWaitersWithIt() {
        var outbox = OutboxHarness()
        let waiter = AckPromise()
        _ = outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)])
        _ = outbox.machine.addWaiter(waiter, for: "cm-1")
        let ack = outbox.ack(1, seq: 10)
        _ = outbox.receive(ack)
        _ = outbox.receive(ack)
        guard let batch = outbox.machine.nextAckBatch() else { Issue.record("no batch"); return }
        // An entry sent before the last reconnect has no known row.
        #expect(batch.rows == [nil, nil])

        let settlement = outbox.machine.ackBatchWritten(batch.acks)
        #expect(settlement.settled == 1)
        #expect(settlement.waiters.map { ObjectIdentifier($0.0) } == [ObjectIdentifier(waiter)])
        #expect(settlement.waiters.map(\.1) == [ack])
        #expect(!settlement.isSettled)
        #expect(outbox.machine.depth == 1)
    }

    @Test func anEntryFoundDeliveredSettlesAsItsAckWouldAndIsNotSent() {
        var outbox = OutboxHarness()
        let waiter = AckPromise()
        _ = outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)])
        _ = outbox.machine.addWaiter(waiter, for: "cm-1")
        let ack = outbox.ack(1, seq: 10)

        let found = outbox.machine.ownMessagesFound([ack], now: outbox.now)
        #expect(found.settlement.settled == 1)
        #expect(found.settlement.waiters.map { ObjectIdentifier($0.0) } == [ObjectIdentifier(waiter)])
        #expect(found.settlement.waiters.map(\.1) == [ack])
        #expect(outbox.machine.depth == 1)
        _ = outbox.machine.connected(generation: 1)
        #expect(outbox.sent() == [2])
        #expect(outbox.machine.ownMessagesFound([ack], now: outbox.now).settlement.settled == 0)
    }

    @Test func anEntryInFlightFoundDeliveredIsNotSentAgainAfterAReconnect() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.sent()
        _ = outbox.machine.ownMessagesFound([outbox.ack(1, seq: 10)], now: outbox.now)
        _ = outbox.disconnect(1)
        _ = outbox.machine.connected(generation: 2)
        #expect(outbox.step(on: 2) == .wait(until: nil))
        #expect(outbox.machine.isSettled)
    }

    @Test func aRefusedEntryFoundDeliveredReleasesTheEntriesBehindIt() {
        var outbox = OutboxHarness.holdingTheSecondBehindTheRefusedFirst()
        #expect(outbox.step() == .wait(until: outbox.at(1)))

        #expect(outbox.machine.ownMessagesFound([outbox.ack(1, seq: 10)], now: outbox.now).wakesSender)
        #expect(outbox.sent() == [2])
        #expect(outbox.step() == .wait(until: nil))
    }

    @Test func closingAckRecordingDropsTheAcksNotWrittenAndEveryLaterOne() {
        var outbox = OutboxHarness()
        _ = outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)])
        _ = outbox.receive(outbox.ack(1, seq: 10))
        _ = outbox.machine.nextAckBatch()
        _ = outbox.receive(outbox.ack(2, seq: 11))

        #expect(outbox.machine.closeAckRecording() == (dropped: 1, writing: true))
        #expect(outbox.receive(outbox.ack(2, seq: 11)) == .dropped)
        _ = outbox.machine.ackBatchWritten([outbox.ack(1, seq: 10)])
        #expect(outbox.machine.nextAckBatch() == nil)
        #expect(outbox.machine.depth == 1)
    }

    @Test func stoppingResolvesEveryWaiterAndEndsSending() {
        var outbox = OutboxHarness()
        let first = AckPromise()
        let second = AckPromise()
        _ = outbox.machine.entriesCommitted([outbox.entry(1), outbox.entry(2)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.machine.addWaiter(first, for: "cm-1")
        _ = outbox.machine.addWaiter(second, for: "cm-2")

        let waiters = outbox.machine.stop()
        #expect(Set(waiters.map { ObjectIdentifier($0) }) == [ObjectIdentifier(first), ObjectIdentifier(second)])
        #expect(outbox.machine.isSettled)
        #expect(outbox.machine.depth == 2)
        #expect(outbox.step() == .endSending)
        #expect(outbox.machine.addWaiter(AckPromise(), for: "cm-1") == false)
        #expect(outbox.machine.connected(generation: 2) == false)
        #expect(outbox.machine.entriesCommitted([outbox.entry(3)]) == false)
    }

    @Test func discardingForgetsEveryEntryAndResolvesEveryWaiterButKeepsSending() {
        var outbox = OutboxHarness()
        let waiter = AckPromise()
        _ = outbox.machine.entriesCommitted([outbox.entry(1)])
        _ = outbox.machine.connected(generation: 1)
        _ = outbox.machine.addWaiter(waiter, for: "cm-1")

        #expect(outbox.machine.discardAll().map { ObjectIdentifier($0) } == [ObjectIdentifier(waiter)])
        #expect(outbox.machine.depth == 0)
        #expect(outbox.step() == .wait(until: nil))
        _ = outbox.machine.entriesCommitted([outbox.entry(2)])
        #expect(outbox.sent() == [2])
    }

    @Test func aStoredEntryGivesItsWaiterTheOutcomeItWasSettledWith() throws {
        let outbox = OutboxHarness()
        var expired = outbox.entry(1, firstSentAt: outbox.at(60))
        expired.status = .failed
        expired.lastError = OutboxStateMachine.expiredCode
        var refused = outbox.entry(2)
        refused.status = .failed
        refused.lastError = .notFriends
        var acked = outbox.entry(3)
        acked.status = .acked
        acked.acknowledgement = .init(messageId: Message.ID("M_9"), seq: 9, createdAt: Timestamp(outbox.start), ackedAt: outbox.start)

        let expiredError = try #require(outbox.machine.outcome(ofStored: expired)?.failure as? OutgoingMessageExpired)
        #expect(expiredError.firstAttemptAt == outbox.at(60))
        #expect(expiredError.window == OutboxStateMachine.serviceIdempotencyWindow)
        #expect((outbox.machine.outcome(ofStored: refused)?.failure as? ChatterAPIError)?.code == .notFriends)
        #expect(try outbox.machine.outcome(ofStored: acked)?.get().seq == 9)
        #expect(outbox.machine.outcome(ofStored: outbox.entry(4)) == nil)
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
