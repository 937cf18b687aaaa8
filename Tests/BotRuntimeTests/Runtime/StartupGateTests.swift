@testable import BotRuntime
import SQLite
import Synchronization
import Testing

/// `StartupGate` on its own: no sockets, no sleeps beyond yielding to let waiting tasks reach the gate.
@Suite("startup gate")
struct StartupGateTests {
    /// Records which callers were admitted, in order, and how many held a ticket at most.
    final class Admissions: Sendable {
        private let state = Mutex<(order: [Int], inFlight: Int, peak: Int)>(([], 0, 0))
        func admitted(_ caller: Int) {
            state.withLock { state in
                state.order.append(caller)
                state.inFlight += 1
                state.peak = max(state.peak, state.inFlight)
            }
        }
        func left() { state.withLock { $0.inFlight -= 1 } }
        var order: [Int] { state.withLock { $0.order } }
        var peak: Int { state.withLock { $0.peak } }
    }

    /// Yields until `condition` holds; a failure of the test if it still does not after 90 s.
    private func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(90))
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the gate never reached the state waited for", sourceLocation: sourceLocation)
                return
            }
            await Task.yield()
        }
    }

    @Test func neverAdmitsMoreThanItsLimitAtOnce() async {
        let gate = StartupGate(limit: 3)
        let admissions = Admissions()
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<40 {
                group.addTask {
                    guard let ticket = await gate.enter() else { return }
                    admissions.admitted(caller)
                    await Task.yield()
                    admissions.left()
                    ticket.release()
                }
            }
        }
        #expect(admissions.order.count == 40)
        #expect(admissions.peak <= 3)
        #expect(gate.admittedCount == 0)
    }

    @Test func admitsAtOnceWhenThereIsRoom() async throws {
        let gate = StartupGate(limit: 2)
        let first = try #require(await gate.enter())
        let second = try #require(await gate.enter())
        #expect(gate.admittedCount == 2)
        first.release()
        second.release()
        #expect(gate.admittedCount == 0)
    }

    @Test func admitsWaitingCallersInTheOrderTheyAsked() async throws {
        let gate = StartupGate(limit: 1)
        let holder = try #require(await gate.enter())
        let admissions = Admissions()
        var waiting: [Task<Void, Never>] = []
        for caller in 0..<5 {
            waiting.append(Task {
                guard let ticket = await gate.enter() else { return }
                admissions.admitted(caller)
                ticket.release()
            })
            await waitUntil { gate.waitingCount == caller + 1 }
        }
        holder.release()
        for task in waiting { await task.value }
        #expect(admissions.order == [0, 1, 2, 3, 4])
    }

    @Test func aFailedAttemptReleasingItsTicketAdmitsTheNextCaller() async throws {
        struct AttemptFailed: Error {}
        let gate = StartupGate(limit: 1)
        let failing = Task {
            guard let ticket = await gate.enter() else { return }
            defer { ticket.release() }
            throw AttemptFailed()
        }
        await #expect(throws: AttemptFailed.self) { try await failing.value }
        let next = try #require(await gate.enter())
        #expect(gate.admittedCount == 1)
        next.release()
    }

    @Test func aDroppedTicketFreesItsSlot() async throws {
        let gate = StartupGate(limit: 1)
        do {
            _ = try #require(await gate.enter())
        }
        #expect(gate.admittedCount == 0)
        let next = try #require(await gate.enter())
        next.release()
    }

    @Test func releasingTwiceFreesOneSlot() async throws {
        let gate = StartupGate(limit: 2)
        let first = try #require(await gate.enter())
        let second = try #require(await gate.enter())
        first.release()
        first.release()
        #expect(gate.admittedCount == 1)
        second.release()
    }

    @Test func aCallerCancelledWhileWaitingHoldsNothingAndLeavesTheQueue() async throws {
        let gate = StartupGate(limit: 1)
        let holder = try #require(await gate.enter())
        let cancelled = Task { await gate.enter() }
        await waitUntil { gate.waitingCount == 1 }
        let after = Task { await gate.enter() }
        await waitUntil { gate.waitingCount == 2 }
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        #expect(gate.waitingCount == 1)
        holder.release()
        let ticket = try #require(await after.value)
        #expect(gate.admittedCount == 1)
        ticket.release()
        #expect(gate.admittedCount == 0)
    }

    @Test func aCallerCancelledBeforeAskingIsNotAdmitted() async {
        let gate = StartupGate(limit: 1)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await gate.enter()
        }
        #expect(await task.value == nil)
        #expect(gate.admittedCount == 0)
    }

    @Test func sizedFromABudgetAdmitsHalfItsSlotsByDefault() {
        #expect(StartupGate(fitting: ConnectionBudget(limit: 100)).limit == 50)
        #expect(StartupGate(fitting: ConnectionBudget(limit: 1)).limit == 1)
        #expect(StartupGate(fitting: ConnectionBudget(limit: 100), fraction: 0.25).limit == 25)
    }

    @Test func sizedFromALargeBudgetAdmitsAtMostTheDefaultLimit() {
        #expect(StartupGate(fitting: ConnectionBudget(limit: 4_744)).limit == StartupGate.defaultLimit)
        #expect(StartupGate(fitting: ConnectionBudget(limit: 4_744), maximum: 1_000).limit == 1_000)
    }
}
