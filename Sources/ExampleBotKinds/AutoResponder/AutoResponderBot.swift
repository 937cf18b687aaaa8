import ChatterBots

/// The `auto-responder` bot kind: answers messages by rules (keywords or patterns to a reply with the
/// sender's name), first matching rule wins, with a per-person cooldown, quiet hours and an away message.
/// Configured by `AutoResponderOptions`.
///
/// For each message from someone else, in this order:
/// 1. In quiet hours: nothing, or the quiet-hours reply once per person per night. Nothing else is said.
/// 2. Away mode on and this person not yet told in this away period: the away message, and nothing else.
/// 3. The first rule that matches answers, unless that rule (or, with `cooldownScope` `"global"`, any rule)
///    answered this person within its cooldown; then the bot stays silent rather than try a later rule.
///
/// Cooldowns and who has been told are kept in the bot's state per person, so they survive restarts.
/// The bot never answers its own messages (the runtime does not deliver them; the bot checks again).
public struct AutoResponderBot: ConfigurableBot {
    public static let kind = "auto-responder"

    public let options: AutoResponderOptions
    private let profiles = UserProfileCache()

    /// Until when each rule (by id; `*` for the global scope) stays silent for a person.
    static let cooldowns = StateKey<[String: Date]>("autoResponder.cooldownUntil")
    /// The quiet period (its local start date) in which a person last got the quiet-hours reply.
    static let quietReplyPeriod = StateKey<String>("autoResponder.quietReplyPeriod")
    /// The away period in which a person last got the away message.
    static let awayPeriod = StateKey<String>("autoResponder.awayPeriod")

    public init(options: AutoResponderOptions) {
        self.options = options
    }

    /// The bot with `options` decoded from `bots.json`.
    public init(options: BotOptions) throws(BotOptionsError) {
        self.init(options: try OptionsDecoding.decode(AutoResponderOptions.self, from: options, kind: Self.kind))
    }

    public init(configuration: BotConfiguration) throws(BotOptionsError) {
        try self.init(options: configuration.options)
    }

    public func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        guard message.senderId != context.bot.userId, !message.isDeleted,
              !message.text.allSatisfy(\.isWhitespace) else { return }
        let now = context.now
        let person = StateScope.user(message.senderId)
        let logger = context.logger.with(["user": message.senderId.rawValue, "message": message.id.rawValue])

        if let quietHours = options.quietHours, let night = quietHours.period(containing: now) {
            guard let reply = quietHours.reply,
                  try await context.state.value(Self.quietReplyPeriod, in: person) != night.description else {
                logger.debug("quiet hours: not answering")
                return
            }
            try await context.reply(to: message, try await render(reply, for: message, context: context))
            try await context.state.set(night.description, for: Self.quietReplyPeriod, in: person)
            return
        }

        if let away = options.away, away.isActive(at: now),
           try await context.state.value(Self.awayPeriod, in: person) != away.periodIdentifier {
            try await context.reply(to: message, try await render(away.message, for: message, context: context))
            try await context.state.set(away.periodIdentifier, for: Self.awayPeriod, in: person)
            return
        }

        guard let (rule, captures) = firstMatch(for: message.text) else { return }
        let cooldownKey = options.cooldownScope == .global ? "*" : rule.id
        var cooldowns = (try? await context.state.value(Self.cooldowns, in: person)) ?? [:]
        if let until = cooldowns[cooldownKey], now < until {
            logger.debug("cooling down", ["rule": rule.id, "until": Timestamp(until).iso8601])
            return
        }
        try await context.reply(to: message, try await render(rule.reply, for: message, captures: captures, context: context))
        cooldowns = cooldowns.filter { $0.value > now }
        let cooldown = options.cooldown(after: rule)
        if cooldown > .zero { cooldowns[cooldownKey] = Timestamp(now).advanced(by: cooldown).date }
        if cooldowns.isEmpty {
            try await context.state.remove(Self.cooldowns, in: person)
        } else {
            try await context.state.set(cooldowns, for: Self.cooldowns, in: person)
        }
        logger.debug("answered", ["rule": rule.id])
    }

    public func onFriendAdded(_ friend: Friend, context: any BotContext) async throws {
        try await profiles.remember(friend.user, context: context)
    }

    /// The first rule matching `text`, with the matched text and capture groups.
    func firstMatch(for text: String) -> (AutoReplyRule, [String])? {
        for rule in options.rules {
            if let captures = rule.match(text) { return (rule, captures) }
        }
        return nil
    }

    /// `template` filled in for the sender of `message`; the profile is looked up only when the template needs it.
    private func render(
        _ template: MessageTemplate, for message: IncomingMessage, captures: [String] = [], context: any BotContext
    ) async throws -> String {
        var values = MessageTemplate.Values(name: options.unknownName, text: message.text, captures: captures)
        let placeholders = template.placeholders
        if placeholders.contains(.name) || placeholders.contains(.username),
           let user = try await profiles.user(message.senderId, context: context) {
            values.name = user.displayName
            values.username = user.username
        }
        return template.render(values)
    }
}
