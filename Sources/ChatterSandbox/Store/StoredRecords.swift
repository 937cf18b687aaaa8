import ChatterBots
import SQLite

// Rows of the sandbox's tables as typed values, and their wire forms.

/// A `users` row.
struct StoredUser: FetchableRecord, Sendable {
    static let columns = "id, username, display_name, avatar_url, password_salt, password_hash, password_iterations, last_seen_privacy, last_seen_at"

    var id: User.ID
    var username: String
    var displayName: String
    var avatarUrl: String?
    var password: PasswordHasher.Hash
    var lastSeenPrivacy: LastSeenVisibility
    var lastSeenAt: Timestamp?

    init(row: Row) throws {
        id = User.ID(try row["id"] as String)
        username = try row["username"]
        displayName = try row["display_name"]
        avatarUrl = try row["avatar_url"]
        password = PasswordHasher.Hash(
            salt: try row["password_salt"], digest: try row["password_hash"], iterations: try row["password_iterations"])
        lastSeenPrivacy = LastSeenVisibility(rawValue: try row["last_seen_privacy"])
        lastSeenAt = (try row["last_seen_at"] as Int64?).map(Timestamp.init(millisecondsSince1970:))
    }

    var user: User { User(id: id, username: username, displayName: displayName, avatarUrl: avatarUrl) }

    var currentUser: CurrentUser { CurrentUser(user: user, privacy: PrivacySettings(lastSeen: lastSeenPrivacy)) }
}

/// A `devices` row.
struct StoredDevice: FetchableRecord, Sendable {
    static let columns = "id, user_id, name, platform, push_token, push_environment, revoked_at"

    var id: Device.ID
    var userId: User.ID
    var name: String
    var platform: String
    var pushToken: String?
    var pushEnvironment: PushEnvironment?
    var isRevoked: Bool

    init(row: Row) throws {
        id = Device.ID(try row["id"] as String)
        userId = User.ID(try row["user_id"] as String)
        name = try row["name"]
        platform = try row["platform"]
        pushToken = try row["push_token"]
        pushEnvironment = (try row["push_environment"] as String?).flatMap(PushEnvironment.init(rawValue:))
        isRevoked = (try row["revoked_at"] as Int64?) != nil
    }

    var sandboxDevice: SandboxDevice {
        SandboxDevice(id: id, userId: userId, pushToken: pushToken, pushEnvironment: pushEnvironment)
    }
}

/// A `conversations` row.
struct StoredConversation: FetchableRecord, Sendable {
    static let columns = "id, kind, title, avatar_url, last_seq, created_at, updated_at"

    var id: Conversation.ID
    var kind: Conversation.Kind
    var title: String?
    var avatarUrl: String?
    var lastSeq: Int
    var createdAt: Timestamp
    var updatedAt: Timestamp

    init(row: Row) throws {
        id = Conversation.ID(try row["id"] as String)
        kind = Conversation.Kind(rawValue: try row["kind"])
        title = try row["title"]
        avatarUrl = try row["avatar_url"]
        lastSeq = try row["last_seq"]
        createdAt = Timestamp(millisecondsSince1970: try row["created_at"])
        updatedAt = Timestamp(millisecondsSince1970: try row["updated_at"])
    }
}

/// A `members` row.
struct StoredMember: FetchableRecord, Sendable {
    static let columns = "user_id, role, last_delivered_seq, last_read_seq, muted"

    var userId: User.ID
    var role: Member.Role
    var lastDeliveredSeq: Int
    var lastReadSeq: Int
    var muted: Bool

    init(row: Row) throws {
        userId = User.ID(try row["user_id"] as String)
        role = Member.Role(rawValue: try row["role"])
        lastDeliveredSeq = try row["last_delivered_seq"]
        lastReadSeq = try row["last_read_seq"]
        muted = try row["muted"]
    }

    var member: Member {
        Member(userId: userId, role: role, lastDeliveredSeq: lastDeliveredSeq, lastReadSeq: lastReadSeq)
    }

    var watermarks: MemberWatermarks {
        MemberWatermarks(userId: userId, lastDeliveredSeq: lastDeliveredSeq, lastReadSeq: lastReadSeq)
    }

    var canManage: Bool { role == .owner || role == .admin }
}

/// A `messages` row, without its reactions.
struct StoredMessage: FetchableRecord, Sendable {
    static let columns =
        "id, conversation_id, seq, sender_id, client_message_id, kind, body, media_id, reply_to_id, created_at, edited_at, deleted_at"

    var id: Message.ID
    var conversationId: Conversation.ID
    var seq: Int
    var senderId: User.ID
    var clientMessageId: ClientMessageID?
    var kind: Message.Kind
    var body: String?
    var mediaId: Media.ID?
    var replyToId: Message.ID?
    var createdAt: Timestamp
    var editedAt: Timestamp?
    var deletedAt: Timestamp?

    init(row: Row) throws {
        id = Message.ID(try row["id"] as String)
        conversationId = Conversation.ID(try row["conversation_id"] as String)
        seq = try row["seq"]
        senderId = User.ID(try row["sender_id"] as String)
        clientMessageId = (try row["client_message_id"] as String?).map(ClientMessageID.init(rawValue:))
        kind = Message.Kind(rawValue: try row["kind"])
        body = try row["body"]
        mediaId = (try row["media_id"] as String?).map(Media.ID.init(rawValue:))
        replyToId = (try row["reply_to_id"] as String?).map(Message.ID.init(rawValue:))
        createdAt = Timestamp(millisecondsSince1970: try row["created_at"])
        editedAt = (try row["edited_at"] as Int64?).map(Timestamp.init(millisecondsSince1970:))
        deletedAt = (try row["deleted_at"] as Int64?).map(Timestamp.init(millisecondsSince1970:))
    }

    func message(reactions: [Message.Reaction]) -> Message {
        Message(
            id: id, conversationId: conversationId, seq: seq, senderId: senderId, clientMessageId: clientMessageId,
            kind: kind, body: body, mediaId: mediaId, replyToId: replyToId, reactions: reactions, createdAt: createdAt,
            editedAt: editedAt, deletedAt: deletedAt)
    }
}

/// A `media` row without its bytes.
struct StoredMedia: FetchableRecord, Sendable {
    var id: Media.ID
    var ownerId: User.ID
    var contentType: String
    var byteCount: Int

    init(row: Row) throws {
        id = Media.ID(try row["id"] as String)
        ownerId = User.ID(try row["owner_id"] as String)
        contentType = try row["content_type"]
        byteCount = try row["byte_count"]
    }
}
