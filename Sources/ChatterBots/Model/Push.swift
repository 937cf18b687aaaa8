/// Where a device's push token is valid: debug builds use `sandbox`, TestFlight and App Store `production`.
public enum PushEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    /// APNs' development environment: debug builds.
    case sandbox
    /// APNs' production environment: TestFlight and App Store builds.
    case production
}

/// The APNs key of a workspace (`PUT /developer/apns`).
public struct APNsKeyBody: Hashable, Sendable, Codable {
    /// The Apple developer team.
    public var teamId: String
    /// The id of the APNs auth key (`.p8`).
    public var keyId: String
    /// The app's bundle id, the pushes' topic.
    public var bundleId: String
    /// The contents of the `.p8` file.
    public var privateKey: String

    /// A key to upload with `configureAPNs`.
    public init(teamId: String, keyId: String, bundleId: String, privateKey: String) {
        self.teamId = teamId
        self.keyId = keyId
        self.bundleId = bundleId
        self.privateKey = privateKey
    }
}

/// The workspace's APNs configuration as `GET /developer/apns` reports it (never the private key).
public struct APNsConfiguration: Hashable, Sendable, Codable {
    /// Whether the workspace has an APNs key; without one nobody gets pushes.
    public var configured: Bool
    /// The team of the configured key; nil when none is configured.
    public var teamId: String?
    /// The id of the configured key; nil when none is configured.
    public var keyId: String?
    /// The bundle id pushes go to; nil when none is configured.
    public var bundleId: String?

    /// A configuration as `GET /developer/apns` reports it.
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
    /// How many devices APNs accepted the push for.
    public var sent: Int
    /// How many devices APNs refused it for; `results` says why.
    public var failed: Int
    /// Each device's outcome.
    public var results: [Result]

    /// A report as the service returns it.
    public init(sent: Int, failed: Int, results: [Result]) {
        self.sent = sent
        self.failed = failed
        self.results = results
    }

    /// One device's outcome; `reason` is the APNs error (e.g. `BadDeviceToken`) when it failed.
    public struct Result: Hashable, Sendable, Codable {
        /// The device the push was for.
        public var deviceId: Device.ID
        /// Sent or failed.
        public var status: Status
        /// Why APNs refused it (e.g. `BadDeviceToken`); absent when it was sent.
        public var reason: String?

        /// A device's outcome as the service reports it.
        public init(deviceId: Device.ID, status: Status, reason: String? = nil) {
            self.deviceId = deviceId
            self.status = status
            self.reason = reason
        }
    }

    /// The outcome of one push. Open: an unknown status still decodes.
    public struct Status: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral {
        /// The status as the API writes it.
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        /// APNs accepted the push.
        public static let sent: Status = "sent"
        /// APNs refused the push; see `reason`.
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
    /// What the device shows: banner, sound, badge, grouping.
    public var aps: APS
    /// What the push is about, for the app to open the right screen.
    public var chatter: Event

    /// A payload as the service sends it (the sandbox builds these).
    public init(aps: APS, chatter: Event) {
        self.aps = aps
        self.chatter = chatter
    }

    /// Apple's `aps` dictionary. Absent keys are omitted, as APNs expects.
    public struct APS: Hashable, Sendable, Codable {
        /// The banner.
        public var alert: Alert
        /// The sound to play (`default`); absent for a silent push.
        public var sound: String?
        /// Total unread messages across the user's non-muted conversations.
        public var badge: Int?
        /// Groups notifications per conversation (the conversation id).
        public var threadId: String?
        /// 1 lets a notification service extension modify the push.
        public var mutableContent: Int?

        /// An `aps` dictionary; absent keys are left out of the JSON.
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
        /// The banner's first line, e.g. the sender's name.
        public var title: String
        /// The banner's text, e.g. the message.
        public var body: String

        /// A banner.
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

        /// The `type` of the `chatter` object, e.g. `message.new`.
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
                    seq: try container.decodeSequenceNumber(forKey: .seq),
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
