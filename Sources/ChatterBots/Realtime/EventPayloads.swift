// The `data` objects of realtime frames (`seeds/realtime-websocket.txt`).

/// `session.ready`: the first frame after connecting.
public struct SessionReady: Hashable, Sendable, Codable {
    public var userId: User.ID
    public var deviceId: Device.ID
    public var serverTime: Timestamp
    /// How often to send `ping`, in milliseconds (25,000 today).
    public var heartbeatIntervalMs: Int

    public init(userId: User.ID, deviceId: Device.ID, serverTime: Timestamp, heartbeatIntervalMs: Int) {
        self.userId = userId
        self.deviceId = deviceId
        self.serverTime = serverTime
        self.heartbeatIntervalMs = heartbeatIntervalMs
    }

    public var heartbeatInterval: Duration { .milliseconds(heartbeatIntervalMs) }
}

/// `message.send`: a new message, identified by the sender's idempotency key.
public struct MessageSend: Hashable, Sendable, Codable {
    public var conversationId: Conversation.ID
    public var clientMessageId: ClientMessageID
    public var content: MessageContent

    public init(conversationId: Conversation.ID, clientMessageId: ClientMessageID, content: MessageContent) {
        self.conversationId = conversationId
        self.clientMessageId = clientMessageId
        self.content = content
    }

    enum CodingKeys: String, CodingKey { case conversationId, clientMessageId }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversationId = try container.decode(Conversation.ID.self, forKey: .conversationId)
        clientMessageId = try container.decode(ClientMessageID.self, forKey: .clientMessageId)
        content = try MessageContent(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(conversationId, forKey: .conversationId)
        try container.encode(clientMessageId, forKey: .clientMessageId)
        try content.encode(to: encoder)
    }
}

/// `message.ack`: the message a `message.send` created (the same one for every resend of its key).
public struct MessageAck: Hashable, Sendable, Codable {
    public var clientMessageId: ClientMessageID
    public var messageId: Message.ID
    public var conversationId: Conversation.ID
    public var seq: Int
    public var createdAt: Timestamp

    public init(
        clientMessageId: ClientMessageID, messageId: Message.ID, conversationId: Conversation.ID, seq: Int,
        createdAt: Timestamp
    ) {
        self.clientMessageId = clientMessageId
        self.messageId = messageId
        self.conversationId = conversationId
        self.seq = seq
        self.createdAt = createdAt
    }
}

/// `receipt.delivered` and `receipt.read`: the caller has the conversation up to `seq`.
public struct ReceiptPosition: Hashable, Sendable, Codable {
    public var conversationId: Conversation.ID
    public var seq: Int

    public init(conversationId: Conversation.ID, seq: Int) {
        self.conversationId = conversationId
        self.seq = seq
    }
}

/// `receipt.updated`: a member's watermarks moved (including the caller's own other devices).
public struct ReceiptUpdate: Hashable, Sendable, Codable {
    public var conversationId: Conversation.ID
    public var userId: User.ID
    public var lastDeliveredSeq: Int
    public var lastReadSeq: Int

    public init(conversationId: Conversation.ID, userId: User.ID, lastDeliveredSeq: Int, lastReadSeq: Int) {
        self.conversationId = conversationId
        self.userId = userId
        self.lastDeliveredSeq = lastDeliveredSeq
        self.lastReadSeq = lastReadSeq
    }
}

/// `typing`: a member started or stopped typing (best effort).
public struct TypingIndicator: Hashable, Sendable, Codable {
    public var conversationId: Conversation.ID
    public var userId: User.ID
    public var isTyping: Bool

    public init(conversationId: Conversation.ID, userId: User.ID, isTyping: Bool) {
        self.conversationId = conversationId
        self.userId = userId
        self.isTyping = isTyping
    }
}

/// `sync.request`: the highest contiguous `seq` the caller has in each known conversation.
public struct SyncRequest: Hashable, Sendable, Codable {
    public var conversations: [Conversation.ID: Int]
    /// At most this many messages per conversation in the response; the key is omitted when nil (the seed's own
    /// example leaves it out), and the service uses its default.
    public var limitPerConversation: Int?

    public init(conversations: [Conversation.ID: Int], limitPerConversation: Int? = nil) {
        self.conversations = conversations
        self.limitPerConversation = limitPerConversation
    }
}

/// `sync.response`: what each requested conversation has after the given `seq`. Conversations the
/// caller did not name are not included (discover them with `GET /conversations?updatedSince=`).
public struct SyncResponse: Hashable, Sendable, Codable {
    public var conversations: [Conversation.ID: ConversationSync]

    public init(conversations: [Conversation.ID: ConversationSync]) { self.conversations = conversations }
}

/// One conversation of a `sync.response`.
public struct ConversationSync: Hashable, Sendable, Codable {
    /// Ascending by `seq`.
    public var messages: [Message]
    /// When true, continue with `GET /conversations/{id}/messages?afterSeq=`.
    public var hasMore: Bool
    public var members: [MemberWatermarks]

    public init(messages: [Message], hasMore: Bool, members: [MemberWatermarks]) {
        self.messages = messages
        self.hasMore = hasMore
        self.members = members
    }
}

// Single-field payloads, which the event enums carry as plain associated values.

struct EmptyPayload: Codable {}

struct ConversationIDPayload: Codable {
    var conversationId: Conversation.ID
}

struct RequestIDPayload: Codable {
    var requestId: FriendRequest.ID
}

struct UserIDPayload: Codable {
    var userId: User.ID
}

struct PresenceSnapshotPayload: Codable {
    var users: [Presence]
}
