import Foundation
import Synchronization

/// The instant a session next tries again work that failed in the background (the friendships' refresh).
/// `BotSession.waitUntilIdle()` asks it, so that once a test's clock reaches that instant, the attempt is made
/// before the bot counts as idle.
final class RetryDeadline: Sendable {
    private struct State {
        var deadline: Date?
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        /// Who waits for a waiter to come (`waitUntilWaited()`).
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// The next attempt is due at `deadline`; nil when none is owed (the work succeeded, or its connection ended).
    func set(_ deadline: Date?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.deadline = deadline
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many wait for a change (for tests).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Returns once someone waits for a change (for tests).
    func waitUntilWaited() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waited = state.withLock { state -> Bool in
                guard state.waiters.isEmpty else { return true }
                state.watchers.append(continuation)
                return false
            }
            if waited { continuation.resume() }
        }
    }

    /// Whether an attempt is owed at `now`: its instant has come and it has not finished yet.
    func isDue(at now: Date) -> Bool {
        state.withLock { state in state.deadline.map { $0 <= now } ?? false }
    }

    /// Returns at once when no attempt is due at `now`, or else at the next `set` (the attempt failed and was put
    /// off, or finished), or when the calling task is cancelled.
    func waitUntilChanged(ifDueAt now: Date) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (waits, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    guard !Task.isCancelled, let deadline = state.deadline, deadline <= now else { return (false, []) }
                    state.waiters[id] = continuation
                    defer { state.watchers = [] }
                    return (true, state.watchers)
                }
                for watcher in watchers { watcher.resume() }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
