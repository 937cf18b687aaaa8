import Testing

@testable import ChatterBots

/// How `GET /conversations?updatedSince=` is paged so that conversations sharing a millisecond are not skipped.
@Suite struct ConversationListPagingTests {
    private func conversation(_ id: String, at milliseconds: Int64) -> Conversation {
        let time = Timestamp(millisecondsSince1970: milliseconds)
        return Conversation(id: Conversation.ID(id), kind: .group, members: [], lastSeq: 0, createdAt: time, updatedAt: time)
    }

    @Test func theFirstPageAsksForEveryConversation() {
        #expect(ConversationListPaging(pageSize: 2).updatedSince == nil)
    }

    @Test func aPageShorterThanThePageSizeIsTheLast() {
        var paging = ConversationListPaging(pageSize: 3)
        #expect(paging.pageReceived([conversation("A", at: 10), conversation("B", at: 11)]) == .done)
        #expect(paging.pageReceived([]) == .done)
    }

    @Test func theNextPageAsksFromAMillisecondBeforeTheLastSoThatItsTiesComeAgain() {
        var paging = ConversationListPaging(pageSize: 2)
        #expect(paging.pageReceived([conversation("A", at: 10), conversation("B", at: 20)]) == .more)
        #expect(paging.updatedSince == Timestamp(millisecondsSince1970: 19))
    }

    @Test func aFullPageOfOneMillisecondIsPassedAfterThatMillisecond() {
        var paging = ConversationListPaging(pageSize: 2, resumingAfter: Timestamp(millisecondsSince1970: 20))
        #expect(paging.pageReceived([conversation("B", at: 20), conversation("C", at: 20)]) == .morePastAFullMillisecond)
        #expect(paging.updatedSince == Timestamp(millisecondsSince1970: 20))
    }

    /// Pages `all` as the service does (oldest first, after `updatedSince`, `pageSize` at most) until the paging is
    /// done; returns what was listed and how many requests it took (at most 10).
    private func list(_ all: [Conversation], pageSize: Int) -> (listed: Set<Conversation.ID>, requests: Int) {
        var paging = ConversationListPaging(pageSize: pageSize)
        var listed: Set<Conversation.ID> = []
        var requests = 0
        while requests < 10 {
            requests += 1
            let since = paging.updatedSince?.millisecondsSince1970 ?? .min
            let page = Array(all.filter { $0.updatedAt.millisecondsSince1970 > since }.prefix(pageSize))
            listed.formUnion(page.map(\.id))
            if paging.pageReceived(page) == .done { break }
        }
        return (listed, requests)
    }

    @Test func conversationsSharingTheMillisecondOfAFullPagesLastAreListed() {
        let all = [conversation("A", at: 10), conversation("B", at: 20), conversation("C", at: 20), conversation("D", at: 30)]
        let (listed, requests) = list(all, pageSize: 2)
        #expect(listed == ["A", "B", "C", "D"])
        #expect(requests < 10)
    }

    @Test func aMillisecondFillingAWholePageIsPassedSkippingTheRestOfIt() {
        let all = [conversation("A", at: 10), conversation("B", at: 20), conversation("C", at: 20), conversation("D", at: 20)]
        let (listed, requests) = list(all, pageSize: 2)
        #expect(listed == ["A", "B", "C"])
        #expect(requests < 10)
    }

    @Test func aResumedListingAsksFromAMillisecondBeforeTheNewestOneItRecorded() {
        let paging = ConversationListPaging(pageSize: 100, resumingAfter: Timestamp(millisecondsSince1970: 20))
        #expect(paging.updatedSince == Timestamp(millisecondsSince1970: 19))
    }

    @Test func aPageNoNewerThanItsUpdatedSinceEndsThePaging() {
        var paging = ConversationListPaging(pageSize: 2, resumingAfter: Timestamp(millisecondsSince1970: 31))
        #expect(paging.pageReceived([conversation("A", at: 10), conversation("B", at: 20)]) == .done)
    }

    @Test func theEarliestTimeHasNoMillisecondBeforeIt() {
        let paging = ConversationListPaging(pageSize: 2, resumingAfter: Timestamp(millisecondsSince1970: .min))
        #expect(paging.updatedSince == Timestamp(millisecondsSince1970: .min))
    }
}
