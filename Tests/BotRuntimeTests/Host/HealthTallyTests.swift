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

    @Test func aSnapshotNamesTheBotsNotLiveInTheStatesItsCountsHold() {
        var tally = HealthTally()
        for id in 0..<4 { tally.join(id, rank: id) }
        tally.report(0, state: .live, connected: true)
        tally.report(1, state: .reconnecting, connected: false)
        tally.report(2, state: .synchronizing, connected: true)
        tally.stop(3, as: .crashing)
        let snapshot = tally.snapshot(namingNotLive: 20)
        #expect(snapshot.counts.states == ["live": 1, "reconnecting": 1, "synchronizing": 1, "crashing": 1])
        #expect(snapshot.bots == [
            HealthTally.Counted(id: 3, rank: 3, state: .crashing, connected: false),
            HealthTally.Counted(id: 1, rank: 1, state: .reconnecting, connected: false),
            HealthTally.Counted(id: 2, rank: 2, state: .synchronizing, connected: true),
        ])
    }

    @Test func aSnapshotOfEveryBotHoldsEachBotInTheStateItIsCountedIn() {
        var tally = HealthTally()
        for id in 0..<3 { tally.join(id, rank: id) }
        tally.report(0, state: .live, connected: true)
        tally.stop(1, as: .stopped)
        let snapshot = tally.snapshotOfEveryBot()
        #expect(snapshot.counts.total == 3)
        #expect(snapshot.bots.sorted { $0.id < $1.id }.map(\.state) == [.live, .stopped, .starting])
    }
}
