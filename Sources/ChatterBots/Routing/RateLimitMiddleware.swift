import Foundation

/// Limits how often each sender gets through: a token bucket per sender allows bursts of up to `messages`
/// and refills at `messages` per `window`, measured with `context.now`. The first message over the limit
/// gets `exceededReply` (with the wait); later ones are dropped in silence until a message gets through
/// again, so a flood does not make the bot flood back.
///
/// ```swift
/// router.use(RateLimitMiddleware(messages: 5, per: .seconds(60)))  // bursts of 5, then one every 12 s
/// ```
///
/// The buckets live in `BotContext` state (`StateScope.user(sender)`, key `chatterbots.rate-limit.<name>`),
/// not in memory: a bucket update commits in the same transaction as the message's handling, so a message
/// handled again after a crash is not counted twice; limits hold across restarts; and the router stays a
/// plain value with no shared mutable state. The cost is one small state write per message. A sender
/// writing in two conversations at the same instant may get one extra message through, since the runtime
/// handles conversations concurrently.
public struct RateLimitMiddleware: MessageMiddleware {
    /// Separates the state of several limits (e.g. one for all messages, one for an expensive command).
    public var name: String
    /// The burst size, and how many messages a full `window` allows.
    public var messages: Int
    /// The time in which `messages` messages are allowed; the bucket refills one message every `window / messages`.
    public var window: Duration
    /// What the first refused message gets, given the wait until the next is allowed; nil stays silent.
    public var exceededReply: (@Sendable (_ retryAfter: Duration) -> String)?

    /// - Parameters:
    ///   - messages: at least 1.
    ///   - window: a zero or negative window disables the limit.
    public init(
        messages: Int, per window: Duration, name: String = "messages",
        exceededReply: (@Sendable (_ retryAfter: Duration) -> String)? = RateLimitMiddleware.defaultReply
    ) {
        self.name = name
        self.messages = max(messages, 1)
        self.window = window
        self.exceededReply = exceededReply
    }

    /// "You are sending messages faster than I can answer. Please wait 8 s and try again."
    public static let defaultReply: @Sendable (Duration) -> String = { retryAfter in
        let seconds = max(1, Int(TokenBucket.seconds(retryAfter).rounded(.up)))
        return "You are sending messages faster than I can answer. Please wait \(seconds) s and try again."
    }

    struct SenderState: Codable, Hashable, Sendable {
        var bucket: TokenBucket
        /// Whether the sender was told since the last message that got through.
        var told: Bool
    }

    /// Passes the message on while the sender has a message left; refuses it (telling them once) otherwise.
    public func handle(
        _ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome
    ) async throws -> RoutingOutcome {
        let context = message.context
        let now = context.now
        let key = StateKey<SenderState>("chatterbots.rate-limit.\(name)")
        let scope = StateScope.user(message.senderId)
        var state = try await context.state.value(key, in: scope) ?? SenderState(bucket: TokenBucket(capacity: messages, at: now), told: false)
        let retryAfter = state.bucket.take(at: now, capacity: messages, refillInterval: window / messages)
        guard let retryAfter else {
            state.told = false
            try await context.state.set(state, for: key, in: scope)
            return try await next(message)
        }
        message.logger.notice("rate limit exceeded", [
            "sender": message.senderId.rawValue, "limit": name, "retryAfterMs": String(Int((TokenBucket.seconds(retryAfter) * 1000).rounded(.up))),
        ])
        if !state.told, let exceededReply {
            try await message.reply(exceededReply(retryAfter))
            state.told = true
        }
        try await context.state.set(state, for: key, in: scope)
        return .stopped("rate limited")
    }
}
