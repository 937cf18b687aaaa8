@testable import BotRuntime
import Foundation
import Testing

/// What `/healthz` says of a fleet by default: counts by state and the bots not live, bounded whatever its size.
@Suite("health summary")
struct HealthSummaryTests {
    func status(_ name: String, _ state: BotStatus.State) -> BotStatus {
        BotStatus(
            name: name, state: state, connected: state == .live, since: Date(timeIntervalSince1970: 1_800_000_000),
            userId: nil, lastError: nil, reconnects: 0, messagesIn: 0, messagesOut: 0, outboxDepth: 0,
            handlerLatency: HandlerLatencySummary(), stopReason: nil)
    }

    @Test func itCountsTheBotsOfEachState() {
        let summary = HealthSummary(bots: [
            status("a", .live), status("b", .live), status("c", .reconnecting), status("d", .stopped),
        ])
        #expect(summary.total == 4)
        #expect(summary.states == ["live": 2, "reconnecting": 1, "stopped": 1])
    }

    @Test func itNamesTheBotsNotLiveThoseThatNeedAnOperatorFirstThenThoseReconnecting() {
        let summary = HealthSummary(bots: [
            status("starting", .connecting), status("live", .live), status("cut off", .reconnecting),
            status("refused", .stopped), status("poison", .crashing),
        ])
        #expect(summary.notLive.map(\.name) == ["refused", "poison", "cut off", "starting"])
        #expect(summary.notLiveCount == 4)
    }

    @Test func itNamesAtMostTwentyBotsAndCountsThemAll() {
        let fleet = (1...10_000).map { status("bot\($0)", $0 <= 9_970 ? .live : .reconnecting) } + [status("bad", .stopped)]
        let summary = HealthSummary(bots: fleet)
        #expect(summary.notLive.count == 20)
        #expect(summary.notLive.first?.name == "bad")
        #expect(summary.notLive.dropFirst().first?.name == "bot9971")
        #expect(summary.notLiveCount == 31)
        #expect(summary.total == 10_001)
    }
}
