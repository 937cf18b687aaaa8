import ChatterBots
import Foundation
import Testing

/// The real and accelerated clocks must wait at least until the deadline and wake at once when cancelled. How long
/// they wait is never measured (a whole-suite run can stall a test for a minute): a clock that waits far too long
/// is given an hour or a day to wait, which runs into the suite's time limit, a hang guard.
@Suite("SystemClock and AcceleratedClock", .timeLimit(.minutes(3)))
struct RealTimeClockTests {
    @Test func systemClockSleepsAtLeastUntilTheDeadline() async throws {
        let clock = SystemClock()
        let deadline = clock.now.addingTimeInterval(0.02)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
    }

    @Test func systemClockReturnsAtOnceForAPastDeadline() async throws {
        // An hour ago: a clock that waited as long as the deadline is far would run into the suite's time limit.
        try await SystemClock().sleep(until: Date().addingTimeInterval(-3_600))
    }

    @Test func systemClockSleepEndsWithCancellationError() async {
        let sleeper = Task { try await SystemClock().sleep(until: .distantFuture) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func acceleratedClockRunsFasterThanRealTime() async throws {
        // A virtual day is 86 ms of real time at a million times; waited out in real time it is far past the limit.
        let clock = AcceleratedClock(factor: 1_000_000)
        let deadline = clock.now.addingTimeInterval(86_400)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
    }

    @Test func acceleratedClockStartsAtItsOriginAndMovesForward() async throws {
        let origin = Date(timeIntervalSince1970: 1_000_000)
        // At 10× a virtual day is more than two hours of real time: no stall of the machine gets there.
        let clock = AcceleratedClock(factor: 10, origin: origin)
        let first = clock.now
        #expect(first >= origin)
        #expect(first < origin.addingTimeInterval(86_400))
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
