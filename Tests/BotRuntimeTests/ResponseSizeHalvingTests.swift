@testable import BotRuntime
import Testing

/// How much less a request asks for after its response was refused as too large.
@Suite struct ResponseSizeHalvingTests {
    @Test func eachRefusalHalvesTheCountRoundingDownToOne() {
        var counts = [100]
        while let next = ResponseSizeHalving.next(after: counts[counts.count - 1]) { counts.append(next) }
        #expect(counts == [100, 50, 25, 12, 6, 3, 1])
    }

    @Test func aRequestForOneCannotAskForLess() {
        #expect(ResponseSizeHalving.next(after: 1) == nil)
        #expect(ResponseSizeHalving.next(after: 0) == nil)
    }
}
