import ChatterBots

/// Fills in the auto-responder's templates (rule replies, the quiet-hours reply, the away message) for the sender
/// of a message: `{name}` and `{username}` from the sender's profile, looked up only when the template needs it
/// (`options.unknownName` when the bot cannot see it), `{text}` and the captures.
struct AutoReplyRenderer: Sendable {
    /// What `{name}` becomes for someone whose profile the bot cannot see.
    let unknownName: String
    let profiles: UserProfileCache

    /// `template` filled in for the sender of `message`, with the route's `captures` (`{0}`, `{1}`…).
    func render(_ template: MessageTemplate, for message: RoutedMessage, captures: [String] = []) async throws -> String {
        var values = MessageTemplate.Values(name: unknownName, text: message.text, captures: captures)
        let placeholders = template.placeholders
        if placeholders.contains(.name) || placeholders.contains(.username),
           let user = try await profiles.user(message.senderId, context: message.context) {
            values.name = user.displayName
            values.username = user.username
        }
        return template.render(values)
    }
}
