import ChatterBots
import Testing

@testable import BotRuntime

/// What a conversation holds above its contiguous seq: the count of parked messages is what caps them, so it
/// must follow every insert and removal, and leave own markers out.
@Suite struct ParkedMessagesTests {
    @Test func theMessageCountLeavesOwnMarkersOutAndFollowsInsertsAndRemovals() {
        var parked = ParkedMessages()
        parked.insert(.message(Fixture.message(seq: 7)), at: 7)
        parked.insert(.own, at: 5)
        parked.insert(.message(Fixture.message(seq: 6)), at: 6)
        #expect(parked.messageCount == 2)
        #expect(parked.firstSeq == 5)
        parked.remove(at: 6)
        #expect(parked.messageCount == 1)
        parked.remove(at: 5)
        #expect(parked.messageCount == 1, "an own marker was never counted")
        #expect(parked.firstSeq == 7)
    }

    @Test func aSeqAlreadyHeldIsNotCountedTwice() {
        var parked = ParkedMessages()
        let first = parked.insert(.message(Fixture.message(seq: 4)), at: 4)
        let again = parked.insert(.message(Fixture.message(seq: 4)), at: 4)
        #expect(first)
        #expect(!again)
        #expect(parked.messageCount == 1)
    }

    @Test func removingThroughASeqUncountsTheMessagesItRemoves() {
        var parked = ParkedMessages()
        for seq in 3...6 { parked.insert(seq == 4 ? .own : .message(Fixture.message(seq: seq)), at: seq) }
        let removed = parked.removeThrough(5)
        #expect(removed.map(\.seq) == [3, 4, 5])
        #expect(parked.messageCount == 1)
        #expect(parked.firstSeq == 6)
        _ = parked.removeThrough(9)
        #expect(parked.messageCount == 0)
        #expect(parked.firstSeq == nil)
    }

    private func memory(contiguous: Int, handedOut: Int? = nil, parked entries: [(Int, ParkedMessages.Entry)]) -> CursorMemory {
        var parked = ParkedMessages()
        for (seq, entry) in entries { parked.insert(entry, at: seq) }
        let memory = CursorMemory()
        memory.publish(
            cursors: [Fixture.direct: CursorWorkspace.Cursor(contiguous: contiguous, lastSeq: entries.last?.0 ?? contiguous)],
            handedOut: handedOut.map { [Fixture.direct: $0] } ?? [:], parked: [Fixture.direct: parked])
        return memory
    }

    @Test func aGapIsOpenWhenAMessageWaitsBeyondTheNextSeq() {
        let gap = memory(contiguous: 4, parked: [(6, .message(Fixture.message(seq: 6)))]).gap(in: Fixture.direct)
        #expect(gap.isOpen)
        #expect(gap.expected == 5)
        #expect(gap.firstParkedSeq == 6)
    }

    @Test func ownMarkersAtTheNextSeqArePassedOverBeforeTheGapIsJudged() {
        let open = memory(contiguous: 4, parked: [(5, .own), (7, .message(Fixture.message(seq: 7)))]).gap(in: Fixture.direct)
        #expect(open.isOpen, "5 is the bot's own; 6 is missing")
        #expect(open.expected == 6)
        let closed = memory(contiguous: 4, parked: [(5, .own), (6, .message(Fixture.message(seq: 6)))]).gap(in: Fixture.direct)
        #expect(!closed.isOpen)
    }

    @Test func handedOutMessagesStillParkedDoNotHideAGapAfterThem() {
        let gap = memory(contiguous: 4, handedOut: 5, parked: [
            (5, .message(Fixture.message(seq: 5))), (7, .message(Fixture.message(seq: 7))),
        ]).gap(in: Fixture.direct)
        #expect(gap.isOpen, "5 is with its handler; 6 is missing")
        #expect(gap.expected == 6)
        #expect(gap.firstParkedSeq == 7)
        #expect(gap.parkedMessages == 2)
    }
}
