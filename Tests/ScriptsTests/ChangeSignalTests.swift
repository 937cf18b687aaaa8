import Synchronization
import TestSupport
import Testing

/// The tests' condition variable: a wait ends on the change it is for, and never passes silently at its deadline.
@Suite("Change signals")
struct ChangeSignalTests {
    @Test func aWaitEndsOnTheSignalledChangeItIsFor() async throws {
        let changes = ChangeSignal()
        let flag = Atomic<Bool>(false)
        let setter = Task {
            flag.store(true, ordering: .relaxed)
            changes.signal()
        }
        try await changes.wait(until: { flag.load(ordering: .relaxed) }, "the flag")
        await setter.value
    }

    @Test func aConditionThatNeverHoldsFailsAtTheDeadlineNamingWhatWasAwaited() async {
        let changes = ChangeSignal()
        // Nothing ever sets it: the expiry is the only outcome.
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await changes.wait(until: { false }, "a flag nobody sets", timeout: .milliseconds(20))
        }
        #expect(error?.description == "gave up after 0.02 seconds waiting for a flag nobody sets")
    }

    @Test func aConditionThatCameToHoldWithoutASignalFailsAtTheDeadlineSayingSo() async {
        let changes = ChangeSignal()
        let flag = Atomic<Bool>(false)
        // Set without a signal: only the deadline's check can find it, so the expiry is the only outcome.
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await changes.wait(
                until: {
                    defer { flag.store(true, ordering: .relaxed) }
                    return flag.load(ordering: .relaxed)
                }, "the unsignalled flag", timeout: .milliseconds(20))
        }
        #expect(error?.what == "the unsignalled flag, which held without a change signalled: signal that change")
    }
}
