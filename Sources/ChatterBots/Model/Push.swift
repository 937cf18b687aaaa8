/// Where a device's push token is valid: debug builds use `sandbox`, TestFlight and App Store `production`.
public enum PushEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    case sandbox
    case production
}

/// The APNs key of a workspace (`PUT /developer/apns`).
public struct APNsKeyBody: Hashable, Sendable, Codable {
    public var teamId: String
    public var keyId: String
    public var bundleId: String
    /// The contents of the `.p8` file.
    public var privateKey: String

    public init(teamId: String, keyId: String, bundleId: String, privateKey: String) {
        self.teamId = teamId
        self.keyId = keyId
        self.bundleId = bundleId
        self.privateKey = privateKey
    }
}

/// The workspace's APNs configuration as `GET /developer/apns` reports it (never the private key).
public struct APNsConfiguration: Hashable, Sendable, Codable {
    public var configured: Bool
    public var teamId: String?
    public var keyId: String?
    public var bundleId: String?

    public init(configured: Bool, teamId: String? = nil, keyId: String? = nil, bundleId: String? = nil) {
        self.configured = configured
        self.teamId = teamId
        self.keyId = keyId
        self.bundleId = bundleId
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(configured, forKey: .configured)
        try container.encode(teamId, forKey: .teamId)
        try container.encode(keyId, forKey: .keyId)
        try container.encode(bundleId, forKey: .bundleId)
    }
}

/// What `POST /developer/test-push` did: how many devices got the push, and each device's outcome.
public struct TestPushReport: Hashable, Sendable, Codable {
    public var sent: Int
    public var failed: Int
    public var results: [Result]

    public init(sent: Int, failed: Int, results: [Result]) {
        self.sent = sent
        self.failed = failed
        self.results = results
    }

    /// One device's outcome; `reason` is the APNs error (e.g. `BadDeviceToken`) when it failed.
    public struct Result: Hashable, Sendable, Codable {
        public var deviceId: Device.ID
        public var status: Status
        public var reason: String?

        public init(deviceId: Device.ID, status: Status, reason: String? = nil) {
            self.deviceId = deviceId
            self.status = status
            self.reason = reason
        }
    }

    /// The outcome of one push. Open: an unknown status still decodes.
    public struct Status: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public static let sent: Status = "sent"
        public static let failed: Status = "failed"

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// An APNs payload the service sends (`seeds/push-notifications.txt`): the `aps` dictionary and the
/// `chatter` object that says what happened.
public struct PushPayload: Hashable, Sendable, Codable {
    public var aps: APS
    public var chatter: Event

    public init(aps: APS, chatter: Event) {
        self.aps = aps
        self.chatter = chatter
    }

    /// Apple's `aps` dictionary. Absent keys are omitted, as APNs expects.
    public struct APS: Hashable, Sendable, Codable {
        public var alert: Alert
        public var sound: String?
        /// Total unread messages across the user's non-muted conversations.
        public var badge: Int?
        /// Groups notifications per conversation (the conversation id).
        public var threadId: String?
        /// 1 lets a notification service extension modify the push.
        public var mutableContent: Int?

        public init(alert: Alert, sound: String? = nil, badge: Int? = nil, threadId: String? = nil, mutableContent: Int? = nil) {
            self.alert = alert
            self.sound = sound
            self.badge = badge
            self.threadId = threadId
            self.mutableContent = mutableContent
        }

        enum CodingKeys: String, CodingKey {
            case alert, sound, badge, threadId = "thread-id", mutableContent = "mutable-content"
        }
    }

    /// The banner: title and body.
    public struct Alert: Hashable, Sendable, Codable {
        public var title: String
        public var body: String

        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// The `chatter` object: what the push is about, by its `type`.
    public enum Event: Hashable, Sendable, Codable {
        /// `message.new`: a new message arrived in a conversation.
        case messageNew(conversationId: Conversation.ID, messageId: Message.ID, seq: Int, senderId: User.ID)
        /// `friend_request.received`.
        case friendRequestReceived(requestId: FriendRequest.ID, fromUserId: User.ID)
        /// `friend_request.accepted`: `friendUserId` accepted the recipient's request.
        case friendRequestAccepted(requestId: FriendRequest.ID, friendUserId: User.ID)
        /// A type this version does not know, with all its fields (including `type`).
        case unknown(type: String, fields: [String: JSONValue])

        enum CodingKeys: String, CodingKey {
            case type, conversationId, messageId, seq, senderId, requestId, fromUserId, friendUserId
        }

        public var type: String {
            switch self {
            case .messageNew: "message.new"
            case .friendRequestReceived: "friend_request.received"
            case .friendRequestAccepted: "friend_request.accepted"
            case .unknown(let type, _): type
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let type = try container.decode(String.self, forKey: .type)
            switch type {
            case "message.new":
                self = .messageNew(
                    conversationId: try container.decode(Conversation.ID.self, forKey: .conversationId),
                    messageId: try container.decode(Message.ID.self, forKey: .messageId),
                    seq: try container.decode(Int.self, forKey: .seq),
                    senderId: try container.decode(User.ID.self, forKey: .senderId))
            case "friend_request.received":
                self = .friendRequestReceived(
                    requestId: try container.decode(FriendRequest.ID.self, forKey: .requestId),
                    fromUserId: try container.decode(User.ID.self, forKey: .fromUserId))
            case "friend_request.accepted":
                self = .friendRequestAccepted(
                    requestId: try container.decode(FriendRequest.ID.self, forKey: .requestId),
                    friendUserId: try container.decode(User.ID.self, forKey: .friendUserId))
            default:
                self = .unknown(type: type, fields: try decoder.singleValueContainer().decode([String: JSONValue].self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            if case .unknown(let type, var fields) = self {
                fields["type"] = .string(type)
                var container = encoder.singleValueContainer()
                try container.encode(fields)
                return
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            switch self {
            case .messageNew(let conversationId, let messageId, let seq, let senderId):
                try container.encode(conversationId, forKey: .conversationId)
                try container.encode(messageId, forKey: .messageId)
                try container.encode(seq, forKey: .seq)
                try container.encode(senderId, forKey: .senderId)
            case .friendRequestReceived(let requestId, let fromUserId):
                try container.encode(requestId, forKey: .requestId)
                try container.encode(fromUserId, forKey: .fromUserId)
            case .friendRequestAccepted(let requestId, let friendUserId):
                try container.encode(requestId, forKey: .requestId)
                try container.encode(friendUserId, forKey: .friendUserId)
            case .unknown:
                break
            }
        }
    }
}
