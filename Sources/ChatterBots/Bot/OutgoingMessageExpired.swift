import Foundation

/// A message the runtime failed for good because it stayed unacknowledged past the service's idempotency window.
///
/// The service turns a resent `clientMessageId` into the same message only for 24 hours after it first saw it
/// (`chatter-api.md`). An outbox entry first sent longer ago than that may already exist on the service with its
/// ack lost, and a resend could then create a second copy; so the runtime does not send it again and fails it with
/// this error instead. The window counts from the first send, not from the enqueue: a message queued while the bot
/// was offline for days is still sent once it can be. Send the content again (it gets a new `clientMessageId`) if
/// it still matters.
public struct OutgoingMessageExpired: Error, Sendable, Equatable, CustomStringConvertible {
    /// The idempotency key of the message that was not sent again.
    public var clientMessageId: ClientMessageID
    /// When the message entered the outbox.
    public var enqueuedAt: Date
    /// When the message first went out: the window counts from here.
    public var firstAttemptAt: Date
    /// How long the service keeps a `clientMessageId`'s message: the time after the first send past which a resend
    /// is not safe.
    public var window: Duration

    /// The outcome for the message `clientMessageId`, enqueued at `enqueuedAt` and first sent at `firstAttemptAt`,
    /// past `window`.
    public init(clientMessageId: ClientMessageID, enqueuedAt: Date, firstAttemptAt: Date, window: Duration) {
        self.clientMessageId = clientMessageId
        self.enqueuedAt = enqueuedAt
        self.firstAttemptAt = firstAttemptAt
        self.window = window
    }

    /// What happened and what to do, for logs and replies.
    public var description: String {
        "message \(clientMessageId) was not sent again: it was first sent at \(Timestamp(firstAttemptAt)), longer ago "
            + "than the service's \(window.components.seconds / 3600) h idempotency window, and is still unacknowledged, "
            + "so a resend could duplicate it; send it again if it still matters"
    }
}
