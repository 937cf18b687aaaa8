/// A message in a conversation. `seq` orders it within its conversation (from 1, without gaps).
public struct Message: Identifiable, Hashable, Sendable, Codable {
    /// A message's ULID; deduplicate deliveries by it.
    public typealias ID = Identifier<Message>

    /// The message's id, the same on every delivery of it.
    public var id: ID
    /// The conversation the message belongs to.
    public var conversationId: Conversation.ID
    /// The message's place in its conversation, from 1 without gaps; receipts and sync count by it.
    public var seq: Int
    /// Who wrote it (the service itself for system messages).
    public var senderId: User.ID
    /// The sender's idempotency key; nil for system messages.
    public var clientMessageId: ClientMessageID?
    /// What it carries (`type` on the wire).
    public var kind: Kind
    /// The text, or the caption of a media message; nil once deleted for everyone.
    public var body: String?
    /// The photo, voice note, video or document; nil for text and once deleted.
    public var mediaId: Media.ID?
    /// The message this one quotes; nil when it quotes none.
    public var replyToId: Message.ID?
    /// Emoji reactions, each with who reacted.
    public var reactions: [Reaction]
    /// When the service stored the message.
    public var createdAt: Timestamp
    /// When the body was last edited; nil if never.
    public var editedAt: Timestamp?
    /// Set when the message was deleted for everyone (then `body` and `mediaId` are nil).
    public var deletedAt: Timestamp?

    /// A message as the service describes it (tests and the sandbox build their own).
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

    /// Whether the message was deleted for everyone.
    public var isDeleted: Bool { deletedAt != nil }

    /// What the message carries.
    public enum Kind: Hashable, Sendable, Codable, RawRepresentable {
        /// Text only.
        case text
        /// A picture in `mediaId`, with an optional caption in `body`.
        case photo
        /// A voice note in `mediaId`.
        case voice
        /// A video in `mediaId`, with an optional caption.
        case video
        /// A file (e.g. a PDF) in `mediaId`, with an optional caption.
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
        /// The emoji, e.g. `👍`.
        public var emoji: String
        /// Everyone who reacted with it.
        public var userIds: [User.ID]

        /// A reaction as the service lists it.
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
    /// What the message carries (`type` on the wire).
    public var kind: Message.Kind
    /// The text, or a media message's caption; nil for media without one.
    public var body: String?
    /// The uploaded file of a media message.
    public var mediaId: Media.ID?
    /// The message to quote, if any.
    public var replyToId: Message.ID?

    /// Content of any kind; `text(_:)` and `media(_:_:)` cover the usual cases.
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
