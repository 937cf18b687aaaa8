import Synchronization

/// Lets a suspect (work a crash caught before) run with no other handler running in the whole process, so that when
/// the process dies again, the one suspect running is the one to blame, and nothing innocent is counted twice.
///
/// Every other handler holds the gate shared while it runs. A suspect waits until those running have ended, and
/// while it waits or runs no other handler starts. When it leaves, the handlers that waited for it go first, then
/// the next suspect once they have ended: the fleet pauses for each suspect's turn, not for the whole queue of them.
package final class SuspectGate: Sendable {
    private struct State {
        /// Whether a suspect runs.
        var isHeld = false
        /// Handlers other than suspects that run now.
        var othersRunning = 0
        /// Suspects in arrival order; resumed with true when handed the gate, false when their task was cancelled first.
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter: UInt64 = 0
        /// Other handlers waiting for a suspect's turn to end; resumed with true when let in, false when their task
        /// was cancelled first.
        var othersWaiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        /// Who waits for a number of suspects (`waitUntilWaiting(_:)`) or of other handlers
        /// (`waitUntilOthersWaiting(_:)`) waiting.
        var watchers: [(count: Int, ofSuspects: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        /// How many suspects, or other handlers, wait.
        func waiting(ofSuspects: Bool) -> Int { ofSuspects ? waiters.count : othersWaiting.count }

        /// The watchers whose count of suspects (or of other handlers) waiting is reached now, taken out.
        mutating func takeWatchersReached(ofSuspects: Bool) -> [CheckedContinuation<Void, Never>] {
            let count = waiting(ofSuspects: ofSuspects)
            let reached = { (watcher: (count: Int, ofSuspects: Bool, continuation: CheckedContinuation<Void, Never>)) in
                watcher.ofSuspects == ofSuspects && watcher.count <= count
            }
            defer { watchers.removeAll(where: reached) }
            return watchers.filter(reached).map(\.continuation)
        }

        /// Whether a handler other than a suspect may start now.
        var admitsOthers: Bool { !isHeld && waiters.isEmpty }

        /// Hands the gate to the first suspect waiting, if nothing else runs.
        mutating func handToNextSuspect() -> CheckedContinuation<Bool, Never>? {
            guard !isHeld, othersRunning == 0, !waiters.isEmpty else { return nil }
            isHeld = true
            return waiters.removeFirst().continuation
        }

        /// Lets the other handlers waiting in, when no suspect runs or waits.
        mutating func admitOthersWaiting() -> [CheckedContinuation<Bool, Never>] {
            guard !isHeld, !othersWaiting.isEmpty else { return [] }
            defer { othersWaiting = [] }
            othersRunning += othersWaiting.count
            return othersWaiting.map(\.continuation)
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// Returns once `count` suspects wait for the gate (for tests).
    func waitUntilWaiting(_ count: Int) async {
        await waitUntil(count, waitingOfSuspects: true)
    }

    /// Returns once `count` handlers other than suspects wait for a suspect's turn to end (for tests).
    func waitUntilOthersWaiting(_ count: Int) async {
        await waitUntil(count, waitingOfSuspects: false)
    }

    private func waitUntil(_ count: Int, waitingOfSuspects ofSuspects: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                guard state.waiting(ofSuspects: ofSuspects) < count else { return true }
                state.watchers.append((count, ofSuspects, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Waits until no other handler runs and no suspect before it waits, then holds the gate until `leave()`; false,
    /// holding nothing, when the task was cancelled while it waited.
    @discardableResult
    func enter() async -> Bool {
        let id = newWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (entered, watchers) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if state.waiters.isEmpty, !state.isHeld, state.othersRunning == 0 {
                        state.isHeld = true
                        return (true, [])
                    }
                    guard !Task.isCancelled else { return (false, []) }
                    state.waiters.append((id, continuation))
                    return (nil, state.takeWatchersReached(ofSuspects: true))
                }
                for watcher in watchers { watcher.resume() }
                if let entered { continuation.resume(returning: entered) }
            }
        } onCancel: {
            let (cancelled, admitted) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, [CheckedContinuation<Bool, Never>]) in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                let cancelled = state.waiters.remove(at: index).continuation
                return (cancelled, state.waiters.isEmpty ? state.admitOthersWaiting() : [])
            }
            cancelled?.resume(returning: false)
            for other in admitted { other.resume(returning: true) }
        }
    }

    private func newWaiterID() -> UInt64 {
        state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
    }

    /// A suspect's turn ended: the other handlers that waited for it go first, the next suspect once they ended.
    func leave() {
        let (admitted, next) = state.withLock { state in
            state.isHeld = false
            let admitted = state.admitOthersWaiting()
            return (admitted, admitted.isEmpty ? state.handToNextSuspect() : nil)
        }
        for other in admitted { other.resume(returning: true) }
        next?.resume(returning: true)
    }

    /// Counts a handler other than a suspect as running until `leaveAsOther()`, unless a suspect runs or waits:
    /// then false, and nothing counted.
    func enterAsOtherAtOnce() -> Bool {
        state.withLock { state in
            guard state.admitsOthers else { return false }
            state.othersRunning += 1
            return true
        }
    }

    /// Waits while a suspect runs or waits, then counts a handler other than a suspect as running until
    /// `leaveAsOther()`; false, counting nothing, when the task was cancelled while it waited.
    @discardableResult
    func enterAsOther() async -> Bool {
        let id = newWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (entered, watchers) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if state.admitsOthers {
                        state.othersRunning += 1
                        return (true, [])
                    }
                    guard !Task.isCancelled else { return (false, []) }
                    state.othersWaiting.append((id, continuation))
                    return (nil, state.takeWatchersReached(ofSuspects: false))
                }
                for watcher in watchers { watcher.resume() }
                if let entered { continuation.resume(returning: entered) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.othersWaiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.othersWaiting.remove(at: index).continuation
            }
            cancelled?.resume(returning: false)
        }
    }

    /// A handler other than a suspect ended: the last one lets a waiting suspect in.
    func leaveAsOther() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.othersRunning -= 1
            return state.handToNextSuspect()
        }
        next?.resume(returning: true)
    }

    /// Whether no suspect holds the gate or waits for it (for tests).
    var isFree: Bool { state.withLock { !$0.isHeld && $0.waiters.isEmpty } }

    /// Whether a suspect has its turn (for tests).
    var isHeld: Bool { state.withLock { $0.isHeld } }

    /// How many handlers other than suspects run (for tests).
    var othersRunning: Int { state.withLock { $0.othersRunning } }

    /// One turn at the gate, given back once however many of its ends (the handler returned, its run completed or
    /// was abandoned) come.
    final class Turn: Sendable {
        private let leave: @Sendable () -> Void
        private let isOver = Atomic<Bool>(false)

        init(leave: @escaping @Sendable () -> Void) {
            self.leave = leave
        }

        func end() {
            guard !isOver.exchange(true, ordering: .acquiringAndReleasing) else { return }
            leave()
        }
    }
}
