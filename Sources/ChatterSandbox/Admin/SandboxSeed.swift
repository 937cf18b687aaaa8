import ChatterBots

/// Accounts and friendships to create in one call (`SandboxAdmin.createUsers`, `POST /sandbox/users`, or
/// `SandboxConfiguration.seed` at start-up). JSON:
/// `{ "users": [{ "username", "password", "displayName"?, "lastSeen"?, "device"? }], "friendships": [["ana", "ben"]] }`.
public struct SandboxSeed: Sendable, Hashable, Codable {
    public var users: [SandboxUserSeed]
    /// Pairs of usernames from `users` (or ids of existing users) who become friends, without requests or events.
    public var friendships: [SandboxFriendship]

    public init(users: [SandboxUserSeed], friendships: [SandboxFriendship] = []) {
        self.users = users
        self.friendships = friendships
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        users = try container.decode([SandboxUserSeed].self, forKey: .users)
        friendships = try container.decodeIfPresent([SandboxFriendship].self, forKey: .friendships) ?? []
    }
}

/// One account to create; it is signed in on one new device so that it can connect at once.
public struct SandboxUserSeed: Sendable, Hashable, Codable {
    public var username: String
    public var password: String
    /// Defaults to the username.
    public var displayName: String?
    /// `privacy.lastSeen`; the service's default (`everyone`) when nil.
    public var lastSeen: LastSeenVisibility?
    /// The device the account is signed in on; defaults to `sandbox-admin` / `sandbox`.
    public var device: DeviceDescription?

    public init(
        username: String, password: String, displayName: String? = nil, lastSeen: LastSeenVisibility? = nil,
        device: DeviceDescription? = nil
    ) {
        self.username = username
        self.password = password
        self.displayName = displayName
        self.lastSeen = lastSeen
        self.device = device
    }
}

/// Two users who become friends: each side is a username of the same seed or the id of an existing user.
/// JSON: a two-element array, `["ana", "ben"]`.
public struct SandboxFriendship: Sendable, Hashable, Codable {
    public var first: String
    public var second: String

    public init(_ first: String, _ second: String) {
        self.first = first
        self.second = second
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        first = try container.decode(String.self)
        second = try container.decode(String.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a friendship names exactly two users")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(first)
        try container.encode(second)
    }
}

/// An account the admin created: the user, its password, and the session of the device it was signed in on.
public struct SeededAccount: Sendable, Hashable, Codable {
    public var user: User
    public var password: String
    public var session: AuthSession

    public init(user: User, password: String, session: AuthSession) {
        self.user = user
        self.password = password
        self.session = session
    }

    /// The caller this account acts as on its seeded device.
    public var caller: SandboxCaller { SandboxCaller(userId: user.id, deviceId: session.deviceId) }
}

/// The accounts one seed created, in the seed's order; look one up by username.
public struct SeededAccounts: Sendable, Hashable, Codable {
    public var users: [SeededAccount]

    public init(users: [SeededAccount]) { self.users = users }

    /// The account created for `username` (case-insensitive, as usernames are), or nil.
    public subscript(username: String) -> SeededAccount? {
        users.first { $0.user.username.lowercased() == username.lowercased() }
    }
}
