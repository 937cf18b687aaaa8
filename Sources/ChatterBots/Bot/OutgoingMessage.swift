/// A message the bot sent: already in the durable outbox, acknowledged by the service later.
///
/// Sends never block the handler on the network. The outbox resends the message with the same
/// `clientMessageId` after any reconnect or restart until the service acknowledges it, which makes
/// exactly one message.
public struct OutgoingMessage: Sendable {
    /// The idempotency key the message is sent and resent with.
    public let clientMessageId: ClientMessageID
    /// Where the message goes.
    public let conversationId: Conversation.ID
    /// What the message says.
    public let content: MessageContent
    private let acknowledgement: @Sendable () async throws -> MessageAck

    /// Made by a `BotContext`; `acknowledgement` waits for the `message.ack` of this message.
    public init(
        clientMessageId: ClientMessageID, conversationId: Conversation.ID, content: MessageContent,
        acknowledgement: @escaping @Sendable () async throws -> MessageAck
    ) {
        self.clientMessageId = clientMessageId
        self.conversationId = conversationId
        self.content = content
        self.acknowledgement = acknowledgement
    }

    /// Waits until the service acknowledged the message and returns its id, `seq` and time.
    ///
    /// Inside a handler this first commits the handler's work so far (state, sends, schedules), since the
    /// message cannot go out before it is durable; a later throw then no longer discards that part.
    /// Throws `ChatterAPIError` when the service refused the message for good (`NOT_FRIENDS`,
    /// `NOT_FOUND`, `VALIDATION_FAILED`), and `OutgoingMessageExpired` when it stayed unacknowledged 24 h after its
    /// first send (the service's idempotency window); transient failures are retried and do not throw.
    public func acknowledged() async throws -> MessageAck {
        try await acknowledgement()
    }
}
