import ChatterBots
import Foundation
import SQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Moves a bot, with everything its store holds, from one data directory to another: `example-bots export` and
/// `import` (docs/scaling.md, "Moving a bot and resharding").
///
/// Export copies the whole store (device session and tokens, cursors, outbox, state, schedules, dialogs, quarantine)
/// with SQLite's online backup while holding the store's ``StoreLock``, so a running bot refuses it, and then marks
/// the source as moved (``StoreMove``) so that it never starts there again. Import puts the copy into a data
/// directory as the bot's store, unmarked: the bot is the same device there and loses nothing.
package enum StoreTransfer {
    /// What a store that was exported or imported holds, for people to check.
    package struct Summary: Sendable, Equatable {
        /// The bot's name (the store's file name).
        package var bot: String
        /// The bot's user and device, nil before its first sign-in.
        package var userId: String?
        package var deviceId: String?
        /// Outbox entries not acknowledged yet: they are sent from the new place.
        package var pendingOutbox: Int
        /// The store's file where it is now (the exported file, or the imported store).
        package var path: String
    }

    /// The `store_metadata` key of the bot's name, written by export so that import knows it.
    static let botNameKey = "bot_name"

    /// Copies the store of `bot` in `dataDirectory` to a new file `file` (mode 0600), then marks the store as moved
    /// there; both are on disk when this returns. Refused while the bot runs (its store is locked), for a store moved
    /// already, and when `file` exists.
    package static func export(
        bot: String, dataDirectory: URL, to file: URL, clock: any ChatterClock = SystemClock()
    ) async throws(StoreTransferError) -> Summary {
        let source = BotRuntimeEnvironment.storeURL(forBot: bot, in: dataDirectory).path
        guard FileManager.default.fileExists(atPath: source) else { throw .noStore(bot: bot, path: source) }
        let destination = file.standardizedFileURL.path
        guard !FileManager.default.fileExists(atPath: destination) else { throw .fileExists(destination) }
        let store: BotStore
        do {
            // Every commit synced: the moved mark is on disk before success is reported, or after a power loss the
            // bot could start here again while it runs where the file is imported.
            store = try await BotStore.open(path: source, clock: clock, synchronous: .full)
        } catch {
            throw .store(error)
        }
        let move = StoreMove(file: destination, movedAt: clock.now)
        do {
            let exported = try await store.queue.writeWithoutTransaction { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO store_metadata (key, value) VALUES (?, ?)", arguments: [botNameKey, bot])
                try db.backup(to: destination)
                try move.record(in: db)
                return try summary(of: db, bot: bot, path: destination)
            }
            await store.close()
            return exported
        } catch {
            await store.close()
            throw .store(BotStoreError(error, during: "export the store at \(source) to \(destination)"))
        }
    }

    /// Puts the store exported to `file` into `dataDirectory` as the store of `bot` (by default the bot it was exported
    /// from), mode 0600, with no moved mark. Refused when the file is not a bot's store, and when the data directory
    /// has a store of that bot which was not moved away (or is in use).
    package static func importStore(
        from file: URL, into dataDirectory: URL, as bot: String? = nil
    ) async throws(StoreTransferError) -> Summary {
        let source = file.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: source) else { throw .noFile(source) }
        if let bot, !BotsConfigurationValidator.isValidName(bot) { throw .invalidBotName(bot) }
        do {
            try FileManager.default.createDirectory(
                at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .file(operation: "create the data directory", path: dataDirectory.path, errno: errno)
        }
        let staging = dataDirectory.appendingPathComponent(".import-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(staging + suffix) }
        }
        try copyOwnerOnly(source, to: staging)
        let (name, pending) = try prepare(staging, from: source, as: bot)
        let target = BotRuntimeEnvironment.storeURL(forBot: name, in: dataDirectory).path
        let lock: StoreLock
        do {
            lock = try StoreLock.acquire(storePath: target)
        } catch {
            throw .store(error.storeError(path: target))
        }
        defer { lock.release() }
        if FileManager.default.fileExists(atPath: target) {
            guard try isMovedAway(target) else { throw .storeExists(bot: name, path: target) }
        }
        // SQLite pairs a log with whatever file has its name: one left by the moved store, or by a store deleted
        // without its log, would be replayed onto the imported pages at the next open. They are gone on disk before
        // the imported file takes the name.
        for suffix in ["-wal", "-shm", "-journal"] where unlink(target + suffix) != 0 && errno != ENOENT {
            throw .file(operation: "remove", path: target + suffix, errno: errno)
        }
        try syncDirectory(of: target)
        guard rename(staging, target) == 0 else { throw .file(operation: "move the imported store to", path: target, errno: errno) }
        try syncDirectory(of: target)
        return Summary(bot: name, userId: pending.userId, deviceId: pending.deviceId, pendingOutbox: pending.pendingOutbox, path: target)
    }

    // MARK: - Steps

    /// Checks that the copy at `staging` is a bot's store this version can run, names it `bot` (or keeps the name it
    /// has), clears its moved mark, and leaves it as one file (its log checkpointed and removed).
    private static func prepare(
        _ staging: String, from source: String, as bot: String?
    ) throws(StoreTransferError) -> (String, Summary) {
        do {
            let db = try Database(path: staging)
            defer { db.close() }
            let tables = Set(try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            guard tables.isSuperset(of: [DatabaseMigrator.tableName, "store_metadata", "session", "outbox"]) else {
                throw StoreTransferError.notABotStore(path: source, reason: "it lacks the tables of a bot's store")
            }
            let applied = try db.fetchAll(String.self, sql: "SELECT name FROM \(DatabaseMigrator.tableName)")
            let unknown = applied.filter { !BotStore.migrationNames.contains($0) }
            guard unknown.isEmpty else { throw StoreTransferError.newerSchema(path: source, unknownMigrations: unknown) }
            let recorded = try db.fetchOne(String.self, sql: "SELECT value FROM store_metadata WHERE key = ?", arguments: [botNameKey])
            guard let name = bot ?? recorded else { throw StoreTransferError.noBotName(path: source) }
            guard BotsConfigurationValidator.isValidName(name) else { throw StoreTransferError.invalidBotName(name) }
            try StoreMove.clear(in: db)
            try db.execute(sql: "INSERT OR REPLACE INTO store_metadata (key, value) VALUES (?, ?)", arguments: [botNameKey, name])
            return (name, try summary(of: db, bot: name, path: staging))
        } catch let error as StoreTransferError {
            throw error
        } catch DatabaseError.cannotOpen(_, .notADatabase, _) {
            throw .notABotStore(path: source, reason: "it is not an SQLite database")
        } catch {
            throw .store(BotStoreError(error, during: "read the file to import \(source)"))
        }
    }

    /// Whether the store at `path` is marked as moved away.
    private static func isMovedAway(_ path: String) throws(StoreTransferError) -> Bool {
        do {
            let db = try Database(path: path)
            defer { db.close() }
            return try StoreMove.recorded(in: db) != nil
        } catch {
            throw .store(BotStoreError(error, during: "read the store at \(path)"))
        }
    }

    /// What `db` holds, for the summary.
    private static func summary(of db: Database, bot: String, path: String) throws -> Summary {
        let session = try db.fetchOne(sql: "SELECT user_id, device_id FROM session WHERE id = 1")
        let pending = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM outbox WHERE status = 'pending'") ?? 0
        return Summary(
            bot: bot, userId: try session?["user_id"], deviceId: try session?["device_id"], pendingOutbox: pending, path: path)
    }

    /// Copies the file at `source` to a new file `destination`, readable and writable by its owner only, synced.
    private static func copyOwnerOnly(_ source: String, to destination: String) throws(StoreTransferError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .file(operation: "read", path: source, errno: errno) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
        guard output >= 0 else { throw .file(operation: "create", path: destination, errno: errno) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .file(operation: "read", path: source, errno: errno) }
            if count == 0 { break }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { write(output, $0 + written, count - written) } ?? -1
                }
                if step < 0 && errno == EINTR { continue }
                guard step > 0 else { throw .file(operation: "write", path: destination, errno: errno) }
                written += step
            }
        }
        guard fsync(output) == 0 else { throw .file(operation: "sync", path: destination, errno: errno) }
    }

    /// Makes the removals and renames in the directory of `path` durable before the import goes on.
    private static func syncDirectory(of path: String) throws(StoreTransferError) {
        guard DatabaseFile.flushDirectoryToDisk(of: path) else {
            throw .file(operation: "sync the directory of", path: path, errno: errno)
        }
    }
}
