import Dispatch
import Foundation
import Synchronization
import WebSocket

/// The threads the kinds' `make`s run on. A thread whose make returned waits `keepIdle` for the next one before it
/// ends, so that a start-up of thousands of bots creates about as many threads as makes run at once, not one a bot;
/// an idle process keeps none. A make that never returns keeps its thread, which is never given another.
final class MakeThreadPool: Sendable {
    /// One thread and the next make handed to it while it waited.
    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let job = Mutex<(@Sendable () -> Void)?>(nil)
    }

    private struct State {
        /// The threads waiting for a make, the one that waited least last.
        var idle: [Worker] = []
        /// Every thread of the pool, running a make or waiting for one.
        var threads = 0
    }

    private let state = Mutex(State())
    private let keepIdle: Duration

    init(keepIdle: Duration = .seconds(5)) {
        self.keepIdle = keepIdle
    }

    /// How many threads the pool has, running a make or waiting for one.
    var threads: Int { state.withLock { $0.threads } }

    /// How many of them wait for a make.
    var idleThreads: Int { state.withLock { $0.idle.count } }

    /// Runs `work` on a waiting thread, or on a new one when none waits.
    func run(_ work: @escaping @Sendable () -> Void) {
        let waiting = state.withLock { state -> Worker? in
            guard let worker = state.idle.popLast() else {
                state.threads += 1
                return nil
            }
            return worker
        }
        guard let waiting else { return spawn(first: work) }
        waiting.job.withLock { $0 = work }
        waiting.wake.signal()
    }

    /// Starts a thread with the stack an event loop's thread has, and a signal stack of its own, so that a `make`
    /// that overflows its stack is still named in the crash report.
    private func spawn(first work: @escaping @Sendable () -> Void) {
        let worker = Worker()
        let thread = Thread { [self] in
            let signalStack = AlternateSignalStack()
            var next: (@Sendable () -> Void)? = work
            while let job = next {
                job()
                next = nextJob(for: worker)
            }
            _ = consume signalStack
        }
        thread.name = "chatterbots.make"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits up to `keepIdle` for the next make; nil when none came, and the thread leaves the pool.
    private func nextJob(for worker: Worker) -> (@Sendable () -> Void)? {
        state.withLock { $0.idle.append(worker) }
        let (seconds, attoseconds) = keepIdle.components
        let wait = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if worker.wake.wait(timeout: .now() + .nanoseconds(wait)) == .timedOut {
            let left = state.withLock { state -> Bool in
                guard let index = state.idle.firstIndex(where: { $0 === worker }) else { return false }
                state.idle.remove(at: index)
                state.threads -= 1
                return true
            }
            if left { return nil }
            // A make was handed to it as it timed out: its signal is on the way.
            worker.wake.wait()
        }
        return worker.job.withLock { job in
            defer { job = nil }
            return job
        }
    }
}
