import ChatterBots
import Foundation
import Synchronization

/// Keeps a bot's store from growing without bound: prunes seen-message records the cursors cover, settled outbox
/// entries, finished jobs and expired dialogs, at most once per `interval`. After every synchronization, once what
/// it brought is handled, it also frees the statements and pages that start-up (or reconnect) used: a live bot
/// mostly idles, and those were about half of a live bot's memory. Runs in the background: it never delays the
/// session.
final class StoreMaintenance: Sendable {
    /// How often the store is pruned.
    static let interval: Duration = .seconds(3600)
    /// Settled outbox entries are kept this long: longer than the service's 24 h idempotency window, so a handler
    /// that runs again within it finds its entries and sends nothing twice.
    static let outboxRetention: Duration = .seconds(48 * 3600)
    /// Finished jobs are kept this long, for `scheduledJobs(includingFinished:)`-style inspection.
    static let jobRetention: Duration = .seconds(7 * 86_400)

    private let store: BotStore
    private let clock: any ChatterClock
    private let log: SessionLog
    private let lastRun = Mutex<Date?>(nil)

    init(store: BotStore, clock: any ChatterClock, log: SessionLog) {
        self.store = store
        self.clock = clock
        self.log = log
    }

    /// Called after a synchronization: in the background, once `settled` returns (the messages the synchronization
    /// brought are handled and committed), frees what the start-up and its catch-up left in the store's memory,
    /// then prunes the store unless a pass ran within `interval`, and frees what the pass read.
    func afterSynchronization(settled: @escaping @Sendable () async -> Void) {
        let now = clock.now
        let due = lastRun.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= Self.interval.timeInterval }) ?? true else { return false }
            last = now
            return true
        }
        Task {
            await settled()
            await self.store.releaseMemory()
            guard due else { return }
            await self.prune(now: now)
            await self.store.releaseMemory()
        }
    }

    private func prune(now: Date) async {
        do {
            let seen = try await store.pruneSeenMessages()
            let outbox = try await store.pruneOutbox(settledBefore: now.addingTimeInterval(-Self.outboxRetention.timeInterval))
            let jobs = try await store.pruneFinishedJobs(finishedBefore: now.addingTimeInterval(-Self.jobRetention.timeInterval))
            let dialogs = try await store.pruneExpiredDialogs()
            log.debug("store pruned", [
                "seenMessages": String(seen), "outboxEntries": String(outbox), "jobs": String(jobs), "dialogs": String(dialogs),
            ])
        } catch {
            log.warning("could not prune the store: \(error)")
        }
    }
}
