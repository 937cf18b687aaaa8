@testable import BotRuntime
import Synchronization
import Testing

/// The process's gate that runs a suspect with nothing else running beside it.
@Suite struct SuspectGateTests {
    /// Who entered, in order.
    final class Entries: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var list: [String] { names.withLock { $0 } }
    }

    @Test func otherHandlersRunTogetherWhileNoSuspectRunsOrWaits() {
        let gate = SuspectGate()
        #expect(gate.enterAsOtherAtOnce())
        #expect(gate.enterAsOtherAtOnce())
        gate.leaveAsOther()
        gate.leaveAsOther()
        #expect(gate.isFree)
    }

    @Test func aSuspectWaitsUntilTheOtherHandlersRunningHaveEnded() async {
        let gate = SuspectGate()
        #expect(gate.enterAsOtherAtOnce())
        #expect(gate.enterAsOtherAtOnce())
        let suspect = Task { await gate.enter() }
        await gate.waitUntilWaiting(1)
        gate.leaveAsOther()
        #expect(!gate.isHeld, "one other handler still runs")
        gate.leaveAsOther()
        #expect(await suspect.value)
        gate.leave()
        #expect(gate.isFree)
    }

    @Test func noOtherHandlerStartsWhileASuspectWaitsOrRuns() async {
        let gate = SuspectGate()
        #expect(gate.enterAsOtherAtOnce())
        let suspect = Task { await gate.enter() }
        await gate.waitUntilWaiting(1)
        #expect(!gate.enterAsOtherAtOnce(), "a suspect waits")
        gate.leaveAsOther()
        #expect(await suspect.value)
        #expect(!gate.enterAsOtherAtOnce(), "a suspect runs")
        gate.leave()
        #expect(gate.enterAsOtherAtOnce())
    }

    @Test func theHandlersThatWaitedForASuspectGoBeforeTheNextSuspect() async {
        let gate = SuspectGate()
        let entries = Entries()
        #expect(await gate.enter())
        let second = Task {
            await gate.enter()
            entries.append("second suspect")
            gate.leave()
        }
        await gate.waitUntilWaiting(1)
        let other = Task {
            await gate.enterAsOther()
            entries.append("other")
            gate.leaveAsOther()
        }
        await gate.waitUntilOthersWaiting(1)
        gate.leave()
        await other.value
        await second.value
        #expect(entries.list == ["other", "second suspect"])
        #expect(gate.isFree)
    }

    @Test func anOtherHandlerCancelledWhileWaitingEntersNothing() async {
        let gate = SuspectGate()
        #expect(await gate.enter())
        let other = Task { await gate.enterAsOther() }
        await gate.waitUntilOthersWaiting(1)
        other.cancel()
        #expect(await other.value == false)
        gate.leave()
        #expect(gate.othersRunning == 0)
        #expect(gate.isFree)
    }

    @Test func aSuspectCancelledWhileWaitingEntersNothingAndLetsTheOthersWaitingIn() async {
        let gate = SuspectGate()
        #expect(gate.enterAsOtherAtOnce())
        let suspect = Task { await gate.enter() }
        await gate.waitUntilWaiting(1)
        let other = Task { await gate.enterAsOther() }
        await gate.waitUntilOthersWaiting(1)
        suspect.cancel()
        #expect(await suspect.value == false)
        #expect(await other.value)
        #expect(gate.isFree)
    }
}
