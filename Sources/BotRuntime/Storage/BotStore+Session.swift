import ChatterBots
import Foundation
import SQLite

extension BotStore {
    /// The stored device session, or nil before the first sign-in and after a revocation.
    public func session() async throws(BotStoreError) -> StoredSession? {
        try await read("read the session") { db in
            guard let row = try db.fetchOne(sql: SessionSQL.select) else { return nil }
            return StoredSession(
                userId: try row.identifier("user_id"), deviceId: try row.identifier("device_id"),
                accessToken: try row["access_token"], refreshToken: try row["refresh_token"],
                accessTokenExpiresAt: try row["access_token_expires_at"])
        }
    }

    /// Saves the session after a login, register or refresh. Save rotated tokens BEFORE using them: the old
    /// refresh token no longer works. A device not seen before is added to ``devices()``.
    public func saveSession(_ session: StoredSession) async throws(BotStoreError) {
        let now = clock.now
        try await write("save the session") { db in
            try db.execute(
                sql: SessionSQL.upsert,
                arguments: [
                    session.userId.rawValue, session.deviceId.rawValue, session.accessToken, session.refreshToken,
                    session.accessTokenExpiresAt, now,
                ])
            try db.execute(sql: SessionSQL.insertDevice, arguments: [session.deviceId.rawValue, session.userId.rawValue, now])
        }
    }

    /// Clears the device's session data after the service revoked the device (close code 4003): the tokens
    /// AND the deviceId. Returns the revoked device's record, or nil when no session was stored.
    ///
    /// The deviceId goes too, although a bot should be one device for life: a revoked device is gone on the
    /// service (logged out, or its account deleted), so there is nothing left to sign in to again. The next
    /// sign-in is a fresh login without a deviceId, which creates a new device; ``devices()`` keeps the
    /// revoked one with its revocation time, so the change of device is on record. Everything else (cursors,
    /// outbox, state, schedules) belongs to the bot's user, not the device, and is kept: pending outbox entries
    /// are resent from the new device with their original clientMessageIds.
    @discardableResult
    public func clearSession() async throws(BotStoreError) -> DeviceRecord? {
        let now = clock.now
        return try await write("clear the session") { db in
            guard let deviceID = try db.fetchOne(String.self, sql: SessionSQL.selectDeviceID) else { return nil }
            try db.execute(sql: SessionSQL.delete)
            try db.execute(sql: SessionSQL.revokeDevice, arguments: [now, deviceID])
            return try db.fetchOne(sql: SessionSQL.selectDevice, arguments: [deviceID]).map(DeviceRecord.init(row:))
        }
    }

    /// Every device the bot has been, oldest first, with revocation times.
    public func devices() async throws(BotStoreError) -> [DeviceRecord] {
        try await read("list devices") { db in
            try db.fetchAll(sql: SessionSQL.selectDevices).map(DeviceRecord.init(row:))
        }
    }
}

extension DeviceRecord {
    init(row: Row) throws {
        self.init(
            deviceId: try row.identifier("device_id"), userId: try row.identifier("user_id"),
            firstSavedAt: try row["first_saved_at"], revokedAt: try row["revoked_at"])
    }
}

enum SessionSQL {
    static let select = """
        SELECT user_id, device_id, access_token, refresh_token, access_token_expires_at FROM session WHERE id = 1
        """
    static let selectDeviceID = "SELECT device_id FROM session WHERE id = 1"
    static let upsert = """
        INSERT INTO session (id, user_id, device_id, access_token, refresh_token, access_token_expires_at, saved_at)
        VALUES (1, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET
            user_id = excluded.user_id, device_id = excluded.device_id, access_token = excluded.access_token,
            refresh_token = excluded.refresh_token, access_token_expires_at = excluded.access_token_expires_at,
            saved_at = excluded.saved_at
        """
    static let delete = "DELETE FROM session"
    static let insertDevice = "INSERT OR IGNORE INTO devices (device_id, user_id, first_saved_at) VALUES (?, ?, ?)"
    static let revokeDevice = "UPDATE devices SET revoked_at = coalesce(revoked_at, ?) WHERE device_id = ?"
    static let selectDevice = "SELECT device_id, user_id, first_saved_at, revoked_at FROM devices WHERE device_id = ?"
    static let selectDevices = "SELECT device_id, user_id, first_saved_at, revoked_at FROM devices ORDER BY first_saved_at, device_id"
}
