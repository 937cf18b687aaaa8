@testable import BotRuntime
import Testing

/// How long the runtime waits before looking at a conversation's gap again (``AdmissionPlan/gapCheckDelay``).
@Suite("gap check delay")
struct GapCheckDelayTests {
    let base = Duration.seconds(4)

    @Test func aNewGapIsCheckedAfterTheGapFillDelay() {
        #expect(AdmissionPlan.gapCheckDelay(waitingFor: 7, previous: nil, base: base) == base)
    }

    @Test func theSameGapStillOpenWaitsTwiceAsLongEachTime() {
        var previous: (expected: Int, delay: Duration)?
        var delays: [Duration] = []
        for _ in 0..<4 {
            let delay = AdmissionPlan.gapCheckDelay(waitingFor: 7, previous: previous, base: base)
            delays.append(delay)
            previous = (7, delay)
        }
        #expect(delays == [.seconds(4), .seconds(8), .seconds(16), .seconds(32)])
    }

    @Test func theDoublingStopsAtTheMaximum() {
        let delay = AdmissionPlan.gapCheckDelay(waitingFor: 7, previous: (7, .seconds(200)), base: base)
        #expect(delay == AdmissionPlan.maximumGapFillDelay)
    }

    @Test func aGapWaitingForAnotherSeqStartsAgainFromTheGapFillDelay() {
        #expect(AdmissionPlan.gapCheckDelay(waitingFor: 9, previous: (7, .seconds(64)), base: base) == base)
    }
}
