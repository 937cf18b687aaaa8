@testable import BotRuntime
import Foundation
import Testing

/// `ReadyGate`: when `onReady` runs after a connect.
@Suite struct ReadyGateTests {
    let start = Date(timeIntervalSince1970: 1_000)

    @Test func aSnapshotBeforeTheSyncAnnouncesReadyWhenTheSyncEnds() {
        var gate = ReadyGate()
        #expect(gate.opened(1, now: start) == [.scheduleSnapshotDeadline(start.addingTimeInterval(5), generation: 1)])
        #expect(gate.snapshotReceived(1) == [.cancelSnapshotDeadline])
        #expect(gate.synchronized(1) == [.announceReady(generation: 1, snapshotMissing: false)])
    }

    @Test func aSyncBeforeTheSnapshotWaitsForIt() {
        var gate = ReadyGate()
        _ = gate.opened(1, now: start)
        #expect(gate.synchronized(1) == [])
        #expect(gate.snapshotReceived(1) == [.cancelSnapshotDeadline, .announceReady(generation: 1, snapshotMissing: false)])
        #expect(gate.snapshotWaitEnded(1) == [])
    }

    @Test func theEndOfTheWaitAnnouncesReadyWithoutTheSnapshotOnce() {
        var gate = ReadyGate()
        _ = gate.opened(1, now: start)
        #expect(gate.synchronized(1) == [])
        #expect(gate.snapshotWaitEnded(1) == [.announceReady(generation: 1, snapshotMissing: true)])
        #expect(gate.snapshotReceived(1) == [.cancelSnapshotDeadline])
    }

    @Test func eventsOfAnEarlierConnectionAreIgnored() {
        var gate = ReadyGate()
        _ = gate.opened(1, now: start)
        _ = gate.opened(2, now: start)
        #expect(gate.snapshotReceived(1) == [])
        #expect(gate.snapshotWaitEnded(1) == [])
        #expect(gate.synchronized(2) == [])
    }
}
