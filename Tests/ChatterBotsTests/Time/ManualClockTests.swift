import ChatterBots
import Foundation
import Synchronization
import Testing

/// A thread-safe list that sleeping tasks append to, so tests can read what happened and in which order.
final class ClockTestLog<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])
    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
    var all: [Entry] { entries.withLock { $0 } }
}

/// A hang guard only: `advance` settles at background priority, behind the work of every other test when the whole
/// suite runs, so 24 advances can take a minute on a loaded machine.
@Suite("ManualClock", .timeLimit(.minutes(3)))
struct ManualClockTests {
    let start = ManualClock.defaultStart

    @Test func timeStandsStillUntilAdvanced() async throws {
        let clock = ManualClock()
        #expect(clock.now == start)
        await Task.yield()
        #expect(clock.now == start)
        await clock.advance(by: .seconds(90))
        #expect(clock.now == start.addingTimeInterval(90))
    }

    @Test func advanceToAnEarlierTimeDoesNotMoveTimeBackwards() async {
        let clock = ManualClock()
        await clock.advance(by: .seconds(10))
        await clock.advance(to: start)
        #expect(clock.now == start.addingTimeInterval(10))
    }

    @Test func sleepersResumeInDeadlineOrderEachAtItsDeadline() async throws {
        let clock = ManualClock()
        let log = ClockTestLog<(Int, Date)>()
        for seconds in [30, 10, 20] {
            Task {
                try await clock.sleep(for: .seconds(seconds))
                log.append((seconds, clock.now))
            }
        }
        try await clock.waitForSleepers(3)
        await clock.advance(by: .seconds(60))
        #expect(log.all.map(\.0) == [10, 20, 30])
        #expect(log.all.map(\.1) == [10, 20, 30].map { start.addingTimeInterval(TimeInterval($0)) })
        #expect(clock.now == start.addingTimeInterval(60))
    }

    @Test func sleepersWithTheSameDeadlineResumeInTheOrderTheyStartedSleeping() async throws {
        let clock = ManualClock()
        let log = ClockTestLog<String>()
        for (index, name) in ["first", "second", "third"].enumerated() {
            Task {
                try await clock.sleep(until: start.addingTimeInterval(5))
                log.append(name)
            }
            try await clock.waitForSleepers(index + 1)
        }
        await clock.advance(by: .seconds(5))
        #expect(log.all == ["first", "second", "third"])
    }

    @Test func aSleeperIsNotResumedBeforeItsDeadline() async throws {
        let clock = ManualClock()
        let log = ClockTestLog<String>()
        Task {
            try await clock.sleep(for: .seconds(10))
            log.append("woke")
        }
        try await clock.waitForSleepers(1)
        await clock.advance(by: .milliseconds(9_999))
        #expect(log.all.isEmpty)
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(log.all == ["woke"])
        #expect(clock.sleeperCount == 0)
    }

    @Test func advancingTenMinutesFiresA25SecondPeriodicTimer24Times() async throws {
        // The timer sleeps again at once after each tick, so a long grace costs nothing unless the machine keeps it
        // off the CPU, and then it keeps the advance from going on without it.
        let clock = ManualClock(wakeGrace: .seconds(10))
        let log = ClockTestLog<Date>()
        let timer = Task {
            while true {
                try await clock.sleep(for: .seconds(25))
                log.append(clock.now)
            }
        }
        defer { timer.cancel() }
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(600))
        #expect(log.all.count == 24)
        #expect(log.all == (1...24).map { start.addingTimeInterval(TimeInterval($0 * 25)) })
    }

    @Test func aDeadlineAlreadyReachedReturnsWithoutWaiting() async throws {
        let clock = ManualClock()
        try await clock.sleep(until: start)
        try await clock.sleep(until: start.addingTimeInterval(-60))
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndUnregistersIt() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(3_600)) }
        try await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.nextDeadline == nil)
    }

    @Test func aCancelledTaskThrowsInsteadOfSleeping() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func waitForSleepersReturnsOnceTheCountIsReached() async throws {
        let clock = ManualClock()
        let waiter = Task { try await clock.waitForSleepers(2) }
        let first = Task { try await clock.sleep(for: .seconds(1)) }
        let second = Task { try await clock.sleep(for: .seconds(2)) }
        try await waiter.value
        #expect(clock.sleeperCount == 2)
        #expect(clock.nextDeadline == start.addingTimeInterval(1))
        await clock.advance(by: .seconds(2))
        try await first.value
        try await second.value
    }
}

/// A timer owned by an actor, as the runtime's session actor will own its heartbeat: waking hops onto the actor.
private actor PeriodicCounter {
    private(set) var fireTimes: [Date] = []
    func run(on clock: ManualClock, every period: Duration) async throws {
        while true {
            try await clock.sleep(for: period)
            fireTimes.append(clock.now)
        }
    }
}

/// A hang guard only, as for the suite above.
@Suite("ManualClock with actors", .timeLimit(.minutes(3)))
struct ManualClockActorTests {
    @Test func periodicTimersInsideActorsInterleaveInTimeOrder() async throws {
        // Both timers sleep again after each tick: the long grace is only spent while the machine keeps one off the CPU.
        let clock = ManualClock(wakeGrace: .seconds(10))
        let fast = PeriodicCounter(), slow = PeriodicCounter()
        let tasks = [
            Task { try await fast.run(on: clock, every: .seconds(10)) },
            Task { try await slow.run(on: clock, every: .seconds(25)) },
        ]
        defer { tasks.forEach { $0.cancel() } }
        try await clock.waitForSleepers(2)
        await clock.advance(by: .seconds(100))
        let start = ManualClock.defaultStart
        #expect(await fast.fireTimes == (1...10).map { start.addingTimeInterval(TimeInterval($0 * 10)) })
        #expect(await slow.fireTimes == (1...4).map { start.addingTimeInterval(TimeInterval($0 * 25)) })
    }
}

/// `advance(by:untilIdle:)`: the code under test, not the cooperative pool, says when an instant is done. The time
/// limit is a hang guard only.
@Suite("ManualClock advanced until idle", .timeLimit(.minutes(3)))
struct ManualClockIdleTests {
    let start = ManualClock.defaultStart

    @Test func periodicTimersInsideActorsInterleaveInTimeOrderWhenTheirSleepsAreTheIdleSignal() async throws {
        let clock = ManualClock()
        let fast = PeriodicCounter(), slow = PeriodicCounter()
        let tasks = [
            Task { try await fast.run(on: clock, every: .seconds(10)) },
            Task { try await slow.run(on: clock, every: .seconds(25)) },
        ]
        defer { tasks.forEach { $0.cancel() } }
        try await clock.waitForSleepers(2)
        // Both timers asleep again: nothing is left to do at this instant.
        try await clock.advance(by: .seconds(100)) { try await clock.waitForSleepers(2) }
        #expect(await fast.fireTimes == (1...10).map { start.addingTimeInterval(TimeInterval($0 * 10)) })
        #expect(await slow.fireTimes == (1...4).map { start.addingTimeInterval(TimeInterval($0 * 25)) })
        #expect(clock.now == start.addingTimeInterval(100))
    }

    @Test func workThatLeavesThePoolBetweenTicksIsWaitedForUntilTheTimerSleepsAgain() async throws {
        let clock = ManualClock()
        let log = ClockTestLog<Date>()
        let timer = Task {
            while true {
                try await clock.sleep(for: .seconds(25))
                // An answer from outside the cooperative pool, as a socket's is: yielding to the pool does not wait for it.
                await withCheckedContinuation { continuation in Thread { continuation.resume() }.start() }
                log.append(clock.now)
            }
        }
        defer { timer.cancel() }
        try await clock.waitForSleepers(1)
        try await clock.advance(by: .seconds(600)) { try await clock.waitForSleepers(1) }
        #expect(log.all == (1...24).map { start.addingTimeInterval(TimeInterval($0 * 25)) })
    }

    @Test func anIdleSignalThatFailsEndsTheAdvanceWithItsErrorBeforeTimeMoves() async throws {
        struct NotIdle: Error {}
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        defer { sleeper.cancel() }
        try await clock.waitForSleepers(1)
        await #expect(throws: NotIdle.self) {
            try await clock.advance(by: .seconds(60)) { throw NotIdle() }
        }
        #expect(clock.now == start)
        #expect(clock.sleeperCount == 1)
    }
}
