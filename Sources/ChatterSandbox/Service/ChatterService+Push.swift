import ChatterBots
import Foundation
import SQLite

// APNs: the workspace's key, pushes composed and recorded for socketless devices, test pushes.
extension ChatterService {
    /// Composes, records and returns the pushes `trigger` causes for `devices` (the recipients' devices that
    /// have no open socket). Only the trigger's own recipients get one: the other members for a message (not
    /// the sender's devices, not members who muted the conversation), the recipient of a friend request, the
    /// sender of an accepted one. Revoked devices and devices without a push token get none.
    ///
    /// Without an APNs key (`PUT /developer/apns`) pushes are recorded as failed with `MissingProviderToken`;
    /// a malformed device token fails with `BadDeviceToken`.
    public func pushes(for trigger: PushTrigger, to devices: [Device.ID]) async throws(ChatterErrorBody) -> [RecordedPush] {
        let time = now
        return try await write { db in
            let configured = try self.storedAPNsConfiguration(db).configured
            var unique: [Device.ID] = []
            for id in devices where !unique.contains(id) { unique.append(id) }
            var badges: [User.ID: Int] = [:]
            var pushes: [RecordedPush] = []
            for deviceId in unique {
                guard let device = try db.storedDevice(deviceId), !device.isRevoked, let token = device.pushToken else { continue }
                let payload: PushPayload
                switch trigger {
                case .newMessage(let message):
                    guard device.userId != message.senderId,
                        let member = try db.member(device.userId, of: message.conversationId), !member.muted,
                        let conversation = try db.storedConversation(message.conversationId),
                        let sender = try db.storedUser(message.senderId)
                    else { continue }
                    let badge = try badges[device.userId] ?? db.unreadCount(of: device.userId)
                    badges[device.userId] = badge
                    payload = PushComposer.newMessage(
                        message, sender: sender.user, groupTitle: conversation.kind == .group ? conversation.title ?? "" : nil,
                        badge: badge)
                case .friendRequestReceived(let request):
                    guard device.userId == request.toUser.id else { continue }
                    payload = PushComposer.friendRequestReceived(request)
                case .friendRequestAccepted(let requestId, let sender, let accepter):
                    guard device.userId == sender.id else { continue }
                    payload = PushComposer.friendRequestAccepted(requestId: requestId, accepter: accepter)
                }
                pushes.append(try self.recordPush(
                    db, payload, device: device, token: token, configured: configured, at: time))
            }
            return pushes
        }
    }

    /// Every push recorded so far (for one user when given), in the order they were recorded.
    public func recordedPushes(for userId: User.ID? = nil) async throws(ChatterErrorBody) -> [RecordedPush] {
        try await read { db in
            let rows = try db.fetchAll(
                sql: """
                    SELECT sequence, device_id, user_id, token, environment, payload, status, reason, created_at
                    FROM recorded_pushes WHERE ?1 IS NULL OR user_id = ?1 ORDER BY sequence
                    """,
                arguments: [userId?.rawValue])
            return try rows.map { row in
                RecordedPush(
                    sequence: try row["sequence"], deviceId: Device.ID(try row["device_id"] as String),
                    userId: User.ID(try row["user_id"] as String), token: try row["token"],
                    environment: PushEnvironment(rawValue: try row["environment"]) ?? .production,
                    payload: try row.decodeJSON(PushPayload.self, "payload", decoder: JSONDecoder()),
                    status: TestPushReport.Status(rawValue: try row["status"]), reason: try row["reason"],
                    createdAt: Timestamp(millisecondsSince1970: try row["created_at"]))
            }
        }
    }

    // MARK: Developer endpoints

    /// `PUT /developer/apns`: registers (or replaces) the workspace's APNs key.
    public func configureAPNs(_ body: APNsKeyBody) async throws(ChatterErrorBody) {
        try APNsKeyValidator.validate(body)
        let time = now
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO apns_configuration (id, team_id, key_id, bundle_id, private_key, updated_at)
                    VALUES (1, ?, ?, ?, ?, ?)
                    """,
                arguments: [body.teamId, body.keyId, body.bundleId, body.privateKey, time.millisecondsSince1970])
        }
    }

    /// `GET /developer/apns`: whether a key is registered, and its identifiers (never the key itself).
    public func apnsConfiguration() async throws(ChatterErrorBody) -> APNsConfiguration {
        try await read { db in try self.storedAPNsConfiguration(db) }
    }

    /// `POST /developer/test-push`: a test push to every device of the user that has a push token, with each
    /// device's outcome (`BadDeviceToken` for a token that is not 64 hex characters).
    public func sendTestPush(_ body: TestPushBody) async throws(ChatterErrorBody) -> TestPushReport {
        let time = now
        return try await write { db in
            guard try db.storedUser(body.userId) != nil else { throw ChatterErrorBody.userNotFound }
            let configured = try self.storedAPNsConfiguration(db).configured
            var results: [TestPushReport.Result] = []
            for device in try db.activeDevices(ofUsers: [body.userId]) {
                guard let token = device.pushToken else { continue }
                let push = try self.recordPush(db, PushComposer.testPush(), device: device, token: token, configured: configured, at: time)
                results.append(TestPushReport.Result(deviceId: device.id, status: push.status, reason: push.reason))
            }
            let sent = results.filter { $0.status == .sent }.count
            return TestPushReport(sent: sent, failed: results.count - sent, results: results)
        }
    }

    // MARK: Helpers

    private func storedAPNsConfiguration(_ db: Database) throws -> APNsConfiguration {
        guard let row = try db.fetchOne(sql: "SELECT team_id, key_id, bundle_id FROM apns_configuration WHERE id = 1") else {
            return APNsConfiguration(configured: false)
        }
        return APNsConfiguration(
            configured: true, teamId: try row["team_id"], keyId: try row["key_id"], bundleId: try row["bundle_id"])
    }

    private func recordPush(
        _ db: Database, _ payload: PushPayload, device: StoredDevice, token: String, configured: Bool, at time: Timestamp
    ) throws -> RecordedPush {
        let (status, reason): (TestPushReport.Status, String?) =
            !configured ? (.failed, "MissingProviderToken")
            : !PushComposer.isWellFormedDeviceToken(token) ? (.failed, "BadDeviceToken")
            : (.sent, nil)
        let environment = device.pushEnvironment ?? .production
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try db.execute(
            sql: """
                INSERT INTO recorded_pushes (device_id, user_id, token, environment, payload, status, reason, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                device.id.rawValue, device.userId.rawValue, token, environment.rawValue,
                try DatabaseValue.json(payload, encoder: encoder), status.rawValue, reason, time.millisecondsSince1970,
            ])
        return RecordedPush(
            sequence: db.lastInsertRowID, deviceId: device.id, userId: device.userId, token: token, environment: environment,
            payload: payload, status: status, reason: reason, createdAt: time)
    }
}
