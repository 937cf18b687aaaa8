// The `data` objects of realtime frames (`seeds/realtime-websocket.txt`).

/// `session.ready`: the first frame after connecting.
public struct SessionReady: Hashable, Sendable, Codable {
    /// The signed-in account.
    public var userId: User.ID
    /// The device the token belongs to.
    public var deviceId: Device.ID
    /// The service's clock when it sent the frame, to measure the local clock's skew.
    public var serverTime: Timestamp
    /// How often to send `ping`, in milliseconds (25,000 today).
    public var heartbeatIntervalMs: Int

    /// A `session.ready` as the service sends it (the sandbox builds these).
    public init(userId: User.ID, deviceId: Device.ID, serverTime: Timestamp, heartbeatIntervalMs: Int) {
        self.userId = userId
        self.deviceId = deviceId
        self.serverTime = serverTime
        self.heartbeatIntervalMs = heartbeatIntervalMs
    }

    /// `heartbeatIntervalMs` as a duration.
    public var heartbeatInterval: Duration { .milliseconds(heartbeatIntervalMs) }
}

/// `message.send`: a new message, identified by the sender's idempotency key.
public struct MessageSend: Hashable, Sendable, Codable {
    /// Where the message goes.
    public var conversationId: Conversation.ID
    /// The idempotency key: every resend with it makes the same message and the same ack.
    public var clientMessageId: ClientMessageID
    /// What the message carries (flattened into `data` on the wire).
    public var content: MessageContent

    /// A message to send with its key.
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
    /// The key of the `message.send` acknowledged.
    public var clientMessageId: ClientMessageID
    /// The id the message got.
    public var messageId: Message.ID
    /// The conversation it went to.
    public var conversationId: Conversation.ID
    /// Its place in the conversation.
    public var seq: Int
    /// When the service stored it.
    public var createdAt: Timestamp

    /// An ack as the service sends it.
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

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientMessageId = try container.decode(ClientMessageID.self, forKey: .clientMessageId)
        messageId = try container.decode(Message.ID.self, forKey: .messageId)
        conversationId = try container.decode(Conversation.ID.self, forKey: .conversationId)
        seq = try container.decodeSequenceNumber(forKey: .seq)
        createdAt = try container.decode(Timestamp.self, forKey: .createdAt)
    }

    private enum CodingKeys: String, CodingKey {
        case clientMessageId, messageId, conversationId, seq, createdAt
    }
}

/// `receipt.delivered` and `receipt.read`: the caller has the conversation up to `seq`.
public struct ReceiptPosition: Hashable, Sendable, Codable {
    /// The conversation the receipt is for.
    public var conversationId: Conversation.ID
    /// The highest `seq` delivered (or read) without gaps.
    public var seq: Int

    /// A receipt position.
    public init(conversationId: Conversation.ID, seq: Int) {
        self.conversationId = conversationId
        self.seq = seq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversationId = try container.decode(Conversation.ID.self, forKey: .conversationId)
        seq = try container.decodeSequenceNumber(forKey: .seq)
    }

    private enum CodingKeys: String, CodingKey {
        case conversationId, seq
    }
}

/// `receipt.updated`: a member's watermarks moved (including the caller's own other devices).
public struct ReceiptUpdate: Hashable, Sendable, Codable {
    /// The conversation whose watermarks moved.
    public var conversationId: Conversation.ID
    /// The member whose watermarks moved.
    public var userId: User.ID
    /// The member's new delivered watermark.
    public var lastDeliveredSeq: Int
    /// The member's new read watermark.
    public var lastReadSeq: Int

    /// A `receipt.updated` as the service sends it.
    public init(conversationId: Conversation.ID, userId: User.ID, lastDeliveredSeq: Int, lastReadSeq: Int) {
        self.conversationId = conversationId
        self.userId = userId
        self.lastDeliveredSeq = lastDeliveredSeq
        self.lastReadSeq = lastReadSeq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversationId = try container.decode(Conversation.ID.self, forKey: .conversationId)
        userId = try container.decode(User.ID.self, forKey: .userId)
        lastDeliveredSeq = try container.decodeSequenceNumber(forKey: .lastDeliveredSeq)
        lastReadSeq = try container.decodeSequenceNumber(forKey: .lastReadSeq)
    }

    private enum CodingKeys: String, CodingKey {
        case conversationId, userId, lastDeliveredSeq, lastReadSeq
    }
}

/// `typing`: a member started or stopped typing (best effort).
public struct TypingIndicator: Hashable, Sendable, Codable {
    /// Where the member is typing.
    public var conversationId: Conversation.ID
    /// Who is typing.
    public var userId: User.ID
    /// True while typing; false when stopped (or after 5 s without `typing.start`).
    public var isTyping: Bool

    /// A `typing` event as the service sends it.
    public init(conversationId: Conversation.ID, userId: User.ID, isTyping: Bool) {
        self.conversationId = conversationId
        self.userId = userId
        self.isTyping = isTyping
    }
}

/// `sync.request`: the highest contiguous `seq` the caller has in each known conversation.
public struct SyncRequest: Hashable, Sendable, Codable {
    /// For each known conversation, the highest contiguous `seq` the caller has.
    public var conversations: [Conversation.ID: Int]
    /// At most this many messages per conversation in the response; the key is omitted when nil (the seed's own
    /// example leaves it out), and the service uses its default.
    public var limitPerConversation: Int?

    /// A sync of `conversations`, with the service's page size unless `limitPerConversation` is given.
    public init(conversations: [Conversation.ID: Int], limitPerConversation: Int? = nil) {
        self.conversations = conversations
        self.limitPerConversation = limitPerConversation
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversations = try container.decode([Conversation.ID: Int].self, forKey: .conversations)
        if let bad = conversations.first(where: { !SequenceNumber.range.contains($0.value) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .conversations, in: container,
                debugDescription: "\(bad.value) for \(bad.key) is no sequence number (0 to Int.max / 2)")
        }
        limitPerConversation = try container.decodeIfPresent(Int.self, forKey: .limitPerConversation)
    }

    private enum CodingKeys: String, CodingKey {
        case conversations, limitPerConversation
    }
}

/// `sync.response`: what each requested conversation has after the given `seq`. Conversations the
/// caller did not name are not included (discover them with `GET /conversations?updatedSince=`).
public struct SyncResponse: Hashable, Sendable, Codable {
    /// What each requested conversation has after the given `seq`.
    public var conversations: [Conversation.ID: ConversationSync]

    /// A `sync.response` as the service sends it.
    public init(conversations: [Conversation.ID: ConversationSync]) { self.conversations = conversations }
}

/// One conversation of a `sync.response`.
public struct ConversationSync: Hashable, Sendable, Codable {
    /// Ascending by `seq`.
    public var messages: [Message]
    /// When true, continue with `GET /conversations/{id}/messages?afterSeq=`.
    public var hasMore: Bool
    /// Every member's watermarks now.
    public var members: [MemberWatermarks]

    /// One conversation's part of a `sync.response`.
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
