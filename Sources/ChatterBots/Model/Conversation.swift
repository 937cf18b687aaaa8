/// A direct or group conversation, as the caller sees it.
public struct Conversation: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<Conversation>

    public var id: ID
    public var kind: Kind
    /// The group title; nil for direct conversations.
    public var title: String?
    public var avatarUrl: String?
    public var members: [Member]
    /// The `seq` of the newest message (0 when empty). Sequence numbers start at 1 and have no gaps.
    public var lastSeq: Int
    public var lastMessage: Message?
    /// The caller's own mute setting.
    public var muted: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

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
        case direct
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
    public var userId: User.ID
    public var role: Role
    public var lastDeliveredSeq: Int
    public var lastReadSeq: Int

    public init(userId: User.ID, role: Role, lastDeliveredSeq: Int = 0, lastReadSeq: Int = 0) {
        self.userId = userId
        self.role = role
        self.lastDeliveredSeq = lastDeliveredSeq
        self.lastReadSeq = lastReadSeq
    }

    /// What a member may do: owners and admins manage the group.
    public enum Role: Hashable, Sendable, Codable, RawRepresentable {
        case owner
        case admin
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
    public var userId: User.ID
    public var lastDeliveredSeq: Int
    public var lastReadSeq: Int

    public init(userId: User.ID, lastDeliveredSeq: Int, lastReadSeq: Int) {
        self.userId = userId
        self.lastDeliveredSeq = lastDeliveredSeq
        self.lastReadSeq = lastReadSeq
    }
}
