/// A Chatter account as other users see it. Bot accounts are ordinary users.
public struct User: Identifiable, Hashable, Sendable, Codable {
    /// A user's ULID, typed so that it cannot be mixed up with other ids.
    public typealias ID = Identifier<User>

    /// The account's id.
    public var id: ID
    /// The unique handle, e.g. `ben_tan`.
    public var username: String
    /// The name people see.
    public var displayName: String
    /// The profile picture; nil when there is none.
    public var avatarUrl: String?

    /// A user as the service describes them (tests and the sandbox build their own).
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
    /// The account's id.
    public var id: User.ID
    /// The unique handle.
    public var username: String
    /// The name people see.
    public var displayName: String
    /// The profile picture; nil when there is none.
    public var avatarUrl: String?
    /// Who may see the user's presence.
    public var privacy: PrivacySettings

    /// The signed-in user from their public profile and settings.
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
    /// Who may see when the user is online and was last seen.
    public var lastSeen: LastSeenVisibility

    /// Privacy settings.
    public init(lastSeen: LastSeenVisibility) { self.lastSeen = lastSeen }
}

/// The audience of a user's presence (`privacy.lastSeen`).
public enum LastSeenVisibility: Hashable, Sendable, Codable, RawRepresentable {
    /// Anyone the service shows presence to (today presence is shared between friends only).
    case everyone
    /// Friends only.
    case friends
    /// Nobody: the user always appears offline without a last-seen time.
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
    /// The other user.
    public var user: User
    /// When the friendship began (the request's acceptance).
    public var since: Timestamp

    /// A friendship as the service describes it.
    public init(user: User, since: Timestamp) {
        self.user = user
        self.since = since
    }
}

/// A pending friend request from `fromUser` to `toUser`.
public struct FriendRequest: Identifiable, Hashable, Sendable, Codable {
    /// A friend request's ULID: accept, decline or cancel it by this id.
    public typealias ID = Identifier<FriendRequest>

    /// The request's id.
    public var id: ID
    /// Who asked.
    public var fromUser: User
    /// Who was asked.
    public var toUser: User
    /// When it was sent.
    public var createdAt: Timestamp

    /// A request as the service describes it.
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
    /// The request that was accepted.
    public var requestId: FriendRequest.ID
    /// The new friend: always the other user, for both of them.
    public var friend: Friend

    /// An acceptance as the service reports it.
    public init(requestId: FriendRequest.ID, friend: Friend) {
        self.requestId = requestId
        self.friend = friend
    }
}

/// Whether a friend is online (`presence` event, `presence.snapshot` entries).
public struct Presence: Hashable, Sendable, Codable {
    /// Whose presence this is.
    public var userId: User.ID
    /// Whether at least one of the user's devices has a socket open.
    public var isOnline: Bool
    /// When the user's last socket closed; null while online or when their privacy hides it.
    public var lastSeenAt: Timestamp?

    /// A presence as the service reports it.
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
