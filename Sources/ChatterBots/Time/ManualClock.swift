import Foundation
import Synchronization

/// A virtual clock for deterministic tests: time moves only when a test calls `advance(by:)` or `advance(to:)`.
///
/// `advance` walks from deadline to deadline: it sets `now` to the earliest pending deadline, resumes that one
/// sleeper, waits until its task runs again, then yields to the cooperative pool until no new sleeps are
/// registered, before it looks at the next deadline. So a task that sleeps again after waking (a periodic timer) is seen
/// within the same advance: advancing 10 minutes fires a 25 s periodic timer 24 times, each at its own instant.
/// Sleepers with equal deadlines resume in the order they started sleeping.
///
/// That settling is a guess: it yields at background priority, so it waits behind every other task in the process, and
/// on a busy machine (a whole test suite running in parallel) an advance can take minutes. Code under test that can
/// say when it has nothing left to do at an instant (a bot's idle signal, the count of armed timers) should be
/// advanced with `advance(by:untilIdle:)`, which waits for that instead of for the whole pool.
///
/// Use `waitForSleepers(_:)` to wait until the code under test has reached its sleeps before advancing.
/// Call `advance` from one task at a time (the test); concurrent advances would interleave their steps.
public final class ManualClock: ChatterClock {
    /// The instant a `ManualClock` starts at unless told otherwise: 2026-01-01T00:00:00Z.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_225_600)

    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let id: UInt64
        let count: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var waiters: [Waiter] = []
        /// Counts every sleep registered; `settle` watches it to see whether resumed tasks are still busy.
        var registrations: UInt64 = 0
        /// Sleepers `advance` resumed whose task has not run again yet.
        var resumedNotWoken: Set<UInt64> = []
        /// `advance` waiting for a resumed sleeper's task to run again.
        var wakeWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Removes and returns the waiters whose sleeper count has been reached.
        mutating func takeSatisfiedWaiters() -> [Waiter] {
            let count = sleepers.count
            let satisfied = waiters.filter { $0.count <= count }
            waiters.removeAll { $0.count <= count }
            return satisfied
        }

        /// Removes and returns the earliest sleeper due at or before `limit` (ties: the first to sleep).
        mutating func takeEarliest(notAfter limit: Date) -> Sleeper? {
            var best: Int?
            for index in sleepers.indices where sleepers[index].deadline <= limit {
                if let current = best {
                    let a = sleepers[index], b = sleepers[current]
                    if a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id) { best = index }
                } else {
                    best = index
                }
            }
            guard let best else { return nil }
            return sleepers.remove(at: best)
        }
    }

    private let state: Mutex<State>
    private let settleYields: Int
    private let wakeGrace: Duration

    /// Creates a clock standing still at `now`.
    ///
    /// - Parameters:
    ///   - settleYields: how many times `advance` yields to the pool after resuming a sleeper (and again
    ///     while resumed tasks keep registering sleeps). Raise it if the code under test hops through many actors
    ///     between waking and sleeping again.
    ///   - wakeGrace: how much real time `advance` gives a resumed task to register its next sleep before it
    ///     takes the task as done with the clock. A busy machine can keep a woken task off the CPU for
    ///     milliseconds, longer than any number of yields; a task that sleeps again ends the wait at once.
    public init(now: Date = ManualClock.defaultStart, settleYields: Int = 10, wakeGrace: Duration = .milliseconds(20)) {
        self.state = Mutex(State(now: now))
        self.settleYields = max(1, settleYields)
        self.wakeGrace = wakeGrace
    }

    /// The time the test last advanced the clock to.
    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline any task sleeps until, or nil when nobody sleeps.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Suspends until an `advance` reaches `deadline` (returns at once for a deadline already passed).
    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Registration { case cancelled, alreadyDue, registered([Waiter]) }
                let registration = state.withLock { state -> Registration in
                    // Checked under the lock: a cancellation either happened before (seen here) or its handler
                    // runs after the sleeper is stored and removes it.
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .alreadyDue }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    state.registrations += 1
                    return .registered(state.takeSatisfiedWaiters())
                }
                switch registration {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .alreadyDue: continuation.resume()
                case .registered(let waiters): waiters.forEach { $0.continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // Running again after a resume by `advance`: tell it, so it can let this task reach its next sleep.
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.resumedNotWoken.remove(id)
            return state.wakeWaiters.removeValue(forKey: id)
        }
        waiter?.resume()
    }

    /// Waits until at least `count` tasks sleep on this clock, so a test advances only once the code under test
    /// has armed its timers.
    ///
    /// - Throws: `CancellationError` if the waiting task is cancelled (for example by a test time limit).
    public func waitForSleepers(_ count: Int) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Registration { case cancelled, satisfied, waiting }
                let registration = state.withLock { state -> Registration in
                    if Task.isCancelled { return .cancelled }
                    if state.sleepers.count >= count { return .satisfied }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return .waiting
                }
                switch registration {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .satisfied: continuation.resume()
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, resuming every sleeper due on the way in deadline order.
    public func advance(by duration: Duration) async {
        await advance(to: now.addingTimeInterval(duration.clockSeconds))
    }

    /// Moves time forward to `target`, resuming every sleeper due on the way in deadline order, each at its own
    /// deadline. Time never moves backwards: a `target` in the past only lets already-resumed tasks settle.
    public func advance(to target: Date) async {
        await settle()
        while let sleeper = takeNextDue(notAfter: target) {
            let registrationsBefore = state.withLock { $0.registrations }
            sleeper.continuation.resume()
            await waitUntilWoken(sleeper.id)
            await waitForNextRegistration(after: registrationsBefore)
            await settle()
        }
    }

    /// Moves time forward by `duration` as `advance(by:)` does, but the code under test says when it is done at each
    /// instant: `idle` returns once it has nothing left to do now (for example `waitForSleepers(n)` for `n` periodic
    /// timers, or a bot's idle signal). `advance` awaits it before the first deadline and after each resumed sleeper
    /// has run again, and never yields to the cooperative pool or waits in real time, so other work on a busy
    /// machine cannot hold it up. An `idle` that returns early lets time move on before the woken work is done.
    ///
    /// - Throws: what `idle` throws (time stays at the deadline it had reached).
    public func advance(by duration: Duration, untilIdle idle: () async throws -> Void) async rethrows {
        try await advance(to: now.addingTimeInterval(duration.clockSeconds), untilIdle: idle)
    }

    /// Moves time forward to `target` as `advance(to:)` does, waiting for `idle` at each instant as
    /// `advance(by:untilIdle:)` does.
    ///
    /// - Throws: what `idle` throws (time stays at the deadline it had reached).
    public func advance(to target: Date, untilIdle idle: () async throws -> Void) async rethrows {
        try await idle()
        while let sleeper = takeNextDue(notAfter: target) {
            sleeper.continuation.resume()
            await waitUntilWoken(sleeper.id)
            try await idle()
        }
    }

    /// Removes the earliest sleeper due at or before `target` and moves `now` to its deadline, marking it resumed but
    /// not yet woken; with none due, moves `now` to `target` (never backwards) and returns nil.
    private func takeNextDue(notAfter target: Date) -> Sleeper? {
        state.withLock { state -> Sleeper? in
            guard let due = state.takeEarliest(notAfter: target) else {
                if target > state.now { state.now = target }
                return nil
            }
            if due.deadline > state.now { state.now = due.deadline }
            state.resumedNotWoken.insert(due.id)
            return due
        }
    }

    /// Waits until the task of a sleeper resumed by `advance` runs again (however busy the pool is), so that
    /// `settle` only has to cover the work between waking and the next sleep.
    private func waitUntilWoken(_ id: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let woken = state.withLock { state -> Bool in
                guard state.resumedNotWoken.contains(id) else { return true }
                state.wakeWaiters[id] = continuation
                return false
            }
            if woken { continuation.resume() }
        }
    }

    /// Waits, in real time up to `wakeGrace`, until some task registers a sleep after `count` registrations:
    /// the woken task reaching its next sleep, however long the machine keeps it off the CPU. Sleeping (not
    /// spinning) leaves the CPU to that task.
    private func waitForNextRegistration(after count: UInt64) async {
        let deadline = ContinuousClock.now.advanced(by: wakeGrace)
        while state.withLock({ $0.registrations }) == count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .microseconds(250))
        }
    }

    /// Lets resumed tasks run until they stop registering new sleeps (bounded, so a busy loop cannot hang a test).
    private func settle() async {
        for _ in 0..<100 {
            let before = state.withLock { $0.registrations }
            for _ in 0..<settleYields {
                await Task.detached(priority: .background) { await Task.yield() }.value
            }
            if state.withLock({ $0.registrations }) == before { return }
        }
    }
}
