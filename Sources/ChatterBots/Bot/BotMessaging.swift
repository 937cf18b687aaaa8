/// What a handler sends: part of its unit of work. A send is written to the durable outbox with the handler's
/// other changes when the handler returns (discarded if it throws) and goes out after; its `clientMessageId` is
/// derived from what is being handled, so a handler run again after a crash sends nothing twice.
public protocol BotMessaging: Sendable {
    /// Sends `content` to a conversation: queues it in the handler's unit of work and returns at once. The
    /// frame goes out when the work is committed; `OutgoingMessage.acknowledged()` waits for the service's ack.
    func send(_ content: MessageContent, to conversationId: Conversation.ID) async throws -> OutgoingMessage

    /// Sends `content` to the conversation of `message`. Like every send of a handler run, its
    /// `clientMessageId` is derived from the bot, the event being handled and the index of the send, so
    /// re-handling `message` never replies twice. (To quote the message, set `content.replyToId`.)
    func reply(to message: IncomingMessage, with content: MessageContent) async throws -> OutgoingMessage

    /// Shows or hides "typing…" in a conversation (best effort, at once: it is not part of the unit of work).
    /// While shown, the runtime repeats `typing.start` every 3 s; it stops when a reply there goes out (when the
    /// handler returns, or when it waits for a reply's `acknowledged()`), or when the bot calls this with false.
    func setTyping(_ isTyping: Bool, in conversationId: Conversation.ID) async throws

    /// Sends a photo, voice note, video or document: uploads `attachment` at once (`POST /media`), then sends the
    /// media message like any send, with the handler's unit of work, its type following the file's. A resend after a
    /// reconnect or a restart reuses the same upload, so the message arrives once.
    func sendMedia(_ attachment: MediaAttachment, caption: String?, to conversationId: Conversation.ID) async throws -> OutgoingMessage

    /// Changes a message that exists: edits or deletes one of the bot's own, or adds or removes the bot's
    /// reaction. Like a send, it is stored with the handler's unit of work and carried out after it, retried until
    /// the service answers: a handler that throws changes nothing, and running it again changes nothing twice.
    /// A change the service refuses for good (not the bot's message, no such message) is logged and dropped.
    func change(_ change: MessageChange, of messageId: Message.ID, in conversationId: Conversation.ID) async throws
}

extension BotMessaging {
    /// Sends a text message to a conversation.
    @discardableResult
    public func send(_ text: String, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        try await send(.text(text), to: conversationId)
    }

    /// Replies with text in the conversation of `message`; with `quoting`, the reply quotes it.
    @discardableResult
    public func reply(to message: IncomingMessage, _ text: String, quoting: Bool = false) async throws -> OutgoingMessage {
        try await reply(to: message, with: .text(text, replyingTo: quoting ? message.id : nil))
    }

    /// Sends `attachment` to the conversation of `message` (see ``sendMedia(_:caption:to:)``).
    @discardableResult
    public func replyMedia(to message: IncomingMessage, _ attachment: MediaAttachment, caption: String? = nil) async throws -> OutgoingMessage {
        try await sendMedia(attachment, caption: caption, to: message.conversationId)
    }

    /// Replaces the text of one of the bot's own messages (see ``change(_:of:in:)``).
    public func edit(_ messageId: Message.ID, in conversationId: Conversation.ID, to body: String) async throws {
        try await change(.edit(body: body), of: messageId, in: conversationId)
    }

    /// Deletes one of the bot's own messages for everyone (see ``change(_:of:in:)``).
    public func delete(_ messageId: Message.ID, in conversationId: Conversation.ID) async throws {
        try await change(.delete, of: messageId, in: conversationId)
    }

    /// Adds the bot's reaction `emoji` to `message` (see ``change(_:of:in:)``).
    public func react(_ emoji: String, to message: IncomingMessage) async throws {
        try await change(.addReaction(emoji), of: message.id, in: message.conversationId)
    }

    /// Adds the bot's reaction `emoji` to a message (see ``change(_:of:in:)``).
    public func react(_ emoji: String, to messageId: Message.ID, in conversationId: Conversation.ID) async throws {
        try await change(.addReaction(emoji), of: messageId, in: conversationId)
    }

    /// Sends `attachment` without a caption (see ``sendMedia(_:caption:to:)``).
    @discardableResult
    public func sendMedia(_ attachment: MediaAttachment, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        try await sendMedia(attachment, caption: nil, to: conversationId)
    }

    /// Removes the bot's reaction `emoji` from a message (see ``change(_:of:in:)``).
    public func removeReaction(_ emoji: String, from messageId: Message.ID, in conversationId: Conversation.ID) async throws {
        try await change(.removeReaction(emoji), of: messageId, in: conversationId)
    }
}
