@testable import BotRuntime
import Testing

/// How many messages a backfill page asks for after the HTTP client refused a page as too large.
@Suite struct BackfillPageSizeTests {
    @Test func aRefusedPageIsAskedForAgainAtHalfTheSizeDownToOneMessage() {
        var size = BackfillPageSize(configured: 100)
        var limits = [size.limit]
        while size.responseRefused() { limits.append(size.limit) }
        #expect(limits == [100, 50, 25, 12, 6, 3, 1])
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
