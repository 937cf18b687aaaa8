import ChatterBots

/// The `friend-greeter` bot kind: decides friend requests by policy, welcomes each new friend in a direct
/// conversation, and greets a friend who comes online at most once a day. Configured by `FriendGreeterOptions`.
///
/// Online greetings follow live `presence` changes only, never the presence snapshot the bot receives after
/// each of its own (re)connects. The snapshot lists every friend who is online at that moment; treating it as
/// "they came online" would greet everyone again after every reconnect, so a flaky network or a server restart
/// (a reconnect storm) would spam every friend. The once-a-day limit, counted on the wall clock of the
/// option's `timeZone` and kept in the bot's state per friend, also absorbs a friend whose own connection flaps.
/// A welcome counts as that day's greeting.
public struct FriendGreeterBot: ConfigurableBot {
    public static let kind = "friend-greeter"

    public let options: FriendGreeterOptions
    private let profiles = UserProfileCache()

    /// The local date (in `options.timeZone`) on which a friend was last greeted.
    static let lastGreetedOn = StateKey<LocalDate>("greeter.lastGreetedOn")

    public init(options: FriendGreeterOptions) {
        self.options = options
    }

    /// The bot with `options` decoded from `bots.json`.
    public init(options: BotOptions) throws(BotOptionsError) {
        self.init(options: try OptionsDecoding.decode(FriendGreeterOptions.self, from: options, kind: Self.kind))
    }

    public init(configuration: BotConfiguration) throws(BotOptionsError) {
        try self.init(options: configuration.options)
    }

    public func onFriendRequest(_ request: FriendRequest, context: any BotContext) async throws -> FriendRequestDecision {
        guard let policy = options.acceptFriendRequests else { return .useConfiguredPolicy }
        let decision: FriendRequestDecision = policy.allows(username: request.fromUser.username) ? .accept : .decline
        context.logger.info("friend request", ["from": request.fromUser.username, "decision": "\(decision)"])
        return decision
    }

    public func onFriendAdded(_ friend: Friend, context: any BotContext) async throws {
        try await profiles.remember(friend.user, context: context)
        try await greet(friend.user, with: options.welcome, context: context)
    }

    public func onFriendRemoved(_ userId: User.ID, context: any BotContext) async throws {
        try await context.state.remove(UserProfileCache.key, in: .user(userId))
    }

    /// Deliberately greets nobody: see the type's documentation (reconnect storms must not spam).
    public func onPresenceSnapshot(_ presences: [Presence], context: any BotContext) async throws {}

    public func onPresenceChanged(_ presence: Presence, context: any BotContext) async throws {
        guard presence.isOnline, presence.userId != context.bot.userId, let greeting = options.onlineGreeting else { return }
        let today = options.timeZone.localDate(at: context.now)
        guard try await context.state.value(Self.lastGreetedOn, in: .user(presence.userId)) != today else { return }
        guard let friend = try await profiles.user(presence.userId, context: context) else {
            context.logger.debug("online, but not a friend the bot can see", ["user": presence.userId.rawValue])
            return
        }
        try await greet(friend, with: greeting, context: context)
    }

    /// Sends `template` to `user` in their direct conversation and records today as their last greeting.
    private func greet(_ user: User, with template: MessageTemplate, context: any BotContext) async throws {
        let conversation = try await context.service.directConversation(with: user.id)
        try await context.send(template.render(.init(name: user.displayName, username: user.username)), to: conversation.id)
        try await context.state.set(options.timeZone.localDate(at: context.now), for: Self.lastGreetedOn, in: .user(user.id))
    }
}
