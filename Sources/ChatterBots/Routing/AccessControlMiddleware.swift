/// Lets only listed accounts through; everyone else gets a polite refusal, or silence.
///
/// ```swift
/// router.use(AccessControlMiddleware(allowing: [.username("ana"), .userId("01J9ZC…")]))
/// router.use(AccessControlMiddleware(allowing: [.username("ana")], refusal: .silence))
/// ```
///
/// User ids are checked first and cost nothing. A username is resolved through the bot's friends
/// (`context.service.friends()`, a look-up made only when the sender's id is not listed and usernames are), and
/// compared without case; a sender who is not a friend has no known username and is refused.
public struct AccessControlMiddleware: MessageMiddleware {
    /// An account on the allowlist.
    public enum Account: Hashable, Sendable {
        /// An account by id: checked without any look-up.
        case userId(User.ID)
        /// An account by handle, compared without case; resolved through the bot's friends.
        case username(String)
    }

    /// What a sender who is not on the list gets.
    public enum Refusal: Hashable, Sendable {
        /// This text, as a reply.
        case reply(String)
        /// Nothing: the bot looks absent.
        case silence
    }

    /// Who may talk to the bot.
    public var allowed: Set<Account>
    /// What everyone else gets.
    public var refusal: Refusal

    /// A middleware that lets `allowed` through and answers anyone else with `refusal`.
    public init(
        allowing allowed: Set<Account>,
        refusal: Refusal = .reply("Sorry, I only talk with people on my list. Ask my owner to add you.")
    ) {
        self.allowed = allowed
        self.refusal = refusal
    }

    /// Passes the message on when the sender is allowed; refuses it otherwise (stopping the chain).
    public func handle(
        _ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome
    ) async throws -> RoutingOutcome {
        guard try await isAllowed(message.senderId, context: message.context) else {
            message.logger.notice("access refused", ["sender": message.senderId.rawValue])
            if case .reply(let text) = refusal { try await message.reply(text) }
            return .stopped("access refused")
        }
        return try await next(message)
    }

    private func isAllowed(_ sender: User.ID, context: any BotContext) async throws -> Bool {
        if allowed.contains(.userId(sender)) { return true }
        let usernames = Set(allowed.compactMap { account -> String? in
            if case .username(let name) = account { name.lowercased() } else { nil }
        })
        guard !usernames.isEmpty else { return false }
        guard let friend = try await context.service.friends().first(where: { $0.user.id == sender }) else { return false }
        return usernames.contains(friend.user.username.lowercased())
    }
}
