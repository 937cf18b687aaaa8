@testable import BotRuntime
import Testing

/// The counts of `/healthz`, kept as bots change state.
@Suite("health tally")
struct HealthTallyTests {
    @Test func aBotWhoseRunEndedCountsAsStoppedAndNotConnectedWhateverItReportsAfterwards() {
        var tally = HealthTally()
        tally.join(0, rank: 0)
        tally.report(0, state: .live, connected: true)
        tally.stop(0, as: .crashing)
        tally.report(0, state: .live, connected: true)
        #expect(tally.states == ["crashing": 1])
        #expect(tally.connectedCount == 0)
        #expect(tally.notLive(limit: 20) == [0])
    }

    @Test func aBotThatLeftIsNeitherCountedNorNamedAndItsSuccessorTakesItsPlace() {
        var tally = HealthTally()
        for id in 0..<3 {
            tally.join(id, rank: id)
            tally.report(id, state: .connecting, connected: false)
        }
        tally.leave(0)
        tally.join(3, rank: 0)
        tally.report(0, state: .live, connected: true)  // the old session, gone, still reporting
        #expect(tally.total == 3)
        #expect(tally.states == ["starting": 1, "connecting": 2])
        #expect(tally.notLive(limit: 20) == [3, 1, 2])
    }

    @Test func everyBotConnectedNeedsAtLeastOneBot() {
        var tally = HealthTally()
        #expect(!tally.everyBotConnected)
        tally.join(0, rank: 0)
        tally.report(0, state: .synchronizing, connected: true)
        #expect(tally.everyBotConnected)
    }
}
