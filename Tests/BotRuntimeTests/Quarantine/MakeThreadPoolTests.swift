@testable import BotRuntime
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The make threads are kept a while after their make returns, so that a start-up of many bots does not create a
/// thread a bot, and end once idle.
@Suite struct MakeThreadPoolTests {
    /// Runs `work` on `pool` and returns the id of the thread it ran on.
    private static func threadID(of pool: MakeThreadPool) async -> pthread_t {
        await withCheckedContinuation { continuation in
            pool.run { continuation.resume(returning: pthread_self()) }
        }
    }

    @Test func aMakeAfterOneReturnedRunsOnTheThreadLeftWaiting() async {
        let pool = MakeThreadPool(keepIdle: .hangGuard)
        let first = await Self.threadID(of: pool)
        #expect(await eventually { pool.idleThreads == 1 })

        let second = await Self.threadID(of: pool)
        #expect(second == first)
        #expect(pool.threads == 1)
    }

    @Test func makesRunningAtOnceEachHaveAThread() async {
        let pool = MakeThreadPool(keepIdle: .hangGuard)
        let release = DispatchSemaphore(value: 0)
        let (started, starts) = AsyncStream.makeStream(of: pthread_t.self)
        for _ in 0..<3 {
            pool.run {
                starts.yield(pthread_self())
                release.wait()
            }
        }
        var threads: Set<pthread_t> = []
        for await thread in started {
            threads.insert(thread)
            if threads.count == 3 { break }
        }
        #expect(pool.threads == 3)
        for _ in 0..<3 { release.signal() }
        #expect(await eventually { pool.idleThreads == 3 })
    }

    @Test func aThreadThatWaitedItsTimeForAMakeEnds() async {
        // A keep of a millisecond: ending is the only outcome.
        let pool = MakeThreadPool(keepIdle: .milliseconds(1))
        _ = await Self.threadID(of: pool)
        #expect(await eventually { pool.threads == 0 })
        #expect(pool.idleThreads == 0)
    }
}
