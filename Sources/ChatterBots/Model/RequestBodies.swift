// The JSON bodies of REST requests. Absent values follow the wire rule stated once in ChatterBots.swift:
// `deviceId?` and PATCH fields are omitted when nil (a PATCH changes only what it names), other optionals are null.

/// `POST /auth/register`.
public struct RegisterBody: Hashable, Sendable, Codable {
    /// The unique handle to register, e.g. `remind_bot`.
    public var username: String
    /// The account's password.
    public var password: String
    /// The name people see.
    public var displayName: String

    /// A registration.
    public init(username: String, password: String, displayName: String) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }
}

/// `POST /auth/login`. With the `deviceId` of one of the user's devices that device signs in again
/// (its old tokens die); without, a new device is created.
public struct LoginBody: Hashable, Sendable, Codable {
    /// The account's handle.
    public var username: String
    /// The account's password.
    public var password: String
    /// The device to sign in again (a bot passes its stored one, so it stays one device); nil for a new device. Omitted when nil, as the contract's `deviceId?` allows.
    public var deviceId: Device.ID?
    /// How the device names itself.
    public var device: DeviceDescription

    /// A login, as a known device when `deviceId` is given.
    public init(username: String, password: String, deviceId: Device.ID? = nil, device: DeviceDescription) {
        self.username = username
        self.password = password
        self.deviceId = deviceId
        self.device = device
    }
}

/// How a device names itself at login, e.g. `{ "name": "reminder-bot", "platform": "linux" }`.
public struct DeviceDescription: Hashable, Sendable, Codable {
    /// A name people recognise in their device list, e.g. the bot's name.
    public var name: String
    /// The platform, e.g. `linux` or `ios`.
    public var platform: String

    /// A device description.
    public init(name: String, platform: String) {
        self.name = name
        self.platform = platform
    }
}

/// `POST /auth/refresh`.
public struct RefreshBody: Hashable, Sendable, Codable {
    /// The stored refresh token, which this request uses up.
    public var refreshToken: String

    /// A refresh with `refreshToken`.
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// `PUT /me/devices/current/push-token`: the APNs device token as a hex string.
public struct PushTokenBody: Hashable, Sendable, Codable {
    /// The APNs device token, hex.
    public var token: String
    /// Which APNs environment the token belongs to.
    public var environment: PushEnvironment

    /// A push token registration.
    public init(token: String, environment: PushEnvironment) {
        self.token = token
        self.environment = environment
    }
}

/// `PATCH /me`: only the non-nil fields change.
public struct ProfileUpdateBody: Hashable, Sendable, Codable {
    /// The new display name; unchanged when nil.
    public var displayName: String?
    /// The new privacy settings; unchanged when nil.
    public var privacy: PrivacySettings?

    /// A profile change of the non-nil fields.
    public init(displayName: String? = nil, privacy: PrivacySettings? = nil) {
        self.displayName = displayName
        self.privacy = privacy
    }
}

/// `POST /friend-requests`: the recipient, by id or by username.
public enum FriendRequestBody: Hashable, Sendable, Codable {
    /// The recipient by account id.
    case userId(User.ID)
    /// The recipient by handle, e.g. `ben_tan`.
    case username(String)

    enum CodingKeys: String, CodingKey { case userId, username }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let userId = try container.decodeIfPresent(User.ID.self, forKey: .userId) {
            self = .userId(userId)
        } else {
            self = .username(try container.decode(String.self, forKey: .username))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .userId(let userId): try container.encode(userId, forKey: .userId)
        case .username(let username): try container.encode(username, forKey: .username)
        }
    }
}

/// `POST /conversations`: a direct conversation with a friend (the existing one if any), or a group of friends.
public enum NewConversationBody: Hashable, Sendable, Codable {
    /// The direct conversation with a friend.
    case direct(userId: User.ID)
    /// A new group with a title and the creator's friends as members.
    case group(title: String, memberIds: [User.ID])

    enum CodingKeys: String, CodingKey { case type, userId, title, memberIds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(Conversation.Kind.self, forKey: .type)
        switch type {
        case .direct:
            self = .direct(userId: try container.decode(User.ID.self, forKey: .userId))
        case .group:
            self = .group(
                title: try container.decode(String.self, forKey: .title),
                memberIds: try container.decode([User.ID].self, forKey: .memberIds))
        case .unrecognized(let value):
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "Unknown conversation type \"\(value)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .direct(let userId):
            try container.encode(Conversation.Kind.direct, forKey: .type)
            try container.encode(userId, forKey: .userId)
        case .group(let title, let memberIds):
            try container.encode(Conversation.Kind.group, forKey: .type)
            try container.encode(title, forKey: .title)
            try container.encode(memberIds, forKey: .memberIds)
        }
    }
}

/// `PATCH /conversations/{id}` (owner or admin): only the non-nil fields change.
public struct ConversationUpdateBody: Hashable, Sendable, Codable {
    /// The new title; unchanged when nil.
    public var title: String?
    /// The new picture; unchanged when nil.
    public var avatarUrl: String?

    /// A group change of the non-nil fields.
    public init(title: String? = nil, avatarUrl: String? = nil) {
        self.title = title
        self.avatarUrl = avatarUrl
    }
}

/// `POST /conversations/{id}/members`.
public struct MembersBody: Hashable, Sendable, Codable {
    /// The friends to add.
    public var userIds: [User.ID]

    /// An addition of `userIds` to a group.
    public init(userIds: [User.ID]) { self.userIds = userIds }
}

/// `PUT /conversations/{id}/settings`.
public struct ConversationSettingsBody: Hashable, Sendable, Codable {
    /// Whether the caller's pushes for the conversation are silenced.
    public var muted: Bool

    /// A mute setting.
    public init(muted: Bool) { self.muted = muted }
}

/// `POST /conversations/{id}/messages`, the REST twin of `message.send`: a repeated `clientMessageId`
/// returns the same message.
public struct MessagePostBody: Hashable, Sendable, Codable {
    /// The idempotency key: a repeat returns the same message.
    public var clientMessageId: ClientMessageID
    /// What the message carries (flattened into the body on the wire).
    public var content: MessageContent

    /// A message to post with its key.
    public init(clientMessageId: ClientMessageID, content: MessageContent) {
        self.clientMessageId = clientMessageId
        self.content = content
    }

    enum CodingKeys: String, CodingKey { case clientMessageId }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientMessageId = try container.decode(ClientMessageID.self, forKey: .clientMessageId)
        content = try MessageContent(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientMessageId, forKey: .clientMessageId)
        try content.encode(to: encoder)
    }
}

/// `PATCH /conversations/{id}/messages/{messageId}` (sender only).
public struct MessageEditBody: Hashable, Sendable, Codable {
    /// The new text.
    public var body: String

    /// An edit to `body`.
    public init(body: String) { self.body = body }
}

/// `POST /developer/test-push`.
public struct TestPushBody: Hashable, Sendable, Codable {
    /// The user whose devices get the test push.
    public var userId: User.ID

    /// A test push to `userId`'s devices.
    public init(userId: User.ID) { self.userId = userId }
}
