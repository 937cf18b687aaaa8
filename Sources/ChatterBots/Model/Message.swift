/// A message in a conversation. `seq` orders it within its conversation (from 1, without gaps).
///
/// Copies share their fields until one of them changes (a message passes through several queues and values on its way
/// to a handler and into the store, and a copy is then one reference instead of thirteen fields).
public struct Message: Identifiable, Hashable, Sendable, Codable {
    /// A message's ULID; deduplicate deliveries by it.
    public typealias ID = Identifier<Message>

    private var storage: Storage

    /// The message's id, the same on every delivery of it.
    public var id: ID {
        get { storage.fields.id }
        set { update { $0.id = newValue } }
    }
    /// The conversation the message belongs to.
    public var conversationId: Conversation.ID {
        get { storage.fields.conversationId }
        set { update { $0.conversationId = newValue } }
    }
    /// The message's place in its conversation, from 1 without gaps; receipts and sync count by it.
    public var seq: Int {
        get { storage.fields.seq }
        set { update { $0.seq = newValue } }
    }
    /// Who wrote it (the service itself for system messages).
    public var senderId: User.ID {
        get { storage.fields.senderId }
        set { update { $0.senderId = newValue } }
    }
    /// The sender's idempotency key; nil for system messages.
    public var clientMessageId: ClientMessageID? {
        get { storage.fields.clientMessageId }
        set { update { $0.clientMessageId = newValue } }
    }
    /// What it carries (`type` on the wire).
    public var kind: Kind {
        get { storage.fields.kind }
        set { update { $0.kind = newValue } }
    }
    /// The text, or the caption of a media message; nil once deleted for everyone.
    public var body: String? {
        get { storage.fields.body }
        set { update { $0.body = newValue } }
    }
    /// The photo, voice note, video or document; nil for text and once deleted.
    public var mediaId: Media.ID? {
        get { storage.fields.mediaId }
        set { update { $0.mediaId = newValue } }
    }
    /// The message this one quotes; nil when it quotes none.
    public var replyToId: Message.ID? {
        get { storage.fields.replyToId }
        set { update { $0.replyToId = newValue } }
    }
    /// Emoji reactions, each with who reacted.
    public var reactions: [Reaction] {
        get { storage.fields.reactions }
        set { update { $0.reactions = newValue } }
    }
    /// When the service stored the message.
    public var createdAt: Timestamp {
        get { storage.fields.createdAt }
        set { update { $0.createdAt = newValue } }
    }
    /// When the body was last edited; nil if never.
    public var editedAt: Timestamp? {
        get { storage.fields.editedAt }
        set { update { $0.editedAt = newValue } }
    }
    /// Set when the message was deleted for everyone (then `body` and `mediaId` are nil).
    public var deletedAt: Timestamp? {
        get { storage.fields.deletedAt }
        set { update { $0.deletedAt = newValue } }
    }

    /// A message as the service describes it (tests and the sandbox build their own).
    public init(
        id: ID, conversationId: Conversation.ID, seq: Int, senderId: User.ID, clientMessageId: ClientMessageID?,
        kind: Kind, body: String?, mediaId: Media.ID? = nil, replyToId: Message.ID? = nil, reactions: [Reaction] = [],
        createdAt: Timestamp, editedAt: Timestamp? = nil, deletedAt: Timestamp? = nil
    ) {
        storage = Storage(Fields(
            id: id, conversationId: conversationId, seq: seq, senderId: senderId, clientMessageId: clientMessageId, kind: kind,
            body: body, mediaId: mediaId, replyToId: replyToId, reactions: reactions, createdAt: createdAt, editedAt: editedAt,
            deletedAt: deletedAt))
    }

    /// The stored properties, in a box that copies share. It never changes: a change makes a new box.
    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private struct Fields: Hashable, Sendable, Codable {
        var id: ID
        var conversationId: Conversation.ID
        var seq: Int
        var senderId: User.ID
        var clientMessageId: ClientMessageID?
        var kind: Kind
        var body: String?
        var mediaId: Media.ID?
        var replyToId: Message.ID?
        var reactions: [Reaction]
        var createdAt: Timestamp
        var editedAt: Timestamp?
        var deletedAt: Timestamp?

        enum CodingKeys: String, CodingKey {
            case id, conversationId, seq, senderId, clientMessageId, kind = "type", body, mediaId, replyToId, reactions
            case createdAt, editedAt, deletedAt
        }

        init(
            id: ID, conversationId: Conversation.ID, seq: Int, senderId: User.ID, clientMessageId: ClientMessageID?,
            kind: Kind, body: String?, mediaId: Media.ID?, replyToId: Message.ID?, reactions: [Reaction],
            createdAt: Timestamp, editedAt: Timestamp?, deletedAt: Timestamp?
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

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(ID.self, forKey: .id)
            conversationId = try container.decode(Conversation.ID.self, forKey: .conversationId)
            seq = try container.decodeSequenceNumber(forKey: .seq)
            senderId = try container.decode(User.ID.self, forKey: .senderId)
            clientMessageId = try container.decodeIfPresent(ClientMessageID.self, forKey: .clientMessageId)
            kind = try container.decode(Kind.self, forKey: .kind)
            body = try container.decodeIfPresent(String.self, forKey: .body)
            mediaId = try container.decodeIfPresent(Media.ID.self, forKey: .mediaId)
            replyToId = try container.decodeIfPresent(Message.ID.self, forKey: .replyToId)
            reactions = try container.decode([Reaction].self, forKey: .reactions)
            createdAt = try container.decode(Timestamp.self, forKey: .createdAt)
            editedAt = try container.decodeIfPresent(Timestamp.self, forKey: .editedAt)
            deletedAt = try container.decodeIfPresent(Timestamp.self, forKey: .deletedAt)
        }

        func encode(to encoder: any Encoder) throws {
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

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }

    public init(from decoder: any Decoder) throws {
        storage = Storage(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try storage.fields.encode(to: encoder)
    }

    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
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
