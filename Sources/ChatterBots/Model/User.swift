/// A Chatter account as other users see it. Bot accounts are ordinary users.
public struct User: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<User>

    public var id: ID
    /// The unique handle, e.g. `ben_tan`.
    public var username: String
    public var displayName: String
    public var avatarUrl: String?

    public init(id: ID, username: String, displayName: String, avatarUrl: String? = nil) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.avatarUrl = avatarUrl
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(username, forKey: .username)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(avatarUrl, forKey: .avatarUrl)
    }
}

/// The signed-in user as `GET /me` returns it: the public profile plus the user's own privacy settings.
public struct CurrentUser: Identifiable, Hashable, Sendable, Codable {
    public var id: User.ID
    public var username: String
    public var displayName: String
    public var avatarUrl: String?
    public var privacy: PrivacySettings

    public init(user: User, privacy: PrivacySettings) {
        id = user.id
        username = user.username
        displayName = user.displayName
        avatarUrl = user.avatarUrl
        self.privacy = privacy
    }

    /// The public profile, as friends see it.
    public var user: User { User(id: id, username: username, displayName: displayName, avatarUrl: avatarUrl) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(username, forKey: .username)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(avatarUrl, forKey: .avatarUrl)
        try container.encode(privacy, forKey: .privacy)
    }
}

/// Who may see when the user was last online.
public struct PrivacySettings: Hashable, Sendable, Codable {
    public var lastSeen: LastSeenVisibility

    public init(lastSeen: LastSeenVisibility) { self.lastSeen = lastSeen }
}

/// The audience of a user's presence (`privacy.lastSeen`).
public enum LastSeenVisibility: Hashable, Sendable, Codable, RawRepresentable {
    case everyone
    case friends
    case nobody
    /// A value this version does not know; kept so that the profile still decodes.
    case unrecognized(String)

    public init(rawValue: String) {
        switch rawValue {
        case "everyone": self = .everyone
        case "friends": self = .friends
        case "nobody": self = .nobody
        default: self = .unrecognized(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .everyone: "everyone"
        case .friends: "friends"
        case .nobody: "nobody"
        case .unrecognized(let value): value
        }
    }
}

/// A friendship as seen by one of the two friends: the other user, and since when.
public struct Friend: Hashable, Sendable, Codable {
    public var user: User
    public var since: Timestamp

    public init(user: User, since: Timestamp) {
        self.user = user
        self.since = since
    }
}

/// A pending friend request from `fromUser` to `toUser`.
public struct FriendRequest: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = Identifier<FriendRequest>

    public var id: ID
    public var fromUser: User
    public var toUser: User
    public var createdAt: Timestamp

    public init(id: ID, fromUser: User, toUser: User, createdAt: Timestamp) {
        self.id = id
        self.fromUser = fromUser
        self.toUser = toUser
        self.createdAt = createdAt
    }
}

/// The result of accepting a friend request: `POST /friend-requests/{id}/accept` and the
/// `friend_request.accepted` event (each user receives the OTHER user as `friend`).
public struct FriendRequestAccepted: Hashable, Sendable, Codable {
    public var requestId: FriendRequest.ID
    public var friend: Friend

    public init(requestId: FriendRequest.ID, friend: Friend) {
        self.requestId = requestId
        self.friend = friend
    }
}

/// Whether a friend is online (`presence` event, `presence.snapshot` entries).
public struct Presence: Hashable, Sendable, Codable {
    public var userId: User.ID
    public var isOnline: Bool
    /// When the user's last socket closed; null while online or when their privacy hides it.
    public var lastSeenAt: Timestamp?

    public init(userId: User.ID, isOnline: Bool, lastSeenAt: Timestamp? = nil) {
        self.userId = userId
        self.isOnline = isOnline
        self.lastSeenAt = lastSeenAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(isOnline, forKey: .isOnline)
        try container.encode(lastSeenAt, forKey: .lastSeenAt)
    }
}
