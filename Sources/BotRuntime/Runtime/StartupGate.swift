import SQLite
import Synchronization

/// Admits bots' start-up attempts (open the store, sign in, connect, synchronize) a bounded number at a time, in
/// the order they asked, so that thousands of bots starting together, or coming back together after a server
/// restart or a key rotation (every bot closed with 4001 at once), go in waves that fit the store budget instead
/// of evicting each other's stores over and over, or refreshing their tokens all together.
///
/// A bot enters before its attempt and holds its ``Ticket`` until it is live, its attempt failed (a reconnect is
/// scheduled) or it stopped; releasing the ticket admits the next bot at once. With free room, ``enter()`` returns
/// at once: a single bot reconnecting while nothing else starts is never delayed.
///
/// ```swift
/// let gate = StartupGate(fitting: budget)          // half the budget's slots, 64 at most, starting at once
/// guard let ticket = await gate.enter() else { return }   // nil: the waiting task was cancelled
/// defer { ticket.release() }
/// ```
public final class StartupGate: Sendable {
    /// The most attempts admitted at once.
    public let limit: Int
    private let state: Mutex<State>

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var admitted = 0
        var waiters: [Waiter] = []
        var firstWaiter = 0
        var nextId: UInt64 = 0
        /// Callers of `waitUntilWaiting(_:)`: resumed once that many callers wait to be admitted.
        var queueWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            guard !queueWatchers.isEmpty else { return [] }
            let waiting = waiterCount
            let satisfied = queueWatchers.filter { $0.count <= waiting }.map(\.continuation)
            queueWatchers.removeAll { $0.count <= waiting }
            return satisfied
        }

        var waiterCount: Int { waiters.count - firstWaiter }

        mutating func popWaiter() -> Waiter? {
            guard firstWaiter < waiters.count else { return nil }
            let waiter = waiters[firstWaiter]
            firstWaiter += 1
            if firstWaiter == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                firstWaiter = 0
            } else if firstWaiter >= 1024 && firstWaiter * 2 >= waiters.count {
                waiters.removeFirst(firstWaiter)
                firstWaiter = 0
            }
            return waiter
        }

        mutating func removeWaiter(_ id: UInt64) -> Waiter? {
            guard let index = waiters[firstWaiter...].firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }
    }

    /// Admits at most `limit` attempts at once (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
        self.state = Mutex(State())
    }

    /// The fraction of a store budget's slots that bots may use to start at once, when sizing a gate from it: the
    /// rest stays with the stores of bots already live, so that starting bots evict idle stores, not each other's.
    public static let defaultBudgetFraction = 0.5

    /// The most bots a gate sized from a budget lets start at once. Each starting bot holds a start-up's working
    /// set (its store's pages and statements, a sign-in, a synchronization); with 1,000 bots, waves of 64 instead
    /// of all at once left 30 % less memory resident once all were live (the transient peak no longer scatters the
    /// live bots' objects across the heap), and came up as fast. At 64 at once, start-ups that each wait ~0.4 s
    /// on a distant server still run at ~160 a second.
    public static let defaultLimit = 64

    /// A gate admitting `fraction` of `budget`'s slots at once, and at most `maximum` (at least one).
    public convenience init(
        fitting budget: ConnectionBudget, fraction: Double = StartupGate.defaultBudgetFraction,
        maximum: Int = StartupGate.defaultLimit
    ) {
        self.init(limit: min(maximum, Int((Double(budget.limit) * min(1, max(0, fraction))).rounded(.down))))
    }

    /// How many attempts hold a ticket now.
    public var admittedCount: Int { state.withLock { $0.admitted } }

    /// How many callers wait to be admitted.
    public var waitingCount: Int { state.withLock { $0.waiterCount } }

    /// Returns once at least `count` callers wait to be admitted (for tests that need a bot parked at the gate).
    package func waitUntilWaiting(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                guard state.waiterCount < count else { return true }
                state.queueWatchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Waits (without blocking a thread) until there is room, first come first served, and returns the ticket to
    /// release when the attempt is over. Returns nil, holding nothing, when the calling task is cancelled first.
    public func enter() async -> Ticket? {
        let id = state.withLock { state -> UInt64 in
            state.nextId += 1
            return state.nextId
        }
        let admitted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                enum Outcome { case admitted, waiting([CheckedContinuation<Void, Never>]), cancelled }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if state.admitted < limit && state.waiterCount == 0 {
                        state.admitted += 1
                        return .admitted
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .waiting(state.takeSatisfiedWatchers())
                }
                switch outcome {
                case .admitted: continuation.resume(returning: true)
                case .cancelled: continuation.resume(returning: false)
                case .waiting(let watchers): for watcher in watchers { watcher.resume() }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.removeWaiter(id) }
            waiter?.continuation.resume(returning: false)
        }
        return admitted ? Ticket(gate: self) : nil
    }

    /// One admitted attempt. Releasing it (once; later calls do nothing, and dropping it releases it) admits the
    /// next waiting caller.
    public final class Ticket: Sendable {
        private let gate: StartupGate
        private let released = Atomic<Bool>(false)

        fileprivate init(gate: StartupGate) {
            self.gate = gate
        }

        /// Ends the attempt's hold on the gate.
        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            gate.leave()
        }

        deinit {
            release()
        }
    }

    private func leave() {
        let next = state.withLock { state -> Waiter? in
            if let waiter = state.popWaiter() { return waiter }  // the slot passes straight to the next caller
            state.admitted -= 1
            return nil
        }
        next?.continuation.resume(returning: true)
    }
}
