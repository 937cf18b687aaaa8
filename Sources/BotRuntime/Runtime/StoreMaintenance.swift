import ChatterBots
import Foundation
import Synchronization

/// Keeps a bot's store from growing without bound: prunes seen-message records the cursors cover, settled outbox
/// entries, finished jobs, expired dialogs and old records of handled message updates, at most once per `interval`, after a synchronization.
/// Once what the synchronization brought is handled, it also frees the statements and pages that start-up (or
/// reconnect) used: a live bot mostly idles, and those were about half of a live bot's memory. Runs in the
/// background: it never delays the session.
final class StoreMaintenance: Sendable {
    /// How often the store is pruned.
    static let interval: Duration = .seconds(3600)
    /// Settled outbox entries are kept this long: longer than the service's 24 h idempotency window, so a handler
    /// that runs again within it finds its entries and sends nothing twice.
    static let outboxRetention: Duration = .seconds(48 * 3600)
    /// Finished jobs are kept this long, for `scheduledJobs(includingFinished:)`-style inspection.
    static let jobRetention: Duration = .seconds(7 * 86_400)
    /// Records of handled message updates are kept this long: a copy of an update comes within seconds, and a
    /// change to a message this much older is compared with no earlier version (docs on `Bot.onMessageEdited`).
    static let handledUpdateRetention: Duration = .seconds(7 * 86_400)

    private let store: BotStore
    private let clock: any ChatterClock
    private let log: SessionLog
    private let lastRun: Mutex<Date?>
    /// The pruning pass running, cancelled by ``stop()``.
    private let pendingPass = Mutex<Task<Void, Never>?>(nil)
    /// Whether a release waits for a synchronization's catch-up to settle.
    private let releaseWaiting = Mutex(false)
    /// How many passes and releases have not finished yet, and who waits for none to be left.
    private let unfinished = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    /// - Parameter lastPass: when the store was last pruned, if known; the next pass is due `interval` after it.
    init(store: BotStore, clock: any ChatterClock, log: SessionLog, lastPass: Date? = nil) {
        self.store = store
        self.clock = clock
        self.log = log
        self.lastRun = Mutex(lastPass)
    }

    /// When `store` was last pruned, as far as this process knows: a store its open just created holds nothing to
    /// prune, so its creation counts as a pass (with a thousand new bots, their first passes were ~4 % of the start-up's
    /// CPU); for any other store, unknown, and a pass is due after the first synchronization.
    static func lastPass(of store: BotStore, at now: Date) -> Date? {
        store.isNew ? now : nil
    }

    /// Called after a synchronization: prunes the store in the background unless a pass ran within `interval`
    /// (now, while the store is open anyway: a later pass would reopen a dormant store), and, once `settled`
    /// returns (what the synchronization brought is handled, committed and acknowledged), frees what the start-up
    /// and its catch-up left in the store's memory. One release waits at a time: a bot that reconnects while the
    /// previous one still waits for its catch-up adds none.
    func afterSynchronization(settled: @escaping @Sendable () async -> Void) {
        let now = clock.now
        let due = lastRun.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= Self.interval.timeInterval }) ?? true else { return false }
            last = now
            return true
        }
        if due {
            begin()
            let pass = Task(executorPreference: SessionExecutor.preferred) {
                await self.prune(now: now)
                await self.store.releaseMemory()  // what the pass read and compiled, once an hour
                self.end()
            }
            pendingPass.withLock { $0 = pass }
        }
        guard releaseWaiting.withLock({ waiting in
            defer { waiting = true }
            return !waiting
        }) else { return }
        begin()
        Task(executorPreference: SessionExecutor.preferred) {
            await settled()
            self.releaseWaiting.withLock { $0 = false }
            await self.store.releaseMemory()
            self.end()
        }
    }

    /// Returns once every pass and release started so far has finished, a stopped pass included (for tests).
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = unfinished.withLock { state -> Bool in
                guard state.count > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    private func begin() {
        unfinished.withLock { $0.count += 1 }
    }

    private func end() {
        let waiters = unfinished.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels a pass still running: the session is stopping and its store closes.
    func stop() {
        pendingPass.withLock { pass in
            pass?.cancel()
            pass = nil
        }
    }

    private func prune(now: Date) async {
        do {
            let seen = try await store.pruneSeenMessages()
            let outbox = try await store.pruneOutbox(settledBefore: now.addingTimeInterval(-Self.outboxRetention.timeInterval))
            let jobs = try await store.pruneFinishedJobs(finishedBefore: now.addingTimeInterval(-Self.jobRetention.timeInterval))
            let dialogs = try await store.pruneExpiredDialogs()
            let updates = try await store.pruneHandledUpdates(
                writtenBefore: now.addingTimeInterval(-Self.handledUpdateRetention.timeInterval))
            log.debug("store pruned", [
                "seenMessages": String(seen), "outboxEntries": String(outbox), "jobs": String(jobs), "dialogs": String(dialogs),
                "handledUpdates": String(updates),
            ])
        } catch {
            // Cancelled by `stop()`: the store closed under the pass, nothing is wrong.
            if !Task.isCancelled { log.warning("could not prune the store: \(error)") }
        }
    }
}
