/// A message in a conversation. `seq` orders it within its conversation (from 1, without gaps).
public struct Message: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<Message>

    public var id: ID
    public var conversationId: Conversation.ID
    public var seq: Int
    public var senderId: User.ID
    /// The sender's idempotency key; nil for system messages.
    public var clientMessageId: ClientMessageID?
    public var kind: Kind
    /// The text, or the caption of a media message; nil once deleted for everyone.
    public var body: String?
    public var mediaId: Media.ID?
    public var replyToId: Message.ID?
    public var reactions: [Reaction]
    public var createdAt: Timestamp
    public var editedAt: Timestamp?
    /// Set when the message was deleted for everyone (then `body` and `mediaId` are nil).
    public var deletedAt: Timestamp?

    public init(
        id: ID, conversationId: Conversation.ID, seq: Int, senderId: User.ID, clientMessageId: ClientMessageID?,
        kind: Kind, body: String?, mediaId: Media.ID? = nil, replyToId: Message.ID? = nil, reactions: [Reaction] = [],
        createdAt: Timestamp, editedAt: Timestamp? = nil, deletedAt: Timestamp? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.seq = seq
        self.senderId = senderId
        self.clientMessageId = clientMessageId
        self.kind = kind
        self.body = body
        self.mediaId = mediaId
        self.replyToId = replyToId
        self.reactions = reactions
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.deletedAt = deletedAt
    }

    public var isDeleted: Bool { deletedAt != nil }

    /// What the message carries.
    public enum Kind: Hashable, Sendable, Codable, RawRepresentable {
        case text
        case photo
        case voice
        case video
        case document
        /// Written by the service (member joined, title changed, …).
        case system
        /// A message type this version does not know; kept so that the message (and its `seq`) is not lost.
        case unrecognized(String)

        public init(rawValue: String) {
            switch rawValue {
            case "text": self = .text
            case "photo": self = .photo
            case "voice": self = .voice
            case "video": self = .video
            case "document": self = .document
            case "system": self = .system
            default: self = .unrecognized(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .text: "text"
            case .photo: "photo"
            case .voice: "voice"
            case .video: "video"
            case .document: "document"
            case .system: "system"
            case .unrecognized(let value): value
            }
        }
    }

    /// One emoji and the users who reacted with it.
    public struct Reaction: Hashable, Sendable, Codable {
        public var emoji: String
        public var userIds: [User.ID]

        public init(emoji: String, userIds: [User.ID]) {
            self.emoji = emoji
            self.userIds = userIds
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, conversationId, seq, senderId, clientMessageId, kind = "type", body, mediaId, replyToId, reactions
        case createdAt, editedAt, deletedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(conversationId, forKey: .conversationId)
        try container.encode(seq, forKey: .seq)
        try container.encode(senderId, forKey: .senderId)
        try container.encode(clientMessageId, forKey: .clientMessageId)
        try container.encode(kind, forKey: .kind)
        try container.encode(body, forKey: .body)
        try container.encode(mediaId, forKey: .mediaId)
        try container.encode(replyToId, forKey: .replyToId)
        try container.encode(reactions, forKey: .reactions)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(editedAt, forKey: .editedAt)
        try container.encode(deletedAt, forKey: .deletedAt)
    }
}

/// What a sender puts in a new message: its kind, text or caption, media and the message it quotes.
///
/// On the wire it is flattened into `message.send` and `POST …/messages` as `type`, `body`, `mediaId`,
/// `replyToId` (null when absent).
public struct MessageContent: Hashable, Sendable, Codable {
    public var kind: Message.Kind
    public var body: String?
    public var mediaId: Media.ID?
    public var replyToId: Message.ID?

    public init(kind: Message.Kind, body: String?, mediaId: Media.ID? = nil, replyToId: Message.ID? = nil) {
        self.kind = kind
        self.body = body
        self.mediaId = mediaId
        self.replyToId = replyToId
    }

    /// A text message (the service accepts up to 4,096 characters).
    public static func text(_ body: String, replyingTo replyToId: Message.ID? = nil) -> MessageContent {
        MessageContent(kind: .text, body: body, replyToId: replyToId)
    }

    /// A photo, voice, video or document message with media uploaded first through `POST /media`.
    public static func media(
        _ kind: Message.Kind, _ mediaId: Media.ID, caption: String? = nil, replyingTo replyToId: Message.ID? = nil
    ) -> MessageContent {
        MessageContent(kind: kind, body: caption, mediaId: mediaId, replyToId: replyToId)
    }

    enum CodingKeys: String, CodingKey {
        case kind = "type", body, mediaId, replyToId
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(body, forKey: .body)
        try container.encode(mediaId, forKey: .mediaId)
        try container.encode(replyToId, forKey: .replyToId)
    }
}
