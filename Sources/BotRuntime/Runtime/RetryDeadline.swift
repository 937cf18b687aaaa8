import Foundation
import Synchronization

/// The instant a session next tries again work that failed in the background (the friendships' refresh).
/// `BotSession.waitUntilIdle()` asks it, so that once a test's clock reaches that instant, the attempt is made
/// before the bot counts as idle.
final class RetryDeadline: Sendable {
    private struct State {
        var deadline: Date?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// The next attempt is due at `deadline`; nil when none is owed (the work succeeded, or its connection ended).
    func set(_ deadline: Date?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.deadline = deadline
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether an attempt is owed at `now`: its instant has come and it has not finished yet.
    func isDue(at now: Date) -> Bool {
        state.withLock { state in state.deadline.map { $0 <= now } ?? false }
    }

    /// Returns at once when no attempt is due at `now`, or else at the next `set` (the attempt failed and was put
    /// off, or finished).
    func waitUntilChanged(ifDueAt now: Date) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let due = state.withLock { state -> Bool in
                guard let deadline = state.deadline, deadline <= now else { return false }
                state.waiters.append(continuation)
                return true
            }
            if !due { continuation.resume() }
        }
    }
}
