@testable import BotRuntime
import Foundation
import Testing

/// When a background retry is owed, for `BotSession.waitUntilIdle()`.
@Suite struct RetryDeadlineTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anAttemptIsDueFromItsInstantUntilItIsPutOffOrFinished() {
        let retry = RetryDeadline()
        #expect(!retry.isDue(at: now))
        retry.set(now.addingTimeInterval(1))
        #expect(!retry.isDue(at: now))
        #expect(retry.isDue(at: now.addingTimeInterval(1)))
        retry.set(nil)
        #expect(!retry.isDue(at: now.addingTimeInterval(1)))
    }

    @Test func waitingForAnAttemptNotDueReturnsAtOnce() async {
        let retry = RetryDeadline()
        retry.set(now.addingTimeInterval(1))
        await retry.waitUntilChanged(ifDueAt: now)
    }

    @Test func aWaiterForADueAttemptReturnsWhenItIsPutOff() async {
        let retry = RetryDeadline()
        retry.set(now)
        let waiter = Task { await retry.waitUntilChanged(ifDueAt: now) }
        await retry.waitUntilWaited()
        retry.set(now.addingTimeInterval(2))
        await waiter.value
    }

    @Test func aCancelledWaiterReturnsWithoutAChange() async {
        let retry = RetryDeadline()
        retry.set(now)
        let waiter = Task { await retry.waitUntilChanged(ifDueAt: now) }
        await retry.waitUntilWaited()
        waiter.cancel()
        await waiter.value
        #expect(retry.waiterCount == 0)
        #expect(retry.isDue(at: now))
    }
}
