import Foundation
import Glibc
import Synchronization
import Testing
@testable import WebSocket

/// An event loop as a task executor: tasks that prefer it run on its thread, and the sockets they open live there.
@Suite("Event loops as task executors")
struct EventLoopTaskExecutorTests {
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    @Test func aTaskThatPrefersALoopRunsOnTheLoopThread() async throws {
        let group = try EventLoopGroup(threadCount: 2)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let loop = try #require(executor as? EventLoop)
        let onLoop = await Task(executorPreference: executor) { loop.inEventLoop }.value
        #expect(onLoop)
    }

    /// A task that resumed itself on the loop (`Task.yield`), then waits for a thread outside it: the loop went to
    /// sleep meanwhile, and the outside resumption must wake it.
    @Test func aTaskResumedFromAnotherThreadAfterTheLoopWentIdleRuns() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let finished = Flag()
        Task(executorPreference: executor) {
            await Task.yield()
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { continuation.resume() }
            }
            finished.set()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !finished.isSet && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(finished.isSet)
    }

    @Test func aConnectionOpenedFromATaskThatPrefersALoopLivesOnThatLoop() async throws {
        let group = try EventLoopGroup(threadCount: 2)
        defer { group.shutdown() }
        for _ in 0..<4 {
            let executor = try group.nextTaskExecutor()
            let loop = try #require(executor as? EventLoop)
            let chosen = try await Task(executorPreference: executor) { try group.next() }.value
            #expect(chosen === loop)
        }
    }

    /// A task that prefers a loop whose group was shut down still runs: on the global concurrent executor.
    @Test func aTaskThatPrefersAStoppedLoopRunsElsewhere() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        let executor = try group.nextTaskExecutor()
        let loop = try #require(executor as? EventLoop)
        group.shutdown()
        let finished = Flag()
        Task(executorPreference: executor) {
            if !loop.inEventLoop { finished.set() }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !finished.isSet && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(finished.isSet)
    }
}
