import ChatterBots

/// The auto-responder's away mode, around its rules: while the away period is on, a person's first message gets
/// the away message instead of a rule's answer; their later ones go on to the rules.
struct AwayMessageMiddleware: MessageMiddleware {
    let away: AwayMessage
    let renderer: AutoReplyRenderer

    /// The away period in which a person last got the away message.
    static let toldPeriod = StateKey<String>("autoResponder.awayPeriod")

    func handle(_ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome {
        let person = StateScope.user(message.senderId)
        guard away.isActive(at: message.context.now),
              try await message.context.state.value(Self.toldPeriod, in: person) != away.periodIdentifier else {
            return try await next(message)
        }
        try await message.reply(try await renderer.render(away.message, for: message))
        try await message.context.state.set(away.periodIdentifier, for: Self.toldPeriod, in: person)
        return .stopped("away")
    }
}
