@testable import BotRuntime
import Testing

/// How many messages a backfill page asks for after the HTTP client refused a page as too large.
@Suite struct BackfillPageSizeTests {
    @Test func aRefusedPageIsAskedForAgainWithTheHalvedSize() {
        var size = BackfillPageSize(configured: 100)
        let shrank = size.responseRefused()
        #expect(shrank)
        #expect(size.limit == ResponseSizeHalving.next(after: 100))
    }

    @Test func aPageOfOneMessageRefusedCannotShrinkFurther() {
        var size = BackfillPageSize(configured: 1)
        let shrank = size.responseRefused()
        #expect(!shrank)
        #expect(size.limit == 1)
    }

    @Test func aConfiguredSizeBelowOneAsksForOneMessage() {
        #expect(BackfillPageSize(configured: 0).limit == 1)
    }
}
