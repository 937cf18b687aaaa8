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
        /// It was not called; with `readmission` when it was refused because an earlier make of its kind was
        /// given up, which tells when that make has returned.
        case refused(MakeThreadRules.Refusal, readmission: Readmission?)
    }

    /// How many make threads run now: what `/healthz` and `/metrics` show.
    package struct Census: Sendable, Equatable, Codable {
        /// Makes running within their timeout.
        package var running: Int
        /// Makes given up at their timeout that have not returned: each holds its thread until it does.
        package var givenUp: Int

        package init(running: Int, givenUp: Int) {
            self.running = running
            self.givenUp = givenUp
        }
    }

    /// A request refused because an earlier make of its kind was given up and has not returned: `wait()` returns
    /// once that make has returned (normally or by throwing), so that the bot may start. Let go, it is forgotten.
    final class Readmission: Sendable {
        fileprivate let id: MakeThreadRules.CallID
        fileprivate let ticket: Ticket
        private let threads: MakeThreads

        fileprivate init(id: MakeThreadRules.CallID, ticket: Ticket, threads: MakeThreads) {
            self.id = id
            self.ticket = ticket
            self.threads = threads
        }

        deinit {
            threads.forget(heldBack: id)
        }

        /// Waits until no make of the kind given up runs any more: true then, false when the task is cancelled first.
        func wait() async -> Bool {
            while !ticket.isReadmitted.load(ordering: .acquiring) {
                guard !Task.isCancelled else { return false }
                await ticket.signal.wait()
            }
            return true
        }
    }

    /// What a `Readmission` waits on, and what `returned(_:clock:)` wakes.
    fileprivate final class Ticket: Sendable {
        let signal: WakeSignal
        let isReadmitted = Atomic<Bool>(false)

        init(clock: any ChatterClock) {
            self.signal = WakeSignal(clock: clock)
        }

        func readmit() {
            isReadmitted.store(true, ordering: .releasing)
            signal.wake()
        }
    }

    private struct State {
        var rules: MakeThreadRules
        /// The requests waiting for a thread, woken to ask again whenever a make returns.
        var waiters: [UInt64: WakeSignal] = [:]
        var nextWaiter: UInt64 = 0
        /// The requests held back until a make of their kind given up returns, by their id in the rules.
        var heldBack: [MakeThreadRules.CallID: Ticket] = [:]
    }

    private let state: Mutex<State>
    private let pool: MakeThreadPool

    /// Threads for `width` makes at once, replacing up to `spares` makes given up at their timeout; a thread whose
    /// make returned waits `keepIdle` for the next.
    package init(width: Int, spares: Int, keepIdle: Duration = .seconds(5)) {
        state = Mutex(State(rules: MakeThreadRules(width: width, spares: spares)))
        pool = MakeThreadPool(keepIdle: keepIdle)
    }

    /// Threads for as many makes at once as `gate` starts bots (`StartupGate.defaultLimit` without a gate), and as
    /// many again for makes given up: one wave of makes that never return costs the others nothing.
    package convenience init(fitting gate: StartupGate?) {
        let width = gate?.limit ?? StartupGate.defaultLimit
        self.init(width: width, spares: width)
    }

    /// How many threads run a kind's make now, given up or not.
    package var threads: Int { state.withLock { $0.rules.threads } }

    /// How many threads wait for a make, kept from makes that returned.
    var idleThreads: Int { pool.idleThreads }

    /// How many makes run within their timeout and past it at `now`.
    package func census(at now: Date) -> Census {
        state.withLock { state in
            let givenUp = state.rules.givenUp(at: now)
            return Census(running: state.rules.threads - givenUp, givenUp: givenUp)
        }
    }

    /// Runs `work`, `kind`'s make for `bot`, on a thread of its own (one kept from a make that returned, or a new
    /// one) once the rules allow it, with `timeout` on
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
            let (decision, heldBack) = state.withLock { state -> (MakeThreadRules.Decision, Readmission?) in
                let decision = state.rules.request(kind: kind, bot: bot, timeout: timeout, now: clock.now)
                switch decision {
                case .wait:
                    state.waiters[waiter] = signal
                case .refuse(.kindStillRunning(_, _)):
                    // Held back in the same turn as the refusal: the make it waits for cannot return in between.
                    let id = state.rules.holdBack(kind: kind)
                    let ticket = Ticket(clock: clock)
                    state.heldBack[id] = ticket
                    return (decision, Readmission(id: id, ticket: ticket, threads: self))
                case .start, .refuse:
                    break
                }
                return (decision, nil)
            }
            switch decision {
            case .start(let id, let deadline):
                pool.run { [self] in
                    work()
                    returned(id, clock: clock)
                }
                return .started(deadline: deadline)
            case .refuse(let refusal):
                return .refused(refusal, readmission: heldBack)
            case .wait(let until):
                await signal.wait(until: until)
            }
        }
        return nil
    }

    /// The make `id` returned: its thread waits for the next make, the requests that wait ask again, and those held back for its kind
    /// are readmitted when the rules say so.
    private func returned(_ id: MakeThreadRules.CallID, clock: any ChatterClock) {
        let (waiting, readmitted) = state.withLock { state in
            let returned = state.rules.returned(id, now: clock.now)
            let readmitted = returned.readmitted.compactMap { state.heldBack.removeValue(forKey: $0) }
            return (Array(state.waiters.values), readmitted)
        }
        for signal in waiting { signal.wake() }
        for ticket in readmitted { ticket.readmit() }
    }

    /// The readmission of the request held back as `id` is let go: nobody waits for it any more.
    private func forget(heldBack id: MakeThreadRules.CallID) {
        state.withLock { state in
            state.rules.forget(heldBack: id)
            _ = state.heldBack.removeValue(forKey: id)
        }
    }
}
