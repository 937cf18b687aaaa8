import Foundation

/// A message the runtime failed for good because it could not be sent within the service's idempotency window.
///
/// The service turns a resent `clientMessageId` into the same message only for 24 hours after it first saw it
/// (`chatter-api.md`). An outbox entry older than that may already exist on the service with its ack lost, and
/// a resend could then create a second copy; so the runtime does not send it and fails it with this error instead.
/// Send the content again (it gets a new `clientMessageId`) if it still matters.
public struct OutgoingMessageExpired: Error, Sendable, Equatable, CustomStringConvertible {
    /// The idempotency key of the message that was not sent.
    public var clientMessageId: ClientMessageID
    /// When the message entered the outbox.
    public var enqueuedAt: Date
    /// How long the service keeps a `clientMessageId`'s message: the age past which a resend is not safe.
    public var window: Duration

    /// The outcome for the message `clientMessageId`, enqueued at `enqueuedAt`, past `window`.
    public init(clientMessageId: ClientMessageID, enqueuedAt: Date, window: Duration) {
        self.clientMessageId = clientMessageId
        self.enqueuedAt = enqueuedAt
        self.window = window
    }

    /// What happened and what to do, for logs and replies.
    public var description: String {
        "message \(clientMessageId) was not sent: it was enqueued at \(Timestamp(enqueuedAt)) and is older than the "
            + "service's \(window.components.seconds / 3600) h idempotency window, so a resend could duplicate it; "
            + "send it again if it still matters"
    }
}
