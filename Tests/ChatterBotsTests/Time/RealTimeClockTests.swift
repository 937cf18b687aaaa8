import ChatterBots
import Foundation
import Testing

/// The real and accelerated clocks are checked loosely: they must wait at least until the deadline, never for
/// long, and wake at once when cancelled. No upper bound tighter than seconds is asserted (shared CI machine).
@Suite("SystemClock and AcceleratedClock", .timeLimit(.minutes(1)))
struct RealTimeClockTests {
    @Test func systemClockSleepsAtLeastUntilTheDeadline() async throws {
        let clock = SystemClock()
        let deadline = clock.now.addingTimeInterval(0.02)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
    }

    @Test func systemClockReturnsAtOnceForAPastDeadline() async throws {
        let clock = SystemClock()
        let before = ContinuousClock.now
        try await clock.sleep(until: clock.now.addingTimeInterval(-3_600))
        #expect(ContinuousClock.now - before < .seconds(5))
    }

    @Test func systemClockSleepEndsWithCancellationError() async {
        let sleeper = Task { try await SystemClock().sleep(until: .distantFuture) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func acceleratedClockRunsFasterThanRealTime() async throws {
        let clock = AcceleratedClock(factor: 1_000)
        let realStart = ContinuousClock.now
        let deadline = clock.now.addingTimeInterval(60)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
        // 60 virtual seconds are 60 ms of real time at 1000×; 30 s of slack for a loaded machine.
        #expect(ContinuousClock.now - realStart < .seconds(30))
    }

    @Test func acceleratedClockStartsAtItsOriginAndMovesForward() async throws {
        let origin = Date(timeIntervalSince1970: 1_000_000)
        let clock = AcceleratedClock(factor: 100, origin: origin)
        let first = clock.now
        #expect(first >= origin)
        #expect(first < origin.addingTimeInterval(3_600))
        try await clock.sleep(for: .seconds(1))
        #expect(clock.now >= first.addingTimeInterval(1))
    }

    @Test func acceleratedClockSleepEndsWithCancellationError() async {
        let clock = AcceleratedClock(factor: 100)
        let sleeper = Task { try await clock.sleep(for: .seconds(86_400 * 365)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
