import ChatterBots
import Foundation

/// A message the bot has committed to send, from the moment it is enqueued until the service acknowledges
/// it (or refuses it for good).
///
/// Entries are resent, oldest first and with their original `clientMessageId`, after every reconnect and
/// restart until acknowledged; the service turns every resend into the same single message.
public struct OutboxEntry: Hashable, Sendable, Identifiable {
    /// The idempotency key, unique in the outbox.
    public var id: ClientMessageID { message.clientMessageId }
    /// The order of enqueueing: lower is older.
    public var sequence: Int64
    /// The `message.send` payload, exactly as it is (re)sent.
    public var message: MessageSend {
        didSet { encodedMessage = OutboxPayload.json(message) }
    }
    /// `message` as JSON text, exactly as stored in the outbox and written in each `message.send` frame: encoded
    /// once when the send is queued (or taken as stored), not again for every (re)send.
    private(set) var encodedMessage: String
    public var createdAt: Date
    public var status: Status
    /// How many sends were recorded with ``BotStore/recordAttempts(_:error:)``.
    public var attempts: Int
    public var lastAttemptAt: Date?
    /// When the entry first went out (recorded before its frame is written); nil while it was never sent. The
    /// service's idempotency window counts from here: an entry never sent cannot have created a message.
    public var firstAttemptAt: Date?
    /// The error code of the latest failed attempt (transient, or the permanent one of a failed entry).
    public var lastError: ChatterErrorCode?
    /// Set once acknowledged.
    public var acknowledgement: Acknowledgement?
    /// What produced the send.
    public var origin: Origin
    /// The trace that produced the send, for logs and metrics.
    public var traceID: String?

    public init(
        sequence: Int64, message: MessageSend, createdAt: Date, status: Status, attempts: Int, lastAttemptAt: Date?,
        firstAttemptAt: Date? = nil, lastError: ChatterErrorCode?, acknowledgement: Acknowledgement?, origin: Origin,
        traceID: String?
    ) {
        self.init(
            sequence: sequence, message: message, encodedMessage: OutboxPayload.json(message), createdAt: createdAt,
            status: status, attempts: attempts, lastAttemptAt: lastAttemptAt, firstAttemptAt: firstAttemptAt,
            lastError: lastError, acknowledgement: acknowledgement, origin: origin, traceID: traceID)
    }

    /// An entry whose message is already encoded: `encodedMessage` is the JSON text of `message` (as stored).
    init(
        sequence: Int64, message: MessageSend, encodedMessage: String, createdAt: Date, status: Status, attempts: Int,
        lastAttemptAt: Date?, firstAttemptAt: Date? = nil, lastError: ChatterErrorCode?, acknowledgement: Acknowledgement?,
        origin: Origin, traceID: String?
    ) {
        self.sequence = sequence
        self.message = message
        self.encodedMessage = encodedMessage
        self.createdAt = createdAt
        self.status = status
        self.attempts = attempts
        self.lastAttemptAt = lastAttemptAt
        self.firstAttemptAt = firstAttemptAt
        self.lastError = lastError
        self.acknowledgement = acknowledgement
        self.origin = origin
        self.traceID = traceID
    }

    /// Where an entry is in its life.
    public enum Status: String, Hashable, Sendable {
        /// Not acknowledged yet: (re)send it.
        case pending
        /// The service created the message (see ``OutboxEntry/acknowledgement``).
        case acked
        /// The service refused it for good (`NOT_FRIENDS`, `NOT_FOUND`, `VALIDATION_FAILED`); never resent.
        case failed
    }

    /// The message the service created for an entry.
    public struct Acknowledgement: Hashable, Sendable {
        public var messageId: Message.ID
        public var seq: Int
        /// The message's `createdAt` on the service.
        public var createdAt: Timestamp
        /// When the store recorded the ack.
        public var ackedAt: Date

        public init(messageId: Message.ID, seq: Int, createdAt: Timestamp, ackedAt: Date) {
            self.messageId = messageId
            self.seq = seq
            self.createdAt = createdAt
            self.ackedAt = ackedAt
        }
    }

    /// What produced a send; the first two derive their clientMessageIds, so a re-run sends nothing twice.
    public enum Origin: Hashable, Sendable {
        /// A handler reacting to the incoming message `incoming`.
        case handler(incoming: Message.ID)
        /// An occurrence of a scheduled job.
        case schedule(job: ScheduledJob.ID, occurrence: Int)
        /// Bot code outside any handler, with a random clientMessageId.
        case direct

        /// The `origin_kind`, `origin_id` and `origin_occurrence` columns.
        var columns: (kind: String, id: String?, occurrence: Int?) {
            switch self {
            case .handler(let incoming): ("handler", incoming.rawValue, nil)
            case .schedule(let job, let occurrence): ("schedule", job.rawValue, occurrence)
            case .direct: ("direct", nil, nil)
            }
        }

        init?(kind: String, id: String?, occurrence: Int?) {
            switch (kind, id, occurrence) {
            case ("handler", let id?, _): self = .handler(incoming: Message.ID(id))
            case ("schedule", let id?, let occurrence?): self = .schedule(job: ScheduledJob.ID(id), occurrence: occurrence)
            case ("direct", _, _): self = .direct
            default: return nil
            }
        }
    }
}
