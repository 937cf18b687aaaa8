import ChatterBots
import Foundation
import Synchronization
import WebSocket

/// The threads the kinds' `make`s of a process run on, as `MakeThreadRules` allow: every session of a process must
/// share one, so that makes that never return hold a bounded number of threads across every bot and reload.
package final class MakeThreads: Sendable {
    /// How a request to call a kind's `make` ended.
    enum Start: Sendable {
        /// The make runs on its thread; it is given up at `deadline`.
        case started(deadline: Date)
        /// It was not called.
        case refused(MakeThreadRules.Refusal)
    }

    private struct State {
        var rules: MakeThreadRules
        /// The requests waiting for a thread, woken to ask again whenever a make returns.
        var waiters: [UInt64: WakeSignal] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Threads for `width` makes at once, replacing up to `spares` makes given up at their timeout.
    package init(width: Int, spares: Int) {
        state = Mutex(State(rules: MakeThreadRules(width: width, spares: spares)))
    }

    /// Threads for as many makes at once as `gate` starts bots (`StartupGate.defaultLimit` without a gate), and as
    /// many again for makes given up: one wave of makes that never return costs the others nothing.
    package convenience init(fitting gate: StartupGate?) {
        let width = gate?.limit ?? StartupGate.defaultLimit
        self.init(width: width, spares: width)
    }

    /// How many threads run a kind's make now, given up or not.
    package var threads: Int { state.withLock { $0.rules.threads } }

    /// Runs `work`, `kind`'s make for `bot`, on a thread of its own once the rules allow it, with `timeout` on
    /// `clock` from then; waits while every thread is busy with a make in its time. Nil, calling nothing, when the
    /// task is cancelled while it waits.
    func start(
        kind: String, bot: String, timeout: Duration, clock: any ChatterClock, work: @escaping @Sendable () -> Void
    ) async -> Start? {
        let signal = WakeSignal(clock: clock)
        let waiter = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: waiter) } }
        while !Task.isCancelled {
            let decision = state.withLock { state in
                let decision = state.rules.request(kind: kind, bot: bot, timeout: timeout, now: clock.now)
                if case .wait = decision { state.waiters[waiter] = signal }
                return decision
            }
            switch decision {
            case .start(let id, let deadline):
                onThreadOfItsOwn { [self] in
                    work()
                    returned(id)
                }
                return .started(deadline: deadline)
            case .refuse(let refusal):
                return .refused(refusal)
            case .wait(let until):
                await signal.wait(until: until)
            }
        }
        return nil
    }

    /// The make `id` returned: its thread ends, and the requests that wait ask again.
    private func returned(_ id: MakeThreadRules.CallID) {
        let waiting = state.withLock { state in
            state.rules.returned(id)
            return Array(state.waiters.values)
        }
        for signal in waiting { signal.wake() }
    }

    /// Runs `work` on a new thread with the stack an event loop's thread has, and a signal stack of its own, so
    /// that a `make` that overflows its stack is still named in the crash report.
    private func onThreadOfItsOwn(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let signalStack = AlternateSignalStack()
            work()
            _ = consume signalStack
        }
        thread.name = "chatterbots.make"
        thread.stackSize = 8 << 20
        thread.start()
    }
}
