import ChatterBots
import Foundation
import SQLite

/// The quarantine of bots that no process runs, read and changed in their store files: what the `quarantine`
/// commands use when no `run` answers over HTTP. It never races a live process for a store: it holds the data
/// directory's in-flight table lock (which every `run` holds while it runs) for each operation, and refuses a
/// store that another process has open. A retry waits for the bot's next start.
package struct OfflineQuarantine: Sendable {
    /// The data directory of the configuration.
    package var dataDirectory: URL
    /// The configured bots' names, in configuration order.
    package var bots: [String]
    package var clock: any ChatterClock

    package init(dataDirectory: URL, bots: [String], clock: any ChatterClock = SystemClock()) {
        self.dataDirectory = dataDirectory
        self.bots = bots
        self.clock = clock
    }

    /// The quarantined work of every bot (or of the bot named `bot`), in configuration order, oldest first.
    package func list(bot: String? = nil) async throws(QuarantineControlError) -> [BotQuarantineEntry] {
        if let bot, !bots.contains(bot) { throw .unknownBot(bot, known: bots) }
        var result: [BotQuarantineEntry] = []
        for name in bots where bot == nil || name == bot {
            let entries = try await withStore(of: name) { store throws(BotStoreError) in try await store.quarantined() }
            result += (entries ?? []).map { BotQuarantineEntry(bot: name, entry: $0) }
        }
        return result
    }

    /// Marks the entry to be handed to its handler at its bot's next start.
    package func retry(_ reference: QuarantineReference) async throws(QuarantineControlError) -> QuarantineRetryOutcome {
        guard bots.contains(reference.bot) else { throw .unknownBot(reference.bot, known: bots) }
        let entry = try await withStore(of: reference.bot) { store throws(BotStoreError) in
            try await store.requestRetry(of: reference.id)
        }
        guard let entry = entry ?? nil else { throw .unknownEntry(reference) }
        return QuarantineRetryOutcome(entry: BotQuarantineEntry(bot: reference.bot, entry: entry), runs: .nextStart)
    }

    /// Forgets the entry.
    package func drop(_ reference: QuarantineReference) async throws(QuarantineControlError) {
        guard bots.contains(reference.bot) else { throw .unknownBot(reference.bot, known: bots) }
        let dropped = try await withStore(of: reference.bot) { store throws(BotStoreError) in
            try await store.dropQuarantined(reference.id)
        }
        guard dropped == true else { throw .unknownEntry(reference) }
    }

    /// Runs `body` with the store of `bot`, opened for the call under the data directory's lock; nil when the bot
    /// has no store yet (it never ran), which has nothing quarantined.
    private func withStore<T: Sendable>(
        of bot: String, _ body: (BotStore) async throws(BotStoreError) -> T
    ) async throws(QuarantineControlError) -> T? {
        let path = dataDirectory.appendingPathComponent("\(bot).sqlite").path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let lock: InFlightTable.IdleLock
        do {
            lock = try InFlightTable.lockIdle(directory: dataDirectory)
        } catch {
            if case .inUse = error { throw .dataDirectoryInUse(dataDirectory.path) }
            throw .storage(bot: bot, reason: error.description)
        }
        let store: BotStore
        do {
            store = try await BotStore.open(path: path, clock: clock)
        } catch {
            if case .inUse = error { throw .storeLocked(bot: bot, path: path) }
            if case .storage(_, let underlying) = error,
                case .cannotOpen(_, .lockedByAnotherConnection, _)? = underlying as? DatabaseError {
                throw .storeLocked(bot: bot, path: path)
            }
            throw .storage(bot: bot, reason: error.description)
        }
        let result: T
        do {
            result = try await body(store)
        } catch {
            await store.close()
            throw .storage(bot: bot, reason: error.description)
        }
        await store.close()
        withExtendedLifetime(lock) {}
        return result
    }
}
