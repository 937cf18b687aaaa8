import ChatterBots
import Testing

@testable import BotRuntime

/// The seq rules of one conversation, without a store: what is next, parked, a duplicate or passed over, and what
/// the gap checks see.
@Suite struct ConversationLedgerTests {
    private func ledger(contiguous: Int = 4) -> ConversationLedger {
        var ledger = ConversationLedger()
        ledger.reset(contiguous: contiguous, lastSeq: contiguous)
        return ledger
    }

    private func message(_ seq: Int, from sender: User.ID = Fixture.alice) -> Message {
        Fixture.message(seq: seq, from: sender)
    }

    @discardableResult
    private func admit(_ seq: Int, into ledger: inout ConversationLedger, from sender: User.ID = Fixture.alice, seen: Bool = false) -> MessageAdmission {
        ledger.admit(message(seq, from: sender), bot: Fixture.bot) { seen }
    }

    // MARK: - Arrivals

    @Test func theMessageAfterTheContiguousSeqIsDeliveredAndHandedOut() {
        var ledger = ledger()
        #expect(admit(5, into: &ledger) == .deliver)
        #expect(ledger.expectedThrough == 5)
    }

    @Test func aMessageAfterOneHandedOutIsDeliveredBeforeTheFirstIsHandled() {
        var ledger = ledger()
        admit(5, into: &ledger)
        #expect(admit(6, into: &ledger) == .deliver, "pipelined: 5 is with its handler")
    }

    @Test func aMessageAheadOfAGapIsParked() {
        var ledger = ledger()
        #expect(admit(7, into: &ledger) == .parked)
        #expect(ledger.parked.messageCount == 1)
        #expect(ledger.expectedThrough == 4)
    }

    @Test func aMessageAtOrBelowWhatIsHandedOutIsADuplicate() {
        var ledger = ledger()
        admit(5, into: &ledger)
        #expect(admit(5, into: &ledger) == .duplicate)
        #expect(admit(3, into: &ledger) == .duplicate)
    }

    @Test func aMessageTheStoreHasSeenIsADuplicate() {
        var ledger = ledger()
        #expect(admit(5, into: &ledger, seen: true) == .duplicate)
        #expect(ledger.expectedThrough == 4)
    }

    @Test func theStoreIsAskedAboutAMessageOnlyWhenItsSeqCannotPlaceIt() {
        var ledger = ledger()
        var asked = 0
        _ = ledger.admit(message(3), bot: Fixture.bot) { asked += 1; return false }
        #expect(asked == 0, "3 is below the contiguous seq")
        _ = ledger.admit(message(5), bot: Fixture.bot) { asked += 1; return false }
        #expect(asked == 1)
    }

    @Test func aSecondCopyOfAParkedMessageIsDeliveredOnceTheGapBeforeItClosed() {
        var ledger = ledger()
        admit(6, into: &ledger)
        #expect(admit(6, into: &ledger) == .duplicate, "5 is still missing")
        admit(5, into: &ledger)
        #expect(admit(6, into: &ledger) == .deliver)
    }

    @Test func aMessageOfAConversationWithoutACursorIsUnknown() {
        var ledger = ConversationLedger()
        #expect(admit(1, into: &ledger) == .unknownConversation)
    }

    @Test func admittingAnOrdinaryMessageDoesNotAskForTheCursorToBeWritten() {
        var ledger = ledger()
        ledger.cursorWritten()
        admit(5, into: &ledger)
        admit(9, into: &ledger)
        #expect(!ledger.cursorNeedsWrite)
        #expect(ledger.cursor?.lastSeq == 9, "raised in memory")
    }

    // MARK: - The bot's own messages

    @Test func theBotsOwnNextMessageIsPassedOverAtOnce() {
        var ledger = ledger()
        #expect(admit(5, into: &ledger, from: Fixture.bot) == .own)
        #expect(ledger.cursor?.contiguous == 5)
        #expect(ledger.cursorNeedsWrite)
    }

    @Test func theBotsOwnMessageAheadIsPassedOverWhenTheContiguousSeqReachesIt() {
        var ledger = ledger()
        ledger.passOwn(seq: 6)
        #expect(ledger.cursor?.contiguous == 4)
        #expect(admit(5, into: &ledger) == .deliver)
        #expect(ledger.handled(5) == 6, "6 is the bot's own")
        #expect(ledger.parked.isEmpty)
    }

    @Test func anOwnMarkerWaitsForTheConversationsCursor() {
        var ledger = ConversationLedger()
        ledger.passOwn(seq: 3)
        ledger.reset(contiguous: 2, lastSeq: 3)
        #expect(ledger.cursor?.contiguous == 3)
    }

    @Test func anOwnMessageRightAfterWhatIsHandedOutMovesTheHandOutMark() {
        var ledger = ledger()
        admit(5, into: &ledger)
        ledger.passOwn(seq: 6)
        #expect(admit(7, into: &ledger) == .deliver, "6 is the bot's own, 5 is with its handler")
    }

    // MARK: - Handling

    @Test func onlyTheNextMessageMayBeHandled() {
        let ledger = ledger()
        #expect(ledger.position(of: 5) == .next)
        #expect(ledger.position(of: 4) == .handled)
        #expect(ledger.position(of: 7) == .outOfOrder(expectedSeq: 5))
        #expect(ConversationLedger().position(of: 1) == .unknownConversation)
    }

    @Test func ownMarkersAfterTheContiguousSeqCountWhenJudgingTheNextMessage() {
        var ledger = ledger()
        ledger.passOwn(seq: 6)
        ledger.passOwn(seq: 5)
        #expect(ledger.cursor?.contiguous == 6)
        ledger.passOwn(seq: 8)
        #expect(ledger.position(of: 7) == .next)
        #expect(ledger.handled(7) == 8)
    }

    @Test func handlingMovesTheContiguousSeqAndEndsTheHandOutMark() {
        var ledger = ledger()
        admit(5, into: &ledger)
        #expect(ledger.handled(5) == 5)
        #expect(ledger.handedOut == nil)
        #expect(ledger.cursorNeedsWrite)
    }

    // MARK: - Handing out parked messages

    @Test func aMessageThatClosesAGapReleasesWhatWaitedBehindIt() {
        var ledger = ledger()
        admit(6, into: &ledger)
        admit(7, into: &ledger)
        #expect(ledger.release().isEmpty, "5 is missing")
        #expect(admit(5, into: &ledger) == .deliver)
        #expect(ledger.release().map(\.seq) == [6, 7])
        #expect(ledger.expectedThrough == 7)
    }

    @Test func handingOutStopsAtTheLimitAndAtAHole() {
        var ledger = ledger()
        for seq in [6, 7, 8, 10] { admit(seq, into: &ledger) }
        admit(5, into: &ledger)
        #expect(ledger.handOutParked(limit: 2).map(\.seq) == [6, 7])
        #expect(ledger.handOutParked(limit: 9).map(\.seq) == [8])
        #expect(ledger.hasDeliverableMessage == false, "9 is missing")
    }

    @Test func aRewindForgetsWhatWasHandedOutSoItIsHandedOutAgain() {
        var ledger = ledger()
        admit(5, into: &ledger)
        admit(6, into: &ledger)
        #expect(ledger.rewind() == 4)
        #expect(admit(5, into: &ledger) == .deliver)
    }

    @Test func resettingDropsWhatIsParkedAtOrBelowTheNewContiguousSeq() {
        var ledger = ledger()
        admit(6, into: &ledger)
        admit(9, into: &ledger)
        ledger.reset(contiguous: 7, lastSeq: 7)
        #expect(ledger.parked.messageCount == 1)
        #expect(ledger.cursor == ConversationLedger.Cursor(contiguous: 7, lastSeq: 7))
    }

    // MARK: - Updates of messages

    private func update(_ seq: Int, body: String, from sender: User.ID = Fixture.alice) -> Message {
        var message = message(seq, from: sender)
        message.body = body
        message.editedAt = Timestamp(millisecondsSince1970: 1_000)
        return message
    }

    @Test func anUpdateOfAMessageHandledOrHandedOutGoesToTheBot() {
        var ledger = ledger()
        admit(5, into: &ledger)
        #expect(ledger.placeUpdate(update(4, body: "handled"), bot: Fixture.bot) == .deliver)
        #expect(ledger.placeUpdate(update(5, body: "handed out"), bot: Fixture.bot) == .deliver)
    }

    @Test func aRemovedConversationPassesOverTheMessagesAndUpdatesOfOthers() {
        var ledger = ledger()
        ledger.isRemoved = true
        #expect(admit(5, into: &ledger) == .removedConversation)
        #expect(ledger.placeUpdate(update(4, body: "edited"), bot: Fixture.bot) == .removedConversation)
        #expect(ledger.gap.parkedMessages == 0)
        #expect(admit(5, into: &ledger, from: Fixture.bot) == .own, "the bot's own still passes over its seq")
    }

    @Test func anUpdateOfAParkedMessageChangesTheCopyHandedOutLater() {
        var ledger = ledger()
        admit(6, into: &ledger)
        #expect(ledger.placeUpdate(update(6, body: "edited"), bot: Fixture.bot) == .intoParked)
        #expect(ledger.parked.messageCount == 1)
        admit(5, into: &ledger)
        ledger.handled(5)
        #expect(ledger.handOutParked(limit: 9).map(\.body) == ["edited"])
    }

    @Test func anUpdateOfAMessageNotReceivedIsDroppedAndItsMessageAwaited() {
        var ledger = ledger()
        admit(7, into: &ledger)
        #expect(ledger.placeUpdate(update(6, body: "not here yet"), bot: Fixture.bot) == .dropped)
        #expect(ledger.placeUpdate(update(9, body: "beyond"), bot: Fixture.bot) == .dropped)
        #expect(ledger.parked.messageCount == 1)
        #expect(ledger.cursor?.lastSeq == 9)
        #expect(ledger.gap.isOpen, "7 waits behind 5 and 6, and the gap's fetch brings 8 and 9 after them")
    }

    @Test func aLostNewestMessageIsAwaitedOnceAnUpdateNamesIt() {
        var ledger = ledger()
        #expect(!ledger.gap.awaitsKnownMessage)
        #expect(ledger.placeUpdate(update(5, body: "edited"), bot: Fixture.bot) == .dropped)
        #expect(ledger.gap == ConversationLedger.Gap(expected: 5, parkedMessages: 0, firstParkedSeq: nil, isOpen: false, awaitsKnownMessage: true))
    }

    @Test func anUpdateOfTheBotsOwnMessageOrInAnUnknownConversationGoesToTheBot() {
        var ledger = ledger()
        #expect(ledger.placeUpdate(update(8, body: "mine", from: Fixture.bot), bot: Fixture.bot) == .deliver)
        var unknown = ConversationLedger()
        #expect(unknown.placeUpdate(update(3, body: "anywhere"), bot: Fixture.bot) == .deliver)
    }

    // MARK: - Units

    @Test func aRolledBackUnitLeavesTheLedgerAsItWas() {
        var ledger = ledger()
        admit(6, into: &ledger)
        ledger.passOwn(seq: 8)
        admit(5, into: &ledger)
        ledger.cursorWritten()
        let before = (ledger.cursor, ledger.handedOut, ledger.parked.entries.map(\.seq), ledger.cursorNeedsWrite)
        ledger.beginUnit()
        ledger.handled(5)
        ledger.handled(6)
        ledger.passOwn(seq: 9)
        ledger.reset(contiguous: 12, lastSeq: 12)
        ledger.rollBackUnit()
        #expect(ledger.cursor == before.0)
        #expect(ledger.handedOut == before.1)
        #expect(ledger.parked.entries.map(\.seq) == before.2)
        #expect(ledger.parked.messageCount == 1)
        #expect(ledger.cursorNeedsWrite == before.3)
    }

    @Test func anEndedUnitKeepsItsChanges() {
        var ledger = ledger()
        admit(5, into: &ledger)
        ledger.beginUnit()
        ledger.handled(5)
        ledger.endUnit()
        ledger.rollBackUnit()
        #expect(ledger.cursor?.contiguous == 5)
    }

    // MARK: - Gaps

    @Test func aGapIsOpenWhenAMessageWaitsBeyondTheNextSeq() {
        var ledger = ledger()
        admit(6, into: &ledger)
        #expect(ledger.gap == ConversationLedger.Gap(expected: 5, parkedMessages: 1, firstParkedSeq: 6, isOpen: true))
    }

    @Test func ownMarkersAtTheNextSeqArePassedOverBeforeTheGapIsJudged() {
        var open = ledger()
        admit(5, into: &open)
        open.passOwn(seq: 6)
        admit(8, into: &open)
        #expect(open.gap.isOpen, "6 is the bot's own; 7 is missing")
        #expect(open.gap.expected == 7)
        var closed = ledger()
        admit(5, into: &closed)
        closed.passOwn(seq: 6)
        admit(7, into: &closed)
        #expect(!closed.gap.isOpen)
    }

    @Test func handedOutMessagesStillParkedDoNotHideAGapAfterThem() {
        var ledger = ledger()
        admit(5, into: &ledger)
        admit(7, into: &ledger)
        admit(9, into: &ledger)
        admit(6, into: &ledger)
        #expect(ledger.release().map(\.seq) == [7])
        #expect(ledger.gap.isOpen, "5 to 7 are with their handler; 8 is missing")
        #expect(ledger.gap.expected == 8)
        #expect(ledger.gap.firstParkedSeq == 9)
        #expect(ledger.gap.parkedMessages == 2)
    }

    @Test func aLedgerWithNothingParkedHasNoGap() {
        #expect(!ledger().gap.isOpen)
        #expect(ConversationLedger().gap.expected == 1)
    }
}

/// A conversation lane's copy of its ledger: it learns the contiguous seq from finished handlers, commits and cursor
/// reads, and the bot's own messages from the store's acks, and starts a message only when it is next.
@Suite struct ConversationLedgerLaneCopyTests {
    @Test func withoutAContiguousSeqTheLaneAsksTheStore() {
        #expect(ConversationLedger().position(of: 1) == .unknownConversation)
    }

    @Test func theNextSeqGoesAndAGapWaits() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 4)
        #expect(ledger.position(of: 5) == .next)
        #expect(ledger.position(of: 6) == .outOfOrder(expectedSeq: 5))
        #expect(ledger.position(of: 4) == .handled)
    }

    @Test func theBotsOwnMessagesAreCountedAsPassed() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 4)
        ledger.notePassedOwn(5)
        ledger.notePassedOwn(6)
        #expect(ledger.position(of: 7) == .next)
        ledger.notePassedOwn(9)
        #expect(ledger.position(of: 10) == .outOfOrder(expectedSeq: 7))
    }

    @Test func theContiguousSeqNeverMovesBack() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 8)
        ledger.raiseContiguous(to: 3)
        #expect(ledger.position(of: 9) == .next)
    }

    @Test func ownMessagesAckedOutOfOrderOrTwiceAreCountedOnce() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 4)
        ledger.notePassedOwn(7)
        ledger.notePassedOwn(5)
        #expect(ledger.position(of: 7) == .outOfOrder(expectedSeq: 6))
        ledger.notePassedOwn(6)
        ledger.notePassedOwn(6)
        #expect(ledger.position(of: 8) == .next)
        #expect(ledger.position(of: 7) == .handled)
    }

    @Test func aRaisedContiguousSeqDropsTheOwnMessagesItPassed() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 4)
        ledger.notePassedOwn(6)
        ledger.notePassedOwn(9)
        ledger.raiseContiguous(to: 7)
        #expect(ledger.position(of: 8) == .next)
        ledger.raiseContiguous(to: 8)
        #expect(ledger.position(of: 10) == .next)
        ledger.raiseContiguous(to: 10)
        #expect(ledger.parked.isEmpty)
    }

    @Test func ownMessagesNotedBeforeTheContiguousSeqIsKnownAreLeftToTheStore() {
        var ledger = ConversationLedger()
        ledger.notePassedOwn(5)
        ledger.raiseContiguous(to: 4)
        #expect(ledger.position(of: 6) == .outOfOrder(expectedSeq: 5), "the store's cursor read counts 5 when it is passed")
    }

    @Test func aForgottenContiguousSeqKeepsTheOwnMessagesKnown() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 4)
        ledger.notePassedOwn(6)
        ledger.forgetContiguous()
        #expect(ledger.position(of: 5) == .unknownConversation)
        ledger.raiseContiguous(to: 5)
        #expect(ledger.position(of: 7) == .next)
    }

    @Test func tooManyOwnMarkersAreForgottenAndTheStoreAskedAgain() {
        var ledger = ConversationLedger()
        ledger.raiseContiguous(to: 1)
        for seq in 0...ConversationLedger.laneMarkerLimit { ledger.notePassedOwn(3 + seq) }
        #expect(ledger.position(of: 2) == .unknownConversation)
    }
}
