@testable import BotRuntime
import Foundation
import Testing

/// What `/healthz` says of a fleet by default: counts by state and the bots not live, bounded whatever its size.
@Suite("health summary")
struct HealthSummaryTests {
    @Test func itCountsTheBotsOfEachState() {
        let summary = HealthSummary(bots: [
            .fixture("a", .live), .fixture("b", .live), .fixture("c", .reconnecting), .fixture("d", .stopped),
        ])
        #expect(summary.total == 4)
        #expect(summary.states == ["live": 2, "reconnecting": 1, "stopped": 1])
    }

    @Test func itNamesTheBotsNotLiveThoseThatNeedAnOperatorFirstThenThoseReconnecting() {
        let summary = HealthSummary(bots: [
            .fixture("starting", .connecting), .fixture("live", .live), .fixture("cut off", .reconnecting),
            .fixture("refused", .stopped), .fixture("poison", .crashing),
        ])
        #expect(summary.notLive.map(\.name) == ["refused", "poison", "cut off", "starting"])
        #expect(summary.notLiveCount == 4)
    }

    @Test func itNamesAtMostTwentyBotsAndCountsThemAll() {
        let fleet = (1...10_000).map { BotStatus.fixture("bot\($0)", $0 <= 9_970 ? .live : .reconnecting) }
            + [.fixture("bad", .stopped)]
        let summary = HealthSummary(bots: fleet)
        #expect(summary.notLive.count == 20)
        #expect(summary.notLive.first?.name == "bad")
        #expect(summary.notLive.dropFirst().first?.name == "bot9971")
        #expect(summary.notLiveCount == 31)
        #expect(summary.total == 10_001)
    }
}
