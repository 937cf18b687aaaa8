import Testing
@testable import WebSocket

/// The idle rule of an HTTP server connection, on a clock the tests set (nanoseconds).
@Suite("HTTP idle clock")
struct HTTPIdleClockTests {
    private static let second: UInt64 = 1_000_000_000

    @Test func aConnectionWithoutActivityForTheWholeTimeoutIsClosed() {
        var clock = HTTPIdleClock(timeout: .seconds(60), now: 0)
        #expect(clock.check(unsent: 0, at: 60 * Self.second) == .close)
    }

    @Test func aTimerFiringEarlyChecksAgainForWhatIsLeftOfTheTimeout() {
        var clock = HTTPIdleClock(timeout: .seconds(60), now: 0)
        clock.recordActivity(at: 20 * Self.second)
        #expect(clock.check(unsent: 0, at: 60 * Self.second) == .checkAgain(after: .seconds(20)))
    }

    @Test func aPeerThatReadsPartOfAWaitingResponseGetsAnotherWholeTimeout() {
        var clock = HTTPIdleClock(timeout: .seconds(60), now: 0)
        clock.startWaitingForPeer(unsent: 100_000, at: 0)
        #expect(clock.check(unsent: 99_000, at: 60 * Self.second) == .checkAgain(after: .seconds(60)))
        #expect(clock.check(unsent: 98_000, at: 120 * Self.second) == .checkAgain(after: .seconds(60)))
    }

    @Test func aPeerThatReadsNothingOfAWaitingResponseForTheTimeoutIsClosed() {
        var clock = HTTPIdleClock(timeout: .seconds(60), now: 0)
        clock.startWaitingForPeer(unsent: 100_000, at: 0)
        #expect(clock.check(unsent: 99_000, at: 60 * Self.second) == .checkAgain(after: .seconds(60)))
        #expect(clock.check(unsent: 99_000, at: 120 * Self.second) == .close)
    }

    @Test func unsentBytesCountAsReadingOnlyWhileTheConnectionWaitsForThePeer() {
        var clock = HTTPIdleClock(timeout: .seconds(60), now: 0)
        clock.startWaitingForPeer(unsent: 100_000, at: 0)
        clock.stopWaitingForPeer(at: 10 * Self.second)
        #expect(!clock.isWaitingForPeer)
        #expect(clock.check(unsent: 0, at: 70 * Self.second) == .close)
    }
}
