import ChatterBots

/// The `auto-responder` bot kind: answers messages by rules (keywords or patterns to a reply with the
/// sender's name), first matching rule wins, with a per-person cooldown, quiet hours and an away message.
/// Configured by `AutoResponderOptions`.
///
/// It is a `MessageRouter` built from the options: the rules are its routes, and what stands between a message
/// and the rules is middleware. For each message from someone else, in this order:
/// 1. In quiet hours (`QuietHoursMiddleware`): nothing, or the quiet-hours reply once per person per night.
///    Nothing else is said.
/// 2. Away mode on and this person not yet told in this away period (`AwayMessageMiddleware`): the away
///    message, and nothing else.
/// 3. The first rule that matches answers, unless that rule (or, with `cooldownScope` `"global"`, any rule)
///    answered this person within its cooldown; then the bot stays silent rather than try a later rule. Each
///    rule is a router of its own, included in order, with a `CooldownMiddleware` that runs only once its
///    route matched.
///
/// Cooldowns and who has been told are kept in the bot's state per person, so they survive restarts.
/// The bot never answers its own messages (the runtime does not deliver them; the bot checks again), deleted
/// or blank ones, or system messages.
public struct AutoResponderBot: ConfigurableBot {
    public static let kind = "auto-responder"

    public let options: AutoResponderOptions
    private let profiles = UserProfileCache()
    private let router: MessageRouter

    public init(options: AutoResponderOptions) {
        self.options = options
        router = Self.router(
            for: options, renderer: AutoReplyRenderer(unknownName: options.unknownName, profiles: profiles))
    }

    /// The bot with `options` decoded from `bots.json`.
    public init(options: BotOptions) throws(BotOptionsError) {
        self.init(options: try OptionsDecoding.decode(AutoResponderOptions.self, from: options, kind: Self.kind))
    }

    public init(configuration: BotConfiguration) throws(BotOptionsError) {
        try self.init(options: configuration.options)
    }

    public func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        try await router.route(message, context: context)
    }

    public func onFriendAdded(_ friend: Friend, context: any BotContext) async throws {
        try await profiles.remember(friend.user, context: context)
    }

    /// The router that answers for the bot: its middleware in the order listed on the type, then a router per
    /// rule, in the rules' order.
    static func router(for options: AutoResponderOptions, renderer: AutoReplyRenderer) -> MessageRouter {
        MessageRouter(helpCommand: nil) { router in
            router.unknownCommandReply = nil  // "/anything" is text for the rules, not a command
            router.use { message, next in
                guard message.senderId != message.context.bot.userId, !message.isDeleted,
                      !message.text.allSatisfy(\.isWhitespace) else { return .stopped("nothing to answer") }
                var message = message
                message.logger = message.logger.with(["user": message.senderId.rawValue, "message": message.id.rawValue])
                return try await next(message)
            }
            if let quietHours = options.quietHours { router.use(QuietHoursMiddleware(quietHours: quietHours, renderer: renderer)) }
            if let away = options.away { router.use(AwayMessageMiddleware(away: away, renderer: renderer)) }
            for rule in options.rules {
                router.include(MessageRouter(helpCommand: nil) { answering in
                    answering.use(CooldownMiddleware(
                        rule: rule.id, key: options.cooldownScope == .global ? CooldownMiddleware.globalKey : rule.id,
                        duration: options.cooldown(after: rule)))
                    rule.addRoute(to: &answering) { message, captures in
                        try await message.reply(try await renderer.render(rule.reply, for: message, captures: captures))
                        message.logger.debug("answered", ["rule": rule.id])
                    }
                })
            }
        }
    }
}
