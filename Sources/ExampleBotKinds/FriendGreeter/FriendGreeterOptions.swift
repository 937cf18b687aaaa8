import ChatterBots

/// The `options` of a `friend-greeter` bot in `bots.json`:
///
/// ```json
/// {"acceptFriendRequests": {"allowlist": ["alice", "ben_tan"]},
///  "welcome": "Hi {name}, thanks for adding me!", "onlineGreeting": "Good to see you, {name}!",
///  "timeZone": "Europe/Lisbon"}
/// ```
/// - `acceptFriendRequests`: `"everyone"`, `"nobody"`, or `{"allowlist": [usernames]}` (compared ignoring
///   case); requests it does not accept are declined. Omitted: the bot's `friendRequests` setting in
///   `bots.json` decides.
/// - `welcome` (default `"Hi {name}, thanks for adding me!"`): sent in a direct conversation to each new friend.
/// - `onlineGreeting` (default `"Good to see you, {name}!"`; `null` for none): sent to a friend who comes
///   online, at most once a day.
/// - `timeZone` (IANA name, default `"UTC"`): where a day begins and ends for "once a day".
///
/// Both texts may use `{name}` (display name) and `{username}`.
public struct FriendGreeterOptions: Sendable, Equatable {
    public var acceptFriendRequests: FriendRequestPolicy?
    public var welcome: MessageTemplate
    public var onlineGreeting: MessageTemplate?
    public var timeZone: TimeZone

    public static let standardWelcome = "Hi {name}, thanks for adding me!"
    public static let standardOnlineGreeting = "Good to see you, {name}!"

    public init(
        acceptFriendRequests: FriendRequestPolicy? = nil, welcome: MessageTemplate, onlineGreeting: MessageTemplate?,
        timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .gmt
    ) {
        self.acceptFriendRequests = acceptFriendRequests
        self.welcome = welcome
        self.onlineGreeting = onlineGreeting
        self.timeZone = timeZone
    }
}

extension FriendGreeterOptions: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case acceptFriendRequests, welcome, onlineGreeting, timeZone
    }

    private enum AllowlistKeys: String, CodingKey, CaseIterable {
        case allowlist
    }

    public init(from decoder: any Decoder) throws {
        try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        acceptFriendRequests = try Self.decodePolicy(in: container)
        let placeholders: Set<MessageTemplate.Placeholder> = [.name, .username]
        welcome = try container.decodeTemplateIfPresent(forKey: .welcome, allowing: placeholders)
            ?? MessageTemplate(Self.standardWelcome)
        if container.contains(.onlineGreeting) {
            onlineGreeting = try container.decodeTemplateIfPresent(forKey: .onlineGreeting, allowing: placeholders)
        } else {
            onlineGreeting = try MessageTemplate(Self.standardOnlineGreeting)
        }
        timeZone = container.contains(.timeZone) ? try container.decodeTimeZone(forKey: .timeZone) : TimeZone(identifier: "UTC") ?? .gmt
    }

    private static func decodePolicy(in container: KeyedDecodingContainer<CodingKeys>) throws -> FriendRequestPolicy? {
        guard container.contains(.acceptFriendRequests) else { return nil }
        let explanation = "use \"everyone\", \"nobody\" or {\"allowlist\": [\"username\", …]}"
        if let word = try? container.decode(String.self, forKey: .acceptFriendRequests) {
            switch word {
            case "everyone": return .everyone
            case "nobody": return .nobody
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .acceptFriendRequests, in: container, debugDescription: "\"\(word)\" is not a policy; \(explanation)")
            }
        }
        guard let object = try? container.nestedContainer(keyedBy: AllowlistKeys.self, forKey: .acceptFriendRequests) else {
            throw DecodingError.dataCorruptedError(forKey: .acceptFriendRequests, in: container, debugDescription: explanation)
        }
        try OptionsDecoding.rejectUnknownKeys(
            in: try container.superDecoder(forKey: .acceptFriendRequests), known: AllowlistKeys.allCases.map(\.rawValue))
        let names = try object.decode([String].self, forKey: .allowlist)
        if let bad = names.first(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .allowlist, in: object, debugDescription: "\"\(bad)\" is not a username")
        }
        return .allowlist(Set(names))
    }
}
