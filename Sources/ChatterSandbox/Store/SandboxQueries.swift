import ChatterBots
import SQLite

// The sandbox's typed reads and writes, run inside a store transaction. They check nothing about who may do
// what: the service decides, these only fetch and store.
extension Database {
    // MARK: Users

    func storedUser(_ id: User.ID) throws -> StoredUser? {
        try fetchOne(StoredUser.self, sql: "SELECT \(StoredUser.columns) FROM users WHERE id = ?", arguments: [id.rawValue])
    }

    func storedUser(username: String) throws -> StoredUser? {
        try fetchOne(
            StoredUser.self, sql: "SELECT \(StoredUser.columns) FROM users WHERE username = ? COLLATE NOCASE",
            arguments: [username])
    }

    func insertUser(
        id: User.ID, username: String, displayName: String, password: PasswordHasher.Hash, at time: Timestamp
    ) throws {
        try execute(
            sql: """
                INSERT INTO users (id, username, display_name, password_salt, password_hash, password_iterations, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id.rawValue, username, displayName, password.salt, password.digest, password.iterations,
                time.millisecondsSince1970,
            ])
    }

    // MARK: Devices and tokens

    func storedDevice(_ id: Device.ID) throws -> StoredDevice? {
        try fetchOne(StoredDevice.self, sql: "SELECT \(StoredDevice.columns) FROM devices WHERE id = ?", arguments: [id.rawValue])
    }

    func activeDevices(ofUsers userIds: [User.ID]) throws -> [StoredDevice] {
        var devices: [StoredDevice] = []
        for userId in userIds {
            devices += try fetchAll(
                StoredDevice.self,
                sql: "SELECT \(StoredDevice.columns) FROM devices WHERE user_id = ? AND revoked_at IS NULL ORDER BY rowid",
                arguments: [userId.rawValue])
        }
        return devices
    }

    /// The active devices of `userIds` that have a push token: the only ones a push can go to. A fan-out asks
    /// this for every message, so devices without a token (most bots' and every socket-only client's) are left
    /// in the table instead of read and decoded each time.
    func pushableDevices(ofUsers userIds: [User.ID]) throws -> [StoredDevice] {
        var devices: [StoredDevice] = []
        for userId in userIds {
            devices += try fetchAll(
                StoredDevice.self,
                sql: """
                    SELECT \(StoredDevice.columns) FROM devices
                    WHERE user_id = ? AND revoked_at IS NULL AND push_token IS NOT NULL ORDER BY rowid
                    """,
                arguments: [userId.rawValue])
        }
        return devices
    }

    func insertDevice(id: Device.ID, userId: User.ID, name: String, platform: String, at time: Timestamp) throws {
        try execute(
            sql: "INSERT INTO devices (id, user_id, name, platform, created_at, signed_in_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [id.rawValue, userId.rawValue, name, platform, time.millisecondsSince1970, time.millisecondsSince1970])
    }

    /// Kills every token of the device (a new sign-in, a logout).
    func deleteTokens(ofDevice deviceId: Device.ID) throws {
        try execute(sql: "DELETE FROM access_tokens WHERE device_id = ?", arguments: [deviceId.rawValue])
        try execute(sql: "DELETE FROM refresh_tokens WHERE device_id = ?", arguments: [deviceId.rawValue])
    }

    func insertAccessToken(_ token: String, device: Device.ID, expiresAt: Timestamp, at time: Timestamp) throws {
        try execute(
            sql: "INSERT INTO access_tokens (token_hash, device_id, expires_at, created_at) VALUES (?, ?, ?, ?)",
            arguments: [TokenDigest.sha256(token), device.rawValue, expiresAt.millisecondsSince1970, time.millisecondsSince1970])
    }

    func insertRefreshToken(_ token: String, device: Device.ID, expiresAt: Timestamp, at time: Timestamp) throws {
        try execute(
            sql: "INSERT INTO refresh_tokens (token_hash, device_id, expires_at, created_at) VALUES (?, ?, ?, ?)",
            arguments: [TokenDigest.sha256(token), device.rawValue, expiresAt.millisecondsSince1970, time.millisecondsSince1970])
    }

    // MARK: Friends

    func areFriends(_ a: User.ID, _ b: User.ID) throws -> Bool {
        let (low, high) = Self.orderedPair(a, b)
        return try fetchOne(
            Int.self, sql: "SELECT 1 FROM friendships WHERE user_low = ? AND user_high = ?",
            arguments: [low.rawValue, high.rawValue]) != nil
    }

    /// The friends of `userId` with the time the friendship began, oldest first.
    func friendships(of userId: User.ID) throws -> [(userId: User.ID, since: Timestamp)] {
        try fetchAll(
            sql: """
                SELECT user_high AS friend, since FROM friendships WHERE user_low = ?1
                UNION ALL
                SELECT user_low AS friend, since FROM friendships WHERE user_high = ?1
                ORDER BY since, friend
                """,
            arguments: [userId.rawValue]
        ).map { row in (User.ID(try row["friend"] as String), Timestamp(millisecondsSince1970: try row["since"])) }
    }

    func friendIDs(of userId: User.ID) throws -> [User.ID] {
        try friendships(of: userId).map(\.userId)
    }

    func friendshipSince(_ a: User.ID, _ b: User.ID) throws -> Timestamp? {
        let (low, high) = Self.orderedPair(a, b)
        return try fetchOne(
            Int64.self, sql: "SELECT since FROM friendships WHERE user_low = ? AND user_high = ?",
            arguments: [low.rawValue, high.rawValue]
        ).map(Timestamp.init(millisecondsSince1970:))
    }

    /// Makes the two users friends (nothing when they already are); returns since when they are friends.
    @discardableResult
    func insertFriendship(_ a: User.ID, _ b: User.ID, at time: Timestamp) throws -> Timestamp {
        let (low, high) = Self.orderedPair(a, b)
        try execute(
            sql: "INSERT OR IGNORE INTO friendships (user_low, user_high, since) VALUES (?, ?, ?)",
            arguments: [low.rawValue, high.rawValue, time.millisecondsSince1970])
        return try friendshipSince(a, b) ?? time
    }

    func deleteFriendship(_ a: User.ID, _ b: User.ID) throws {
        let (low, high) = Self.orderedPair(a, b)
        try execute(sql: "DELETE FROM friendships WHERE user_low = ? AND user_high = ?", arguments: [low.rawValue, high.rawValue])
    }

    static func orderedPair(_ a: User.ID, _ b: User.ID) -> (User.ID, User.ID) {
        a.rawValue < b.rawValue ? (a, b) : (b, a)
    }

    // MARK: Friend requests

    func friendRequest(_ id: FriendRequest.ID) throws -> FriendRequest? {
        guard let row = try fetchOne(
            sql: "SELECT id, from_user, to_user, created_at FROM friend_requests WHERE id = ?", arguments: [id.rawValue])
        else { return nil }
        return try friendRequest(row: row)
    }

    func friendRequests(sql: String, userId: User.ID) throws -> [FriendRequest] {
        try fetchAll(sql: sql, arguments: [userId.rawValue]).map { try friendRequest(row: $0) }
    }

    func pendingRequestExists(between a: User.ID, and b: User.ID) throws -> Bool {
        try fetchOne(
            Int.self,
            sql: "SELECT 1 FROM friend_requests WHERE (from_user = ?1 AND to_user = ?2) OR (from_user = ?2 AND to_user = ?1)",
            arguments: [a.rawValue, b.rawValue]) != nil
    }

    private func friendRequest(row: Row) throws -> FriendRequest {
        let fromId = User.ID(try row["from_user"] as String)
        let toId = User.ID(try row["to_user"] as String)
        guard let from = try storedUser(fromId), let to = try storedUser(toId) else {
            throw ChatterErrorBody.internalError("The friend request \(try row["id"] as String) refers to a missing user.")
        }
        return FriendRequest(
            id: FriendRequest.ID(try row["id"] as String), fromUser: from.user, toUser: to.user,
            createdAt: Timestamp(millisecondsSince1970: try row["created_at"]))
    }

    // MARK: Conversations and members

    func storedConversation(_ id: Conversation.ID) throws -> StoredConversation? {
        try fetchOne(
            StoredConversation.self, sql: "SELECT \(StoredConversation.columns) FROM conversations WHERE id = ?",
            arguments: [id.rawValue])
    }

    func members(of conversationId: Conversation.ID) throws -> [StoredMember] {
        try fetchAll(
            StoredMember.self,
            sql: "SELECT \(StoredMember.columns) FROM members WHERE conversation_id = ? ORDER BY rowid",
            arguments: [conversationId.rawValue])
    }

    func member(_ userId: User.ID, of conversationId: Conversation.ID) throws -> StoredMember? {
        try fetchOne(
            StoredMember.self,
            sql: "SELECT \(StoredMember.columns) FROM members WHERE conversation_id = ? AND user_id = ?",
            arguments: [conversationId.rawValue, userId.rawValue])
    }

    func insertMember(_ userId: User.ID, into conversationId: Conversation.ID, role: Member.Role, at time: Timestamp) throws {
        try execute(
            sql: "INSERT INTO members (conversation_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)",
            arguments: [conversationId.rawValue, userId.rawValue, role.rawValue, time.millisecondsSince1970])
    }

    /// A time for `updated_at` that is later than every conversation's, so paging by `updatedSince` never
    /// skips a conversation that changed in the same millisecond as another; `now` itself when `mayTie`.
    func nextConversationUpdateTime(_ now: Timestamp, mayTie: Bool) throws -> Timestamp {
        if mayTie { return now }
        guard let latest = try fetchOne(Int64?.self, sql: "SELECT max(updated_at) FROM conversations") ?? nil else { return now }
        return Timestamp(millisecondsSince1970: max(now.millisecondsSince1970, latest + 1))
    }

    func touchConversation(_ id: Conversation.ID, now: Timestamp, mayTie: Bool) throws {
        try execute(
            sql: "UPDATE conversations SET updated_at = ? WHERE id = ?",
            arguments: [try nextConversationUpdateTime(now, mayTie: mayTie).millisecondsSince1970, id.rawValue])
    }

    /// The conversation as `viewer` sees it (their own `muted`); nil when it does not exist.
    func conversation(_ id: Conversation.ID, viewer: User.ID) throws -> Conversation? {
        guard let stored = try storedConversation(id) else { return nil }
        return try conversation(stored, viewer: viewer)
    }

    func conversation(_ stored: StoredConversation, viewer: User.ID) throws -> Conversation {
        let members = try members(of: stored.id)
        let lastMessage = stored.lastSeq > 0 ? try message(in: stored.id, seq: stored.lastSeq) : nil
        return Conversation(
            id: stored.id, kind: stored.kind, title: stored.title, avatarUrl: stored.avatarUrl,
            members: members.map(\.member), lastSeq: stored.lastSeq, lastMessage: lastMessage,
            muted: members.first { $0.userId == viewer }?.muted ?? false,
            createdAt: stored.createdAt, updatedAt: stored.updatedAt)
    }

    // MARK: Messages

    func message(_ id: Message.ID) throws -> Message? {
        guard let stored = try fetchOne(
            StoredMessage.self, sql: "SELECT \(StoredMessage.columns) FROM messages WHERE id = ?", arguments: [id.rawValue])
        else { return nil }
        return try stored.message(reactions: reactions(of: stored.id))
    }

    func message(in conversationId: Conversation.ID, seq: Int) throws -> Message? {
        guard let stored = try fetchOne(
            StoredMessage.self, sql: "SELECT \(StoredMessage.columns) FROM messages WHERE conversation_id = ? AND seq = ?",
            arguments: [conversationId.rawValue, seq])
        else { return nil }
        return try stored.message(reactions: reactions(of: stored.id))
    }

    /// Up to `limit` messages with `seq` > `afterSeq`, ascending.
    func messages(in conversationId: Conversation.ID, afterSeq: Int, limit: Int) throws -> [Message] {
        try fetchAll(
            StoredMessage.self,
            sql: "SELECT \(StoredMessage.columns) FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            arguments: [conversationId.rawValue, afterSeq, limit]
        ).map { try $0.message(reactions: reactions(of: $0.id)) }
    }

    /// Up to `limit` messages with `seq` < `beforeSeq`, descending.
    func messages(in conversationId: Conversation.ID, beforeSeq: Int, limit: Int) throws -> [Message] {
        try fetchAll(
            StoredMessage.self,
            sql: "SELECT \(StoredMessage.columns) FROM messages WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            arguments: [conversationId.rawValue, beforeSeq, limit]
        ).map { try $0.message(reactions: reactions(of: $0.id)) }
    }

    /// The reactions of a message: emojis in the order first used, users in the order they reacted.
    func reactions(of messageId: Message.ID) throws -> [Message.Reaction] {
        var order: [String] = []
        var users: [String: [User.ID]] = [:]
        for row in try fetchAll(
            sql: "SELECT emoji, user_id FROM reactions WHERE message_id = ? ORDER BY rowid", arguments: [messageId.rawValue])
        {
            let emoji: String = try row["emoji"]
            if users[emoji] == nil { order.append(emoji) }
            users[emoji, default: []].append(User.ID(try row["user_id"] as String))
        }
        return order.map { Message.Reaction(emoji: $0, userIds: users[$0] ?? []) }
    }

    /// The number of messages from others after the user's read watermark, across their non-muted conversations
    /// (deleted messages excluded): the badge of a push.
    func unreadCount(of userId: User.ID) throws -> Int {
        try fetchOne(
            Int.self,
            sql: """
                SELECT count(*) FROM members m
                JOIN messages msg ON msg.conversation_id = m.conversation_id AND msg.seq > m.last_read_seq
                WHERE m.user_id = ?1 AND m.muted = 0 AND msg.sender_id <> ?1 AND msg.deleted_at IS NULL
                """,
            arguments: [userId.rawValue]) ?? 0
    }
}
