import ChatterBots
import Foundation
import Synchronization

/// Carries out the edits, deletions and reactions that handlers committed, one at a time in the order committed,
/// over REST; each stays in the store until the service has answered, and is retried after a failure the
/// service may get over (`MessageActionRetry`). Pending actions of an earlier run are carried out first.
///
/// No action goes out before the row of the one ahead of it is deleted: a row left behind would be carried out
/// again after a restart, after the later actions (an edit undoing the one after it). A failed deletion is tried
/// again with the backoff of `MessageActionRetry` while the rest of the queue waits.
final class MessageActionPerformer: Sendable {
    private struct State {
        var queue: [StoredMessageAction] = []
        var known: Set<Int64> = []
        /// The action at the head of the queue that the service answered but whose row could not be deleted yet,
        /// with how many deletions failed.
        var unforgotten: (row: Int64, failures: Int)?
        /// No try before this instant (a failure's backoff).
        var notBefore: Date?
        var isPerforming = false
        var isStarted = false
        var isStopped = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        var isIdle: Bool { queue.isEmpty && !isPerforming }
    }

    private let store: BotStore
    private let rest: ChatterRESTClient
    private let clock: any ChatterClock
    private let log: SessionLog
    private let metrics: SessionMetrics
    private let state = Mutex(State())
    private let work: WakeSignal

    init(store: BotStore, rest: ChatterRESTClient, clock: any ChatterClock, log: SessionLog, metrics: SessionMetrics) {
        self.store = store
        self.rest = rest
        self.clock = clock
        self.log = log
        self.metrics = metrics
        self.work = WakeSignal(clock: clock)
    }

    /// Queues the actions an earlier run left in the store.
    func loadPending() async throws(BotStoreError) {
        enqueue(try await store.pendingMessageActions())
    }

    /// Queues committed actions; rows already queued are ignored.
    func enqueue(_ actions: [StoredMessageAction]) {
        guard !actions.isEmpty else { return }
        state.withLock { state in
            for action in actions where state.known.insert(action.row).inserted { state.queue.append(action) }
        }
        work.wake()
    }

    /// Starts carrying actions out (once the bot is signed in); later calls do nothing.
    func start() {
        let starts = state.withLock { state -> Bool in
            guard !state.isStarted, !state.isStopped else { return false }
            state.isStarted = true
            return true
        }
        guard starts else { return }
        Task(executorPreference: SessionExecutor.preferred) { await self.run() }
    }

    /// Stops after the action being carried out; what is queued stays in the store for the next start.
    func stop() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isStopped = true
            state.queue = []
            state.unforgotten = nil
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        work.wake()
        for waiter in waiters { waiter.resume() }
    }

    /// Whether nothing is queued or being carried out.
    var isIdle: Bool { state.withLock { $0.isIdle } }

    /// Returns once nothing is queued or being carried out (or the performer stopped).
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.isIdle || state.isStopped { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private enum Step {
        case perform(StoredMessageAction)
        /// Delete the row of an action already answered, after a failed try.
        case forget(StoredMessageAction)
        case wait(until: Date?)
        case end
    }

    private func run() async {
        while true {
            let now = clock.now
            let step = state.withLock { state -> Step in
                if state.isStopped { return .end }
                if let notBefore = state.notBefore, now < notBefore { return .wait(until: notBefore) }
                guard let next = state.queue.first else { return .wait(until: nil) }
                state.isPerforming = true
                return state.unforgotten?.row == next.row ? .forget(next) : .perform(next)
            }
            switch step {
            case .end:
                return
            case .wait(let deadline):
                await work.wait(until: deadline)
            case .perform(let action):
                let outcome = await perform(action)
                report(action, outcome)
                await finish(action, outcome)
            case .forget(let action):
                await finish(action, .done)
            }
        }
    }

    /// Carries `action` out over REST; returns what to do next.
    private func perform(_ stored: StoredMessageAction) async -> MessageActionRetry {
        let action = stored.action
        do {
            switch action.change {
            case .edit(let body): _ = try await rest.editMessage(action.messageId, in: action.conversationId, body: body)
            case .delete: _ = try await rest.deleteMessage(action.messageId, in: action.conversationId)
            case .addReaction(let emoji): _ = try await rest.addReaction(emoji, to: action.messageId, in: action.conversationId)
            case .removeReaction(let emoji):
                _ = try await rest.removeReaction(emoji, from: action.messageId, in: action.conversationId)
            }
            return .done
        } catch {
            return MessageActionRetry.after(error, of: action.change, attempts: stored.attempts + 1)
        }
    }

    private func report(_ stored: StoredMessageAction, _ outcome: MessageActionRetry) {
        let trace = Self.trace(of: stored)
        let fields = Self.fields(of: stored)
        switch outcome {
        case .done:
            log.debug("message action carried out", trace: trace, fields)
        case .refused(let reason):
            log.error("the service refused a message action for good (\(reason)); it is dropped", trace: trace, fields)
            metrics.setLastError("message action refused: \(reason)")
        case .retry(let delay):
            log.warning("a message action failed; trying again in \(delay)", trace: trace, fields)
        }
    }

    /// Records `outcome` in the store, then in the queue: a retry counts its attempt and waits; an action done or
    /// refused is forgotten, unless its row could not be deleted, which holds the queue until a later try deletes it.
    private func finish(_ stored: StoredMessageAction, _ outcome: MessageActionRetry) async {
        let trace = Self.trace(of: stored)
        let retryDelay: Duration?
        if case .retry(let delay) = outcome { retryDelay = delay } else { retryDelay = nil }
        // The row changes before anyone hears the action is done, so a test that waits for idle finds the store clean.
        var forgetFailure: BotStoreError?
        do {
            if retryDelay != nil {
                try await store.recordMessageActionAttempt(stored.row, error: "\(outcome)")
            } else {
                try await store.finishMessageAction(stored.row)
            }
        } catch {
            if retryDelay == nil {
                forgetFailure = error
            } else {
                // Only the stored count of attempts falls behind; the action itself stays queued and stored.
                log.warning("could not record a message action's failed attempt: \(error)", trace: trace, Self.fields(of: stored))
            }
        }
        let row = stored.row
        let now = clock.now
        if let forgetFailure {
            let delay = state.withLock { state -> Duration in
                let failures = (state.unforgotten?.row == row ? state.unforgotten?.failures ?? 0 : 0) + 1
                let delay = MessageActionRetry.backoff(attempts: failures)
                state.unforgotten = (row, failures)
                state.isPerforming = false
                state.notBefore = now.adding(delay)
                return delay
            }
            log.error(
                "could not forget a message action the service answered (\(forgetFailure)); deleting its row again in \(delay), before any later action",
                trace: trace, Self.fields(of: stored))
            metrics.setLastError("could not forget a message action: \(forgetFailure)")
            return
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isPerforming = false
            if let retryDelay {
                state.notBefore = now.adding(retryDelay)
                if let index = state.queue.firstIndex(where: { $0.row == row }) { state.queue[index].attempts += 1 }
                return []
            }
            state.notBefore = nil
            if state.unforgotten?.row == row { state.unforgotten = nil }
            state.queue.removeAll { $0.row == row }
            state.known.remove(row)
            guard state.isIdle else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func trace(of stored: StoredMessageAction) -> String {
        stored.action.traceID ?? "message-action-\(stored.row)"
    }

    private static func fields(of stored: StoredMessageAction) -> [String: String] {
        [
            "message": stored.action.messageId.rawValue, "conversation": stored.action.conversationId.rawValue,
            "change": MessageActionWrites.columns(of: stored.action.change).kind,
        ]
    }
}
