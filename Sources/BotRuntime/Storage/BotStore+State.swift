import ChatterBots
import Foundation
import SQLite

extension BotStore {
    /// Deletes the records of handled message updates (``MessageUpdateFingerprint/storageKey(of:)``) last written
    /// before `date`: they only keep a copy of an update from running its handler again, and hold the message's
    /// last version. Returns how many were deleted.
    func pruneHandledUpdates(writtenBefore date: Date) async throws(BotStoreError) -> Int {
        let (from, to) = MessageUpdateFingerprint.storageKeyRange
        return try await write("prune handled message updates") { db in
            try db.execute(sql: StateSQL.deleteGlobalRangeWrittenBefore, arguments: [from, to, date])
            return db.changes
        }
    }

    /// The value of `key` in `scope` decoded as `type`, or nil when absent. With `unit`, the unit's own
    /// pending write of the key wins (read-your-writes inside a handler).
    public func value<Value: Decodable & Sendable>(
        _ type: Value.Type, forKey key: String, in scope: StateScope, overlaying unit: UnitOfWork? = nil
    ) async throws(BotStoreError) -> Value? {
        guard let data = try await stateData(forKey: key, in: scope, overlaying: unit) else { return nil }
        return try StateValueCoding.decode(type, from: data, key: key, scope: scope)
    }

    /// The stored JSON of `key` in `scope`, or nil: what `BotStateStore.data(for:in:)` returns. With
    /// `unit`, the unit's own pending write of the key wins.
    public func stateData(
        forKey key: String, in scope: StateScope, overlaying unit: UnitOfWork? = nil
    ) async throws(BotStoreError) -> Data? {
        if let pending = unit?.pendingValue(forKey: key, in: scope) { return pending }
        let text = try await read("read a state value") { db in
            try db.fetchOne(String.self, sql: StateSQL.select, arguments: [scope.storageKind, scope.storageID, key])
        }
        return text.map { Data($0.utf8) }
    }

    /// Sets `key` in `scope` to the JSON `data` (nil removes it), in a transaction of its own.
    public func setStateData(_ data: Data?, forKey key: String, in scope: StateScope) async throws(BotStoreError) {
        guard let data else {
            try await removeValue(forKey: key, in: scope)
            return
        }
        try StateValueCoding.validate(data, key: key)
        let now = clock.now
        try await write("write a state value") { db in
            try StateWrites.set(data, forKey: key, in: scope, now: now, db: db)
        }
    }

    /// Sets `key` in `scope` to `value` (as JSON), in a transaction of its own. Inside a handler, write
    /// through its ``UnitOfWork`` instead so the change commits with the run.
    public func setValue<Value: Encodable & Sendable>(
        _ value: Value, forKey key: String, in scope: StateScope
    ) async throws(BotStoreError) {
        let data = try StateValueCoding.encode(value, key: key)
        let now = clock.now
        try await write("write a state value") { db in
            try StateWrites.set(data, forKey: key, in: scope, now: now, db: db)
        }
    }

    /// Removes `key` from `scope`; returns whether it was there.
    @discardableResult
    public func removeValue(forKey key: String, in scope: StateScope) async throws(BotStoreError) -> Bool {
        try await write("remove a state value") { db in
            try db.execute(sql: StateSQL.delete, arguments: [scope.storageKind, scope.storageID, key])
            return db.changes > 0
        }
    }

    /// The keys set in `scope`, sorted; with `unit`, as they will be once it commits.
    public func keys(in scope: StateScope, overlaying unit: UnitOfWork? = nil) async throws(BotStoreError) -> [String] {
        var keys = Set(try await read("list state keys") { db in
            try db.fetchAll(String.self, sql: StateSQL.selectKeys, arguments: [scope.storageKind, scope.storageID])
        })
        for (address, value) in unit?.stateWrites ?? [:] where address.scope == scope {
            if value == nil { keys.remove(address.key) } else { keys.insert(address.key) }
        }
        return keys.sorted()
    }

    /// Removes every value of `scope` (e.g. when the bot forgets a user); returns how many.
    @discardableResult
    public func removeAllValues(in scope: StateScope) async throws(BotStoreError) -> Int {
        try await write("remove a scope's state") { db in
            try db.execute(sql: StateSQL.deleteScope, arguments: [scope.storageKind, scope.storageID])
            return db.changes
        }
    }
}

enum StateWrites {
    static func set(_ data: Data, forKey key: String, in scope: StateScope, now: Date, db: Database) throws {
        try db.execute(sql: StateSQL.upsert, arguments: [scope.storageKind, scope.storageID, key, String(decoding: data, as: UTF8.self), now])
    }

    static func remove(forKey key: String, in scope: StateScope, db: Database) throws {
        try db.execute(sql: StateSQL.delete, arguments: [scope.storageKind, scope.storageID, key])
    }
}

enum StateSQL {
    static let select = "SELECT value FROM state WHERE scope = ? AND scope_id = ? AND key = ?"
    static let selectKeys = "SELECT key FROM state WHERE scope = ? AND scope_id = ? ORDER BY key"
    static let upsert = """
        INSERT INTO state (scope, scope_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (scope, scope_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
        """
    static let delete = "DELETE FROM state WHERE scope = ? AND scope_id = ? AND key = ?"
    static let deleteScope = "DELETE FROM state WHERE scope = ? AND scope_id = ?"
    /// The global keys from `?` (inclusive) to `?` (exclusive), last written before `?`: a key prefix's range, which
    /// the primary key's index finds without a scan.
    static let deleteGlobalRangeWrittenBefore = """
        DELETE FROM state WHERE scope = 'global' AND scope_id = '' AND key >= ? AND key < ? AND updated_at < ?
        """
}
