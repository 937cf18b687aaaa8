import ChatterBots

/// The auto-responder's quiet hours, around everything else it does: in quiet hours nothing reaches the away
/// message or the rules, and each person gets the quiet-hours reply (when there is one) once per night.
struct QuietHoursMiddleware: MessageMiddleware {
    let quietHours: QuietHours
    let renderer: AutoReplyRenderer

    /// The quiet period (its local start date) in which a person last got the quiet-hours reply.
    static let repliedPeriod = StateKey<String>("autoResponder.quietReplyPeriod")

    func handle(_ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome {
        guard let night = quietHours.period(containing: message.context.now) else { return try await next(message) }
        let person = StateScope.user(message.senderId)
        guard let reply = quietHours.reply,
              try await message.context.state.value(Self.repliedPeriod, in: person) != night.description else {
            message.logger.debug("quiet hours: not answering")
            return .stopped("quiet hours")
        }
        try await message.reply(try await renderer.render(reply, for: message))
        try await message.context.state.set(night.description, for: Self.repliedPeriod, in: person)
        return .stopped("quiet hours")
    }
}
