/// A direct or group conversation, as the caller sees it.
public struct Conversation: Identifiable, Hashable, Sendable, Codable {
    /// A conversation's ULID, typed so that it cannot be mixed up with other ids.
    public typealias ID = Identifier<Conversation>

    /// The conversation's id.
    public var id: ID
    /// Direct or group (`type` on the wire).
    public var kind: Kind
    /// The group title; nil for direct conversations.
    public var title: String?
    /// The group picture; nil when there is none (and for direct conversations).
    public var avatarUrl: String?
    /// Everyone in the conversation, the caller included, with roles and watermarks.
    public var members: [Member]
    /// The `seq` of the newest message (0 when empty). Sequence numbers start at 1 and have no gaps.
    public var lastSeq: Int
    /// The newest message, for a conversation list; nil when there is none.
    public var lastMessage: Message?
    /// The caller's own mute setting.
    public var muted: Bool
    /// When the conversation was started.
    public var createdAt: Timestamp
    /// When anything in it last changed; `GET /conversations?updatedSince=` pages by it.
    public var updatedAt: Timestamp

    /// A conversation as the service describes it (tests and the sandbox build their own).
    public init(
        id: ID, kind: Kind, title: String? = nil, avatarUrl: String? = nil, members: [Member], lastSeq: Int,
        lastMessage: Message? = nil, muted: Bool = false, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.kind = kind
        self.title = title
        self.avatarUrl = avatarUrl
        self.members = members
        self.lastSeq = lastSeq
        self.lastMessage = lastMessage
        self.muted = muted
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Direct (one pair of friends) or group.
    public enum Kind: Hashable, Sendable, Codable, RawRepresentable {
        /// One pair of friends; at most one per pair.
        case direct
        /// A titled group of the creator's friends.
        case group
        /// A conversation type this version does not know; kept so that the conversation still decodes.
        case unrecognized(String)

        public init(rawValue: String) {
            switch rawValue {
            case "direct": self = .direct
            case "group": self = .group
            default: self = .unrecognized(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .direct: "direct"
            case .group: "group"
            case .unrecognized(let value): value
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, kind = "type", title, avatarUrl, members, lastSeq, lastMessage, muted, createdAt, updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        kind = try container.decode(Kind.self, forKey: .kind)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        avatarUrl = try container.decodeIfPresent(String.self, forKey: .avatarUrl)
        members = try container.decode([Member].self, forKey: .members)
        lastSeq = try container.decodeSequenceNumber(forKey: .lastSeq)
        lastMessage = try container.decodeIfPresent(Message.self, forKey: .lastMessage)
        muted = try container.decode(Bool.self, forKey: .muted)
        createdAt = try container.decode(Timestamp.self, forKey: .createdAt)
        updatedAt = try container.decode(Timestamp.self, forKey: .updatedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(title, forKey: .title)
        try container.encode(avatarUrl, forKey: .avatarUrl)
        try container.encode(members, forKey: .members)
        try container.encode(lastSeq, forKey: .lastSeq)
        try container.encode(lastMessage, forKey: .lastMessage)
        try container.encode(muted, forKey: .muted)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// A member of a conversation, with their role and read watermarks.
public struct Member: Hashable, Sendable, Codable {
    /// Who the member is.
    public var userId: User.ID
    /// What the member may do in the conversation.
    public var role: Role
    /// The highest `seq` the member's devices have received (0 when none).
    public var lastDeliveredSeq: Int
    /// The highest `seq` the member has read (0 when none); never above `lastDeliveredSeq`.
    public var lastReadSeq: Int

    /// A member as the service describes them.
    public init(userId: User.ID, role: Role, lastDeliveredSeq: Int = 0, lastReadSeq: Int = 0) {
        self.userId = userId
        self.role = role
        self.lastDeliveredSeq = lastDeliveredSeq
        self.lastReadSeq = lastReadSeq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decode(User.ID.self, forKey: .userId)
        role = try container.decode(Role.self, forKey: .role)
        lastDeliveredSeq = try container.decodeSequenceNumber(forKey: .lastDeliveredSeq)
        lastReadSeq = try container.decodeSequenceNumber(forKey: .lastReadSeq)
    }

    private enum CodingKeys: String, CodingKey {
        case userId, role, lastDeliveredSeq, lastReadSeq
    }

    /// What a member may do: owners and admins manage the group.
    public enum Role: Hashable, Sendable, Codable, RawRepresentable {
        /// Created the group; manages it like an admin.
        case owner
        /// Changes the title and avatar, adds and removes members.
        case admin
        /// Reads and writes messages.
        case member
        /// A role this version does not know; kept so that the conversation still decodes.
        case unrecognized(String)

        public init(rawValue: String) {
            switch rawValue {
            case "owner": self = .owner
            case "admin": self = .admin
            case "member": self = .member
            default: self = .unrecognized(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .owner: "owner"
            case .admin: "admin"
            case .member: "member"
            case .unrecognized(let value): value
            }
        }
    }
}

/// A member's watermarks without the role, as `sync.response` lists them.
public struct MemberWatermarks: Hashable, Sendable, Codable {
    /// Who the member is.
    public var userId: User.ID
    /// The highest `seq` the member's devices have received.
    public var lastDeliveredSeq: Int
    /// The highest `seq` the member has read.
    public var lastReadSeq: Int

    /// A member's watermarks as `sync.response` lists them.
    public init(userId: User.ID, lastDeliveredSeq: Int, lastReadSeq: Int) {
        self.userId = userId
        self.lastDeliveredSeq = lastDeliveredSeq
        self.lastReadSeq = lastReadSeq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decode(User.ID.self, forKey: .userId)
        lastDeliveredSeq = try container.decodeSequenceNumber(forKey: .lastDeliveredSeq)
        lastReadSeq = try container.decodeSequenceNumber(forKey: .lastReadSeq)
    }

    private enum CodingKeys: String, CodingKey {
        case userId, lastDeliveredSeq, lastReadSeq
    }
}
