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
}
