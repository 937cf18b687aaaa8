import ChatterBots

/// Whether a conversation is direct or a group, cached in its state: a conversation's kind never changes,
/// so it is looked up once, not once per message.
struct ConversationKindCache: Sendable {
    static let key = StateKey<String>("conversationKind")

    /// True for a group. When the conversation cannot be looked up, it is taken for a group (the cautious
    /// choice: a bot answers less there) and not cached, so the next message asks again.
    func isGroup(_ conversationId: Conversation.ID, context: any BotContext) async throws -> Bool {
        if let kind = try? await context.state.value(ConversationKindCache.key, in: .conversation(conversationId)) {
            return Conversation.Kind(rawValue: kind) != .direct
        }
        let conversation: Conversation
        do {
            conversation = try await context.service.conversation(conversationId)
        } catch {
            context.logger.warning("could not look up a conversation", ["conversation": conversationId.rawValue, "error": "\(error)"])
            return true
        }
        try await remember(conversation, context: context)
        return conversation.kind != .direct
    }

    /// Stores the kind of a conversation an event carried.
    func remember(_ conversation: Conversation, context: any BotContext) async throws {
        try await context.state.set(conversation.kind.rawValue, for: ConversationKindCache.key, in: .conversation(conversation.id))
    }
}
