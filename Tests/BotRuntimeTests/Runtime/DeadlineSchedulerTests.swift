@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
import WebSocket
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
            return try await withDeadline(.hangGuard, "\(count) deadlines to fire") {
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

/// The session's one timer on the real clock with an event loop as executor: deadlines wait on the loop's own
/// alarms, and their actions run as on a task of the session.
@Suite("DeadlineScheduler on an event loop")
struct DeadlineSchedulerAlarmTests {
    /// What an action saw when it ran: its key, and the executor a task it started would prefer.
    struct Run: Sendable {
        var key: String
        var preferredExecutor: (any TaskExecutor)?
    }

    /// Runs `body` with a scheduler on the real clock and a one-thread loop, and returns the first `count` runs.
    enum LoopStop {
        case never, beforeScheduling, afterScheduling
    }

    func runs(
        _ count: Int, stoppingTheLoop stop: LoopStop = .never,
        _ body: @Sendable (DeadlineScheduler<String>, @escaping @Sendable (String) -> @Sendable () -> Void) -> Void
    ) async throws -> (runs: [Run], executor: any TaskExecutor) {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        if stop == .beforeScheduling { group.shutdown() }
        let timers = DeadlineScheduler<String>(clock: SystemClock(), executor: executor)
        defer { timers.stop() }
        let (stream, continuation) = AsyncStream.makeStream(of: Run.self)
        // A running loop is held while `body` schedules, so that no deadline falls due halfway through it however
        // slowly this thread goes; what is due runs once it is let go.
        let loopHeld = DispatchSemaphore(value: 0)
        if stop != .beforeScheduling {
            await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
                Task(executorPreference: executor) {
                    held.resume()
                    loopHeld.wait()
                }
            }
        }
        do {
            defer { loopHeld.signal() }
            body(timers) { key in { continuation.yield(Run(key: key, preferredExecutor: SessionExecutor.preferred)) } }
        }
        if stop == .afterScheduling { group.shutdown() }
        let runs = try await withDeadline(.hangGuard, "\(count) deadlines to fire") {
            var runs: [Run] = []
            for await run in stream {
                runs.append(run)
                if runs.count == count { break }
            }
            return runs
        }
        return (runs, executor)
    }

    @Test func deadlinesRunInOrderAsTheRealClockPassesThem() async throws {
        let (runs, _) = try await runs(3) { timers, action in
            let now = Date()
            timers.schedule("third", at: now.addingTimeInterval(0.03), action("third"))
            timers.schedule("first", at: now.addingTimeInterval(0.01), action("first"))
            timers.schedule("second", at: now.addingTimeInterval(0.02), action("second"))
        }
        #expect(runs.map(\.key) == ["first", "second", "third"])
    }

    @Test func whatAnActionStartsPrefersTheSessionsExecutor() async throws {
        let (runs, executor) = try await runs(1) { timers, action in
            timers.schedule("heartbeat", at: Date(), action("heartbeat"))
        }
        let preferred = try #require(runs.first?.preferredExecutor)
        #expect(preferred === executor)
    }

    @Test func anEarlierDeadlineRunsAheadOfTheAlarmSetForALaterOne() async throws {
        let (runs, _) = try await runs(1) { timers, action in
            timers.schedule("lifecycle", at: Date().addingTimeInterval(3_600), action("lifecycle"))
            timers.schedule("heartbeat", at: Date().addingTimeInterval(0.01), action("heartbeat"))
        }
        #expect(runs.map(\.key) == ["heartbeat"])
    }

    @Test func aCancelledDeadlineDoesNotRunAndTheNextOneStill() async throws {
        let (runs, _) = try await runs(1) { timers, action in
            let now = Date()
            timers.schedule("cancelled", at: now.addingTimeInterval(0.01), action("cancelled"))
            timers.schedule("kept", at: now.addingTimeInterval(0.02), action("kept"))
            timers.cancel("cancelled")
        }
        #expect(runs.map(\.key) == ["kept"])
    }

    @Test func anAlarmWhoseDeadlineIsRescheduledLaterIsMovedWithIt() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let timers = DeadlineScheduler<String>(clock: SystemClock(), executor: executor)
        defer { timers.stop() }
        let now = Date()
        timers.schedule("heartbeat", at: now.addingTimeInterval(600)) {}
        timers.schedule("heartbeat", at: now.addingTimeInterval(1_500)) {}
        #expect(timers.wakerDeadline == now.addingTimeInterval(1_500))
        #expect(EventLoopAlarm.pendingCount(on: executor) == 1, "the alarm of the earlier deadline is cancelled")
    }

    @Test func aSleepingTaskKeepsItsEarlierDeadlineWhenTheDeadlineMovesLater() async throws {
        let clock = ManualClock()
        let timers = DeadlineScheduler<String>(clock: clock, executor: nil)
        defer { timers.stop() }
        let now = clock.now
        timers.schedule("heartbeat", at: now.addingTimeInterval(10)) {}
        timers.schedule("heartbeat", at: now.addingTimeInterval(25)) {}
        #expect(timers.wakerDeadline == now.addingTimeInterval(10), "it wakes then and sleeps on: no new task")
    }

    /// A stopped loop rings no alarm: the scheduler waits on a task instead.
    @Test func deadlinesStillRunOnceTheLoopHasStopped() async throws {
        let (runs, _) = try await runs(2, stoppingTheLoop: .beforeScheduling) { timers, action in
            let now = Date()
            timers.schedule("first", at: now, action("first"))
            timers.schedule("second", at: now.addingTimeInterval(0.01), action("second"))
        }
        #expect(runs.map(\.key) == ["first", "second"])
    }

    /// The loop's exit rings the alarm it holds; what is not due yet then waits on a task.
    @Test func aDeadlinePendingWhenTheLoopStopsStillRuns() async throws {
        let (runs, _) = try await runs(1, stoppingTheLoop: .afterScheduling) { timers, action in
            timers.schedule("pending", at: Date().addingTimeInterval(0.2), action("pending"))
        }
        #expect(runs.map(\.key) == ["pending"])
    }
}
