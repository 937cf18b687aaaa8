import ChatterBots
import Foundation

/// Around one auto-reply rule's route: once the rule answered a person, it stays silent for them for `duration`.
/// A rule in its cooldown stops the routing (`.stopped("cooling down")`), so the bot says nothing rather than
/// let a later rule answer instead.
///
/// The cooldowns of a person are one map in their state, from `key` to the end of its cooldown: each rule has
/// its id as key, or every rule shares `*` when any answer silences them all (`cooldownScope` `"global"`).
/// Expired entries are dropped whenever one is written.
struct CooldownMiddleware: MessageMiddleware {
    /// The id of the rule, for logs.
    let rule: String
    /// The entry this rule reads and sets: its id, or `*` for the global scope.
    let key: String
    /// How long the rule stays silent for a person after answering them; zero never silences it.
    let duration: Duration

    /// Until when each key stays silent for a person.
    static let cooldowns = StateKey<[String: Date]>("autoResponder.cooldownUntil")
    /// The key every rule shares in the global scope.
    static let globalKey = "*"

    func handle(_ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome {
        let context = message.context
        let now = context.now
        let person = StateScope.user(message.senderId)
        var cooldowns = (try? await context.state.value(Self.cooldowns, in: person)) ?? [:]
        if let until = cooldowns[key], now < until {
            message.logger.debug("cooling down", ["rule": rule, "until": Timestamp(until).iso8601])
            return .stopped("cooling down")
        }
        let outcome = try await next(message)
        cooldowns = cooldowns.filter { $0.value > now }
        if duration > .zero { cooldowns[key] = Timestamp(now).advanced(by: duration).date }
        if cooldowns.isEmpty {
            try await context.state.remove(Self.cooldowns, in: person)
        } else {
            try await context.state.set(cooldowns, for: Self.cooldowns, in: person)
        }
        return outcome
    }
}
