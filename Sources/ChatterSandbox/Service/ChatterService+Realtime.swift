import ChatterBots
import SQLite

// The reads and writes the realtime half needs besides messages and receipts: presence audiences,
// membership, last-seen times, devices.
extension ChatterService {
    /// The users who may see `userId`'s presence: their friends, unless their `privacy.lastSeen` is `nobody`
    /// (`everyone` and `friends` both mean friends: presence is only ever shared between friends).
    public func presenceAudience(of userId: User.ID) async throws(ChatterErrorBody) -> [User.ID] {
        try await read { db in
            guard let user = try db.storedUser(userId), user.lastSeenPrivacy != .nobody else { return [] }
            return try db.friendIDs(of: userId)
        }
    }

    /// The friends of `viewer` whose presence `viewer` may see (for `presence.snapshot`).
    public func visibleFriendIDs(for viewer: User.ID) async throws(ChatterErrorBody) -> [User.ID] {
        try await read { db in
            try db.friendIDs(of: viewer).filter { friend in
                guard let user = try db.storedUser(friend) else { return false }
                return user.lastSeenPrivacy != .nobody
            }
        }
    }

    /// The friends of `userId`, oldest friendship first.
    public func friendIDs(of userId: User.ID) async throws(ChatterErrorBody) -> [User.ID] {
        try await read { db in try db.friendIDs(of: userId) }
    }

    /// When `userId`'s last socket closed, or nil if that was never recorded.
    public func lastSeen(of userId: User.ID) async throws(ChatterErrorBody) -> Timestamp? {
        try await read { db in try db.storedUser(userId)?.lastSeenAt }
    }

    /// Records when `userId`'s last socket closed.
    public func setLastSeen(_ userId: User.ID, at time: Timestamp) async throws(ChatterErrorBody) {
        try await write { db in
            try db.execute(
                sql: "UPDATE users SET last_seen_at = ? WHERE id = ?", arguments: [time.millisecondsSince1970, userId.rawValue])
        }
    }

    /// The members of a conversation in joining order (empty for an unknown conversation).
    public func conversationMemberIDs(_ conversationId: Conversation.ID) async throws(ChatterErrorBody) -> [User.ID] {
        try await read { db in try db.members(of: conversationId).map(\.userId) }
    }

    /// Whether `userId` is a member of the conversation.
    public func isMember(_ userId: User.ID, of conversationId: Conversation.ID) async throws(ChatterErrorBody) -> Bool {
        try await read { db in try db.member(userId, of: conversationId) != nil }
    }

    /// Throws NOT_FOUND, as every conversation operation does, unless `userId` is a member of the conversation
    /// (for the realtime operations the hub carries out itself, such as typing).
    public func requireMember(_ userId: User.ID, of conversationId: Conversation.ID) async throws(ChatterErrorBody) {
        _ = try await read { db in try self.requireMember(db, userId, of: conversationId) }
    }

    /// Whether a device with this id was ever created (revoked ones included).
    public func deviceExists(_ deviceId: Device.ID) async throws(ChatterErrorBody) -> Bool {
        try await read { db in try db.storedDevice(deviceId) != nil }
    }

    /// The signed-in (not revoked) devices of `userIds`, with their push tokens.
    public func devices(ofUsers userIds: [User.ID]) async throws(ChatterErrorBody) -> [SandboxDevice] {
        try await read { db in try db.activeDevices(ofUsers: userIds).map(\.sandboxDevice) }
    }

    /// The active devices of `userIds` that have a push token, in sign-in order: the candidates for a push.
    public func pushableDevices(ofUsers userIds: [User.ID]) async throws(ChatterErrorBody) -> [SandboxDevice] {
        try await read { db in try db.pushableDevices(ofUsers: userIds).map(\.sandboxDevice) }
    }
}
