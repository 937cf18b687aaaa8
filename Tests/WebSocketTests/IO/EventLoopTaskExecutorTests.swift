import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
@testable import WebSocket

/// An event loop as a task executor: tasks that prefer it run on its thread, and the sockets they open live there.
@Suite("Event loops as task executors")
struct EventLoopTaskExecutorTests {
    /// A yes/no a task sets and the test waits for.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        private let changes = ChangeSignal()
        var isSet: Bool { value.load(ordering: .acquiring) }

        func set() {
            value.store(true, ordering: .releasing)
            changes.signal()
        }

        /// Returns once set; fails naming `what` after a hang guard.
        func wait(_ what: String) async throws {
            try await changes.wait(until: { isSet }, what)
        }
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
        try await finished.wait("the task resumed from another thread to run")
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
        try await finished.wait("the task to run off the stopped loop")
    }
}
