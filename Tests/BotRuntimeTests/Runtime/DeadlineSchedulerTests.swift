@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
import Testing

/// The session's one timer on a virtual clock: actions run when their deadline passes, earliest first.
@Suite("DeadlineScheduler")
struct DeadlineSchedulerTests {
    /// A scheduler whose actions report their key on a stream the test reads.
    struct Harness {
        let clock = ManualClock()
        let timers: DeadlineScheduler<String>
        let fired: AsyncStream<String>
        let fire: AsyncStream<String>.Continuation

        init() {
            timers = DeadlineScheduler(clock: clock, executor: nil)
            (fired, fire) = AsyncStream.makeStream(of: String.self)
        }

        func schedule(_ key: String, in seconds: TimeInterval) {
            let fire = fire
            timers.schedule(key, at: clock.now.addingTimeInterval(seconds)) { fire.yield(key) }
        }

        /// The next `count` keys whose actions ran.
        func next(_ count: Int) async throws -> [String] {
            let fired = fired
            return try await withDeadline(.seconds(30), "\(count) deadlines to fire") {
                var keys: [String] = []
                for await key in fired {
                    keys.append(key)
                    if keys.count == count { break }
                }
                return keys
            }
        }
    }

    @Test func anActionRunsOnceItsDeadlinePassesOnTheClock() async throws {
        let harness = Harness()
        harness.schedule("lifecycle", in: 10)
        try await harness.clock.waitForSleepers(1)
        await harness.clock.advance(by: .seconds(10))
        #expect(try await harness.next(1) == ["lifecycle"])
        #expect(harness.timers.deadline(of: "lifecycle") == nil)
    }

    @Test func anEarlierDeadlineScheduledAfterALaterOneRunsFirst() async throws {
        let harness = Harness()
        harness.schedule("heartbeat", in: 25)
        harness.schedule("lifecycle", in: 10)
        await harness.clock.advance(by: .seconds(30))
        #expect(try await harness.next(2) == ["lifecycle", "heartbeat"])
    }

    @Test func aCancelledDeadlineDoesNotRunAndTheNextOneStill() async throws {
        let harness = Harness()
        harness.schedule("lifecycle", in: 10)
        harness.schedule("heartbeat", in: 25)
        harness.timers.cancel("lifecycle")
        await harness.clock.advance(by: .seconds(30))
        #expect(try await harness.next(1) == ["heartbeat"])
    }

    @Test func aRescheduledKeyRunsAtItsNewDeadlineOnly() async throws {
        let harness = Harness()
        harness.schedule("heartbeat", in: 10)
        harness.schedule("heartbeat", in: 20)
        harness.schedule("marker", in: 15)
        await harness.clock.advance(by: .seconds(30))
        #expect(try await harness.next(2) == ["marker", "heartbeat"])
    }

    @Test func anActionMayScheduleTheNextDeadline() async throws {
        let harness = Harness()
        let fire = harness.fire
        let timers = harness.timers
        let clock = harness.clock
        timers.schedule("ping", at: clock.now.addingTimeInterval(25)) {
            fire.yield("ping")
            timers.schedule("ping", at: clock.now.addingTimeInterval(25)) { fire.yield("ping again") }
        }
        await clock.advance(by: .seconds(25))
        #expect(try await harness.next(1) == ["ping"])
        await clock.advance(by: .seconds(25))
        #expect(try await harness.next(1) == ["ping again"])
    }

    @Test func stoppingDropsEveryDeadlineAndEndsTheSleepingTask() async throws {
        let harness = Harness()
        harness.schedule("lifecycle", in: 10)
        try await harness.clock.waitForSleepers(1)
        harness.timers.stop()
        harness.schedule("after the stop", in: 5)
        #expect(harness.timers.deadline(of: "lifecycle") == nil)
        #expect(harness.timers.deadline(of: "after the stop") == nil)
        // Cancelling the task takes its sleep off the clock at once.
        #expect(harness.clock.sleeperCount == 0)
    }
}
