@testable import BotRuntime
import ChatterBots
import Testing

/// How many messages a conversation's backfill pages ask for after the HTTP client refused a page as too large.
@Suite struct BackfillPageSizeTests {
    private static let responseLimit = 1 << 20
    /// 4,096 characters of "e" and six combining accents: 53,248 bytes of UTF-8.
    private static let largeBody = String(repeating: "e" + String(repeating: "\u{0301}", count: 6), count: 4_096)

    private func messages(_ count: Int, body: String, in conversation: Conversation.ID = Fixture.direct) -> [Message] {
        (1...count).map { Fixture.message(conversation, seq: $0, body: body) }
    }

    @Test func aRefusedPageIsAskedForAgainWithTheHalvedSize() {
        var sizes = BackfillPageSize(configured: 100)
        let fewer = sizes.pageRefused(in: Fixture.direct, responseLimit: Self.responseLimit)
        #expect(fewer == ResponseSizeHalving.next(after: 100))
        #expect(sizes.limit(in: Fixture.direct) == fewer)
    }

    @Test func aPageOfOneMessageRefusedCannotShrinkFurther() {
        var sizes = BackfillPageSize(configured: 1)
        #expect(sizes.pageRefused(in: Fixture.direct, responseLimit: Self.responseLimit) == nil)
        #expect(sizes.limit(in: Fixture.direct) == 1)
    }

    @Test func aConfiguredSizeBelowOneAsksForOneMessage() {
        #expect(BackfillPageSize(configured: 0).limit(in: Fixture.direct) == 1)
    }

    @Test func theSmallerSizeIsTheRefusedConversationsOnly() {
        var sizes = BackfillPageSize(configured: 100)
        _ = sizes.pageRefused(in: Fixture.direct, responseLimit: Self.responseLimit)
        #expect(sizes.limit(in: Fixture.group) == 100)
        #expect(sizes.rememberedCount == 1)
    }

    @Test func pagesOfMessagesAsLargeAsTheRefusedOnesKeepTheSmallerSize() {
        var sizes = BackfillPageSize(configured: 100)
        while let fewer = sizes.pageRefused(in: Fixture.direct, responseLimit: Self.responseLimit), fewer > 12 {}
        for _ in 0..<3 { sizes.pageFetched(messages(12, body: Self.largeBody), in: Fixture.direct) }
        #expect(sizes.limit(in: Fixture.direct) == 12)
    }

    @Test func pagesOfSmallMessagesDoubleTheSizeBackToTheConfiguredOneAndTheConversationIsForgotten() {
        var sizes = BackfillPageSize(configured: 100)
        while let fewer = sizes.pageRefused(in: Fixture.direct, responseLimit: Self.responseLimit), fewer > 12 {}
        var limits = [sizes.limit(in: Fixture.direct)]
        while sizes.rememberedCount > 0 {
            sizes.pageFetched(messages(sizes.limit(in: Fixture.direct), body: "hi"), in: Fixture.direct)
            limits.append(sizes.limit(in: Fixture.direct))
        }
        #expect(limits == [12, 24, 48, 96, 100])
    }

    @Test func anEmptyPageLeavesTheSize() {
        var sizes = BackfillPageSize(configured: 100)
        _ = sizes.pageRefused(in: Fixture.direct, responseLimit: Self.responseLimit)
        sizes.pageFetched([], in: Fixture.direct)
        #expect(sizes.limit(in: Fixture.direct) == 50)
    }

    @Test func pagesOfAConversationNeverRefusedAreNotRemembered() {
        var sizes = BackfillPageSize(configured: 100)
        sizes.pageFetched(messages(100, body: Self.largeBody), in: Fixture.direct)
        #expect(sizes.rememberedCount == 0)
        #expect(sizes.limit(in: Fixture.direct) == 100)
    }
}
