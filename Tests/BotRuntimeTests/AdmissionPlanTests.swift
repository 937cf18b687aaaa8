import ChatterBots
import Foundation
import Synchronization
import Testing

@testable import BotRuntime

/// The rules of admission, without a store, lanes or a clock: the order items are taken in, shedding, fetches,
/// gap checks and rewinds.
@Suite struct AdmissionPlanTests {
    private let now = Fixture.start
    private let conversation = Fixture.direct
    private let other = Fixture.group

    private func plan(backlogLimit: Int = 3, gapFillDelay: Duration = .seconds(4)) -> AdmissionPlan {
        AdmissionPlan(backlogLimit: backlogLimit, gapFillDelay: gapFillDelay)
    }

    private func message(_ seq: Int, in conversation: Conversation.ID = Fixture.direct) -> Message {
        Fixture.message(conversation, seq: seq)
    }

    private func openGap(waitingFor expected: Int, parked: Int = 1, firstParked: Int? = nil) -> ConversationLedger.Gap {
        ConversationLedger.Gap(expected: expected, parkedMessages: parked, firstParkedSeq: firstParked ?? expected + 1, isOpen: true)
    }

    private let closedGap = ConversationLedger.Gap(expected: 10, parkedMessages: 0, firstParkedSeq: nil, isOpen: false)

    /// What an item is, to compare the order items come out in.
    private func describe(_ item: AdmissionItem) -> String {
        switch item {
        case .messages(let messages): "messages \(messages.map(\.seq))"
        case .fetched(let messages): "fetched \(messages.map(\.seq))"
        case .updated(let message, _): "updated \(message.seq)"
        case .conversations(let conversations, _, _): "conversations \(conversations.map(\.id.rawValue))"
        case .removed(let id, _): "removed \(id.rawValue)"
        case .rewind(let id, _): "rewind \(id.rawValue)"
        case .barrier: "barrier"
        }
    }

    private func accept(
        _ messages: [Message], into plan: inout AdmissionPlan, backlog: Int = 0, gap: ConversationLedger.Gap? = nil
    ) -> AdmissionPlan.Acceptance {
        plan.accept(messages, backlog: { _ in backlog }, gap: { _ in gap ?? closedGap })
    }

    // MARK: - Order

    @Test func aSingleMessageOnAnIdleQueueIsAdmittedAtOnce() {
        var plan = plan()
        #expect(plan.submit(.messages([message(5)])) == .admitNow([message(5)]))
    }

    @Test func severalMessagesTogetherStartADrain() {
        var plan = plan()
        #expect(plan.submit(.messages([message(5), message(6)])) == .startDrain)
        #expect(plan.takeItems().map(describe) == ["messages [5, 6]"])
    }

    @Test func itemsSubmittedDuringATurnAreTakenInTheOrderTheyCame() {
        var plan = plan()
        #expect(plan.submit(.removed(other, trace: "t")) == .startDrain)
        #expect(plan.submit(.messages([message(5)])) == .queued)
        #expect(plan.submit(.updated(message(5), trace: "t")) == .queued)
        #expect(plan.submit(.barrier {}) == .queued)
        #expect(plan.submit(.messages([message(6)])) == .queued)
        #expect(plan.takeItems().map(describe) == ["removed C_GROUP", "messages [5]", "updated 5", "barrier", "messages [6]"])
    }

    @Test func aDrainFindingNothingLeftEndsTheTurn() {
        var plan = plan()
        _ = plan.submit(.removed(other, trace: "t"))
        _ = plan.takeItems()
        #expect(plan.takeItems().isEmpty)
        #expect(plan.submit(.messages([message(5)])) == .admitNow([message(5)]), "the queue is idle again")
    }

    @Test func messagesTheStoreWasTooBusyToTakeGoBeforeWhatCameMeanwhile() {
        var plan = plan()
        _ = plan.submit(.messages([message(5)]))
        #expect(plan.submit(.messages([message(6)])) == .queued)
        plan.storeBusy(admitting: [message(5)])
        #expect(plan.takeItems().map(describe) == ["fetched [5]", "messages [6]"])
    }

    @Test func aTurnOnTheCallersThreadGoesOnAsADrainWhenItemsCameMeanwhile() {
        var plan = plan()
        _ = plan.submit(.messages([message(5)]))
        _ = plan.submit(.messages([message(6)]))
        #expect(plan.turnEnded() == true)
        #expect(plan.takeItems().map(describe) == ["messages [6]"])
    }

    @Test func aTurnOnTheCallersThreadWithNothingQueuedLeavesTheQueueIdle() {
        var plan = plan()
        _ = plan.submit(.messages([message(5)]))
        #expect(plan.turnEnded() == false)
        #expect(plan.submit(.messages([message(6)])) == .admitNow([message(6)]))
    }

    @Test func stopReleasesTheQueuedBarriersAndRefusesLaterItems() {
        var plan = plan()
        let released = Counter()
        _ = plan.submit(.removed(other, trace: "t"))
        _ = plan.submit(.barrier { released.increment() })
        _ = plan.submit(.barrier { released.increment() })
        let stopping = plan.stop()
        for done in stopping.barriers { done() }
        #expect(released.value == 2)
        #expect(plan.submit(.barrier {}) == .refused)
        #expect(plan.takeItems().isEmpty)
    }

    // MARK: - Shedding

    @Test func aConversationWhoseLaneIsOverTheLimitShedsItsNewMessages() {
        var plan = plan()
        let acceptance = accept([message(5), message(6)], into: &plan, backlog: 3)
        #expect(acceptance.accepted.isEmpty)
        #expect(acceptance.shed == [AdmissionPlan.Shedding(conversation: conversation, reason: .backlog(limit: 3), message: message(5).id)])
        #expect(acceptance.actions.isEmpty, "the lane has messages to drain first")
        #expect(plan.isShedding(conversation))
    }

    @Test func aSheddingConversationLeavesNewMessagesOnTheServerEvenOnceItsLaneHasRoom() {
        var plan = plan()
        _ = accept([message(5)], into: &plan, backlog: 3)
        let acceptance = accept([message(6)], into: &plan, backlog: 1)
        #expect(acceptance.accepted.isEmpty)
        #expect(acceptance.shed.isEmpty, "said once, when it started")
    }

    @Test func otherConversationsKeepTheirMessagesInOrderWhileOneSheds() {
        var plan = plan()
        let backlogs = [conversation: 3, other: 0]
        let acceptance = plan.accept(
            [message(5), message(1, in: other), message(6), message(2, in: other)],
            backlog: { backlogs[$0] ?? 0 }, gap: { _ in closedGap })
        #expect(acceptance.accepted.map(\.seq) == [1, 2])
        #expect(acceptance.accepted.allSatisfy { $0.conversationId == other })
    }

    @Test func messagesAboveAGapHoldingTheLimitAreShedAndTheEmptyLaneFetchesFromTheGap() {
        var plan = plan()
        let gap = openGap(waitingFor: 5, parked: 3, firstParked: 6)
        let acceptance = accept([message(9)], into: &plan, gap: gap)
        #expect(acceptance.accepted.isEmpty)
        #expect(acceptance.shed.map(\.reason) == [.parkedBehindGap(parked: 3, missingSeq: 5)])
        #expect(acceptance.actions == [.backfill(conversation, after: nil)])
    }

    @Test func aMessageBelowTheParkedOnesIsTakenSinceItMayFillTheGap() {
        var plan = plan()
        let acceptance = accept([message(5)], into: &plan, gap: openGap(waitingFor: 5, parked: 3, firstParked: 6))
        #expect(acceptance.accepted.map(\.seq) == [5])
        #expect(!plan.isShedding(conversation))
    }

    @Test func aDrainedLaneFetchesWhatItsConversationShedOnce() {
        var plan = plan()
        _ = accept([message(5)], into: &plan, backlog: 3)
        #expect(plan.laneDrained(conversation) == [.backfill(conversation, after: nil)])
        #expect(plan.laneDrained(conversation).isEmpty, "one fetch at a time")
    }

    @Test func aDrainedLaneThatShedNothingFetchesNothing() {
        var plan = plan()
        #expect(plan.laneDrained(conversation).isEmpty)
    }

    @Test func aStartedFetchLetsNewMessagesInAgain() {
        var plan = plan()
        _ = accept([message(5)], into: &plan, backlog: 3)
        _ = plan.laneDrained(conversation)
        plan.backfillStarted(conversation)
        #expect(accept([message(9)], into: &plan, backlog: 0).accepted.map(\.seq) == [9])
    }

    @Test func messagesShedDuringAFetchAreFetchedWhenItEndsOnAnEmptyLane() {
        var plan = plan()
        #expect(plan.requestBackfill(conversation, after: nil) == [.backfill(conversation, after: nil)])
        plan.backfillStarted(conversation)
        _ = accept([message(9)], into: &plan, backlog: 3)
        #expect(plan.backfillFinished(conversation, gap: closedGap, backlog: 0, now: now) == [.backfill(conversation, after: nil)])
    }

    @Test func aFetchWaitsForTheLaneToHoldLessThanHalfTheLimit() {
        let plan = plan(backlogLimit: 10)
        #expect(plan.waitsForRoom(backlog: 5))
        #expect(!plan.waitsForRoom(backlog: 4))
    }

    @Test func aFetchGoesOnPageByPageUntilTheServerHasNoMore() {
        let plan = plan()
        #expect(plan.afterPage(after: 4, lastSeq: 8, hasMore: true, gap: closedGap) == .nextPage(after: 8))
        #expect(plan.afterPage(after: 8, lastSeq: 10, hasMore: false, gap: closedGap) == .finished)
        #expect(plan.afterPage(after: 8, lastSeq: nil, hasMore: true, gap: closedGap) == .finished)
    }

    @Test func aFetchStopsWhenItsPagesWentPastTheMissingSeqWithAFullGap() {
        let plan = plan()
        let gap = openGap(waitingFor: 5, parked: 3, firstParked: 6)
        #expect(plan.afterPage(after: 4, lastSeq: 8, hasMore: true, gap: gap) == .missingFromPages(missingSeq: 5))
    }

    // MARK: - Gaps

    @Test func aGapFoundOpenIsCheckedAfterTheGapFillDelay() {
        var plan = plan()
        #expect(plan.gapFoundOpen(conversation, waitingFor: 5, now: now) == [.scheduleGapCheck(conversation, at: now.adding(.seconds(4)))])
        #expect(plan.gapFoundOpen(conversation, waitingFor: 5, now: now).isEmpty, "one check at a time")
    }

    @Test func theGapFillDelayIsAtLeastTheMinimum() {
        var plan = plan(gapFillDelay: .zero)
        #expect(plan.gapFoundOpen(conversation, waitingFor: 5, now: now) == [.scheduleGapCheck(conversation, at: now.adding(AdmissionPlan.minimumGapFillDelay))])
    }

    @Test func theSameSeqStillMissingAtTheCheckIsFetched() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        let actions = plan.gapCheckDue(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: now.adding(.seconds(4)))
        #expect(actions == [.fetchGap(conversation, missingSeq: 5, waited: .seconds(4))])
    }

    @Test func aMessageKnownToExistAndStillMissingAtTheCheckIsFetched() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        let known = ConversationLedger.Gap(expected: 5, parkedMessages: 0, firstParkedSeq: nil, isOpen: false, awaitsKnownMessage: true)
        let actions = plan.gapCheckDue(conversation, gap: known, backlog: 0, now: now.adding(.seconds(4)))
        #expect(actions == [.fetchGap(conversation, missingSeq: 5, waited: .seconds(4))])
    }

    private let knownMissing = ConversationLedger.Gap(
        expected: 5, parkedMessages: 0, firstParkedSeq: nil, isOpen: false, awaitsKnownMessage: true)

    @Test func aFetchThatDidNotBringAMessageKnownToExistIsCheckedAgain() {
        var plan = plan()
        #expect(plan.requestBackfill(conversation, after: nil) == [.backfill(conversation, after: nil)])
        plan.backfillStarted(conversation)
        let actions = plan.backfillFinished(conversation, gap: knownMissing, backlog: 0, now: now)
        #expect(actions == [.scheduleGapCheck(conversation, at: now.adding(.seconds(4)))])
    }

    @Test func aMessageKnownToExistIsLeftToTheFetchOfWhatTheLaneShed() {
        var plan = plan()
        _ = accept([message(5)], into: &plan, backlog: 3)
        #expect(plan.isShedding(conversation))
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        #expect(plan.gapCheckDue(conversation, gap: knownMissing, backlog: 2, now: now.adding(.seconds(4))).isEmpty)
        #expect(plan.gapCheckDue(conversation, gap: knownMissing, backlog: 0, now: now.adding(.seconds(4))).isEmpty, "not scheduled")
    }

    @Test func aMessageKnownToExistWhileTheLaneHoldsMessagesIsLookedAtAgainLater() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        let later = now.adding(.seconds(4))
        let actions = plan.gapCheckDue(conversation, gap: knownMissing, backlog: 2, now: later)
        #expect(actions == [.scheduleGapCheck(conversation, at: later.adding(.seconds(8)))])
    }

    @Test func aMessageThatCameBeforeTheCheckIsNotFetched() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        #expect(plan.gapCheckDue(conversation, gap: closedGap, backlog: 0, now: now.adding(.seconds(4))).isEmpty)
        #expect(plan.gapCheck(of: conversation) == nil)
    }

    @Test func aGapStillOpenAfterEachFetchIsCheckedTwiceAsLate() {
        var plan = plan()
        var clock = now
        var scheduled: [AdmissionPlan.Action] = plan.gapFoundOpen(conversation, waitingFor: 5, now: clock)
        var waits: [Duration] = []
        for _ in 0..<3 {
            guard case .scheduleGapCheck(_, let deadline) = scheduled.first else {
                Issue.record("no check scheduled: \(scheduled)")
                return
            }
            clock = deadline
            guard case .fetchGap(_, _, let waited) = plan.gapCheckDue(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: clock).first else {
                Issue.record("no fetch at the check")
                return
            }
            waits.append(waited)
            plan.backfillStarted(conversation)
            scheduled = plan.backfillFinished(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: clock)
        }
        #expect(waits == [.seconds(4), .seconds(8), .seconds(16)])
    }

    @Test func aGapClosedCancelsItsCheckAndTheNextGapStartsFromTheGapFillDelay() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        _ = plan.gapCheckDue(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: now)
        _ = plan.backfillFinished(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: now)
        #expect(plan.gapClosed(conversation) == [.cancelGapCheck(conversation)])
        #expect(plan.gapCheckDue(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: now).isEmpty, "cancelled")
        #expect(plan.gapFoundOpen(conversation, waitingFor: 5, now: now) == [.scheduleGapCheck(conversation, at: now.adding(.seconds(4)))])
    }

    @Test func aGapFoundClosedAtItsCheckFetchesWhatWasShedOnceTheLaneIsEmpty() {
        var plan = plan()
        _ = accept([message(9)], into: &plan, backlog: 3)
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        #expect(plan.gapCheckDue(conversation, gap: closedGap, backlog: 0, now: now) == [.backfill(conversation, after: nil)])
        #expect(plan.gapCheck(of: conversation) == nil)
    }

    @Test func anotherSeqMissingAtTheCheckIsCheckedAgainAfterTheGapFillDelay() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        let later = now.adding(.seconds(4))
        #expect(plan.gapCheckDue(conversation, gap: openGap(waitingFor: 7), backlog: 0, now: later) == [.scheduleGapCheck(conversation, at: later.adding(.seconds(4)))])
    }

    @Test func aGapStillOpenWhileAFetchRunsIsCheckedAgainInsteadOfFetchedTwice() {
        var plan = plan()
        _ = plan.requestBackfill(conversation, after: nil)
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        let later = now.adding(.seconds(4))
        #expect(plan.gapCheckDue(conversation, gap: openGap(waitingFor: 5), backlog: 0, now: later) == [.scheduleGapCheck(conversation, at: later.adding(.seconds(8)))])
    }

    @Test func stopCancelsTheScheduledGapChecks() {
        var plan = plan()
        _ = plan.gapFoundOpen(conversation, waitingFor: 5, now: now)
        _ = plan.gapFoundOpen(other, waitingFor: 2, now: now)
        #expect(plan.stop().actions == [.cancelGapCheck(conversation), .cancelGapCheck(other)])
    }

    // MARK: - Rewinds

    @Test func aRewindFetchesFromTheRewoundSeq() {
        var plan = plan()
        #expect(plan.rewound(conversation, contiguous: 12) == [.backfill(conversation, after: 12)])
        #expect(plan.pageStart(in: conversation, after: 12) == 12)
    }

    @Test func aRewindDuringAFetchTakesItBackWithItsNextPage() {
        var plan = plan()
        #expect(plan.requestBackfill(conversation, after: nil) == [.backfill(conversation, after: nil)])
        #expect(plan.rewound(conversation, contiguous: 12).isEmpty, "the running fetch takes it over")
        #expect(plan.pageStart(in: conversation, after: 20) == 12)
        #expect(plan.pageStart(in: conversation, after: 25) == 25, "taken once")
    }

    @Test func aRewindAfterAFetchsLastPageStartsAnotherFetchFromThere() {
        var plan = plan()
        _ = plan.requestBackfill(conversation, after: nil)
        _ = plan.rewound(conversation, contiguous: 12)
        #expect(plan.backfillFinished(conversation, gap: closedGap, backlog: 0, now: now) == [.backfill(conversation, after: 12)])
    }

    @Test func twoRewindsGoBackToTheLowerSeq() {
        var plan = plan()
        _ = plan.requestBackfill(conversation, after: nil)
        _ = plan.rewound(conversation, contiguous: 15)
        _ = plan.rewound(conversation, contiguous: 12)
        #expect(plan.pageStart(in: conversation, after: 20) == 12)
    }

    // MARK: - Fetches at once

    private func conversations(_ count: Int) -> [Conversation.ID] {
        (1...count).map { Conversation.ID("C_\($0)") }
    }

    @Test func aFewFetchesRunAtOnceAndTheOthersWaitTheirTurnInOrder() {
        var plan = plan()
        let ids = conversations(AdmissionPlan.maximumFetches + 2)
        let started = ids.flatMap { plan.requestBackfill($0, after: 7) }
        #expect(started == ids.prefix(AdmissionPlan.maximumFetches).map { .backfill($0, after: 7) })
        #expect(plan.backfillFinished(ids[0], gap: closedGap, backlog: 1, now: now)
            == [.backfill(ids[AdmissionPlan.maximumFetches], after: 7)])
        #expect(plan.backfillFinished(ids[1], gap: closedGap, backlog: 1, now: now)
            == [.backfill(ids[AdmissionPlan.maximumFetches + 1], after: 7)])
        #expect(plan.backfillFinished(ids[2], gap: closedGap, backlog: 1, now: now).isEmpty, "none waits any more")
    }

    @Test func aConversationWaitingForItsFetchIsNotFetchedTwice() {
        var plan = plan()
        let ids = conversations(AdmissionPlan.maximumFetches + 1)
        for id in ids { _ = plan.requestBackfill(id, after: nil) }
        let waiting = ids[AdmissionPlan.maximumFetches]
        #expect(plan.requestBackfill(waiting, after: nil).isEmpty)
        #expect(plan.rewound(waiting, contiguous: 3).isEmpty, "its fetch, when it starts, goes back there")
        #expect(plan.backfillFinished(ids[0], gap: closedGap, backlog: 1, now: now) == [.backfill(waiting, after: nil)])
        #expect(plan.pageStart(in: waiting, after: 8) == 3)
    }

    @Test func aFetchDecidedWhileOthersWaitQueuesBehindThem() {
        var plan = plan()
        let ids = conversations(AdmissionPlan.maximumFetches + 1)
        for id in ids { _ = plan.requestBackfill(id, after: nil) }
        // The first fetch's conversation was rewound meanwhile: its next fetch goes after the one that waited.
        _ = plan.rewound(ids[0], contiguous: 2)
        #expect(plan.backfillFinished(ids[0], gap: closedGap, backlog: 1, now: now)
            == [.backfill(ids[AdmissionPlan.maximumFetches], after: nil)])
        #expect(plan.backfillFinished(ids[1], gap: closedGap, backlog: 1, now: now) == [.backfill(ids[0], after: 2)])
    }

    @Test func aFetchWaitingForRoomInItsLaneGivesItsPlaceToOneThatWaits() {
        var plan = plan()
        let ids = conversations(AdmissionPlan.maximumFetches + 2)
        for id in ids { _ = plan.requestBackfill(id, after: nil) }
        #expect(plan.fetchPaused() == [.backfill(ids[AdmissionPlan.maximumFetches], after: nil)])
        plan.fetchResumed()
        // Five run now: the next place goes to the last one only once two have finished.
        #expect(plan.backfillFinished(ids[1], gap: closedGap, backlog: 1, now: now).isEmpty)
        #expect(plan.backfillFinished(ids[2], gap: closedGap, backlog: 1, now: now)
            == [.backfill(ids[AdmissionPlan.maximumFetches + 1], after: nil)])
    }

    @Test func stopDropsTheFetchesThatWait() {
        var plan = plan()
        let ids = conversations(AdmissionPlan.maximumFetches + 1)
        for id in ids { _ = plan.requestBackfill(id, after: nil) }
        _ = plan.stop()
        #expect(plan.backfillFinished(ids[0], gap: closedGap, backlog: 0, now: now).isEmpty)
    }

    @Test func afterStopNothingIsFetchedOrScheduled() {
        var plan = plan()
        _ = accept([message(5)], into: &plan, backlog: 3)
        _ = plan.stop()
        #expect(plan.laneDrained(conversation).isEmpty)
        #expect(plan.rewound(conversation, contiguous: 4).isEmpty)
        #expect(plan.gapFoundOpen(conversation, waitingFor: 5, now: now).isEmpty)
        #expect(plan.requestBackfill(other, after: nil).isEmpty)
        #expect(plan.pageStart(in: conversation, after: 4) == nil)
    }
}

/// A count several closures add to.
private final class Counter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}
