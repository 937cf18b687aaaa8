import Foundation
import Testing
@testable import WebSocket

/// Sleeping on an event loop: the loop's own timer wakes the sleeper on the loop's thread.
@Suite("Event loop sleeps")
struct EventLoopSleepTests {
    typealias Flag = EventLoopTaskExecutorTests.Flag

    @Test func aSleepOnALoopEndsOnTheLoopThreadWithTheLoopsTimer() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let loop = try #require(executor as? EventLoop)
        let (slept, onLoop, elapsed) = try await Task(executorPreference: executor) { () async throws -> (Bool, Bool, Duration) in
            let start = ContinuousClock.now
            let slept = try await EventLoopSleep.sleep(for: .milliseconds(20))
            return (slept, loop.inEventLoop, ContinuousClock.now - start)
        }.value
        #expect(slept)
        #expect(onLoop)
        #expect(elapsed >= .milliseconds(20))
    }

    @Test func offEveryLoopItSaysSoAtOnce() async throws {
        #expect(EventLoop.current == nil)
        #expect(try await EventLoopSleep.sleep(for: .seconds(3_600)) == false)
    }

    @Test func cancellingTheTaskEndsTheSleepWithCancellationError() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let sleeper = Task(executorPreference: executor) { try await EventLoopSleep.sleep(for: .seconds(3_600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aLoopThatStopsEndsTheSleepsOnItsTimers() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        let executor = try group.nextTaskExecutor()
        let started = Flag()
        let sleeper = Task(executorPreference: executor) { () async throws -> Bool in
            started.set()
            return try await EventLoopSleep.sleep(for: .seconds(3_600))
        }
        while !started.isSet { await Task.yield() }
        group.shutdown()
        #expect(try await sleeper.value)
    }

    @Test func aSleepArmedOnAStoppedLoopEndsAtOnce() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        let loop = try #require(try group.nextTaskExecutor() as? EventLoop)
        group.shutdown()
        let fired = Flag()
        loop.scheduleTimer(in: .seconds(3_600), firesOnStop: true) { fired.set() }
        #expect(fired.isSet)
    }

    @Test func cancelledTimersDoNotPileUpInTheLoop() throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let loop = try #require(try group.nextTaskExecutor() as? EventLoop)
        for _ in 0..<5_000 {
            loop.scheduleTimer(in: .seconds(3_600)) {}.cancel()
        }
        #expect(loop.timerCount <= 1_024)
    }
}

/// Alarms of the loop that runs the caller, and the wake-ups a cancelled timer no longer costs.
@Suite("Event loop alarms")
struct EventLoopAlarmTests {
    typealias Flag = EventLoopTaskExecutorTests.Flag

    @Test func aCancelledTimerNoLongerSetsWhenTheLoopWakes() throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let loop = try #require(try group.nextTaskExecutor() as? EventLoop)
        let soon = loop.scheduleTimer(in: .seconds(600)) {}
        let later = loop.scheduleTimer(in: .seconds(3_600)) {}
        #expect(loop.nextTimerDeadline == soon.deadline)
        soon.cancel()
        #expect(loop.nextTimerDeadline == later.deadline)
        #expect(loop.liveTimerCount == 1)
    }

    @Test func anAlarmOnTheCallersLoopRingsOnThatLoopsThread() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let loop = try #require(executor as? EventLoop)
        let rangOnLoop = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Task(executorPreference: executor) {
                let alarm = EventLoopAlarm(onCurrentLoopIn: .milliseconds(5)) { continuation.resume(returning: loop.inEventLoop) }
                if alarm == nil { continuation.resume(returning: false) }
            }
        }
        #expect(rangOnLoop)
        #expect(EventLoopAlarm.pendingCount(on: executor) == 0)
    }

    @Test func offEveryLoopThereIsNoAlarmAndNothingRuns() {
        let rang = Flag()
        #expect(EventLoopAlarm(onCurrentLoopIn: .zero) { rang.set() } == nil)
        #expect(!rang.isSet)
    }

    @Test func aCancelledAlarmIsNoLongerPending() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let rang = Flag()
        let alarm = try #require(EventLoopAlarm(on: executor, in: .seconds(3_600)) { rang.set() })
        #expect(EventLoopAlarm.pendingCount(on: executor) == 1)
        alarm.cancel()
        #expect(EventLoopAlarm.pendingCount(on: executor) == 0)
        #expect(!rang.isSet)
    }
}
