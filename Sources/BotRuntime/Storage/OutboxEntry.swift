import ChatterBots
import Foundation

/// A message the bot has committed to send, from the moment it is enqueued until the service acknowledges
/// it (or refuses it for good).
///
/// Entries are resent, oldest first and with their original `clientMessageId`, after every reconnect and
/// restart until acknowledged; the service turns every resend into the same single message.
///
/// Copies share their fields until one of them changes: the sender's queues and in-flight table hold entries by
/// value, and a copy is then one reference instead of a dozen fields.
package struct OutboxEntry: Hashable, Sendable, Identifiable {
    private var storage: Storage

    /// The idempotency key, unique in the outbox.
    public var id: ClientMessageID { storage.fields.message.clientMessageId }
    /// The order of enqueueing, lower is older: the entry's row id in the outbox (acks find the row by it).
    public var sequence: Int64 {
        get { storage.fields.sequence }
        set { update { $0.sequence = newValue } }
    }
    /// The `message.send` payload, exactly as it is (re)sent.
    public var message: MessageSend {
        get { storage.fields.message }
        set {
            update {
                $0.message = newValue
                $0.encodedMessage = OutboxPayload.json(newValue)
            }
        }
    }
    /// `message` as JSON text, exactly as stored in the outbox and written in each `message.send` frame: encoded
    /// once when the send is queued (or taken as stored), not again for every (re)send.
    var encodedMessage: String { storage.fields.encodedMessage }
    public var createdAt: Date {
        get { storage.fields.createdAt }
        set { update { $0.createdAt = newValue } }
    }
    public var status: Status {
        get { storage.fields.status }
        set { update { $0.status = newValue } }
    }
    /// How many sends were recorded with ``BotStore/recordAttempts(_:error:)``.
    public var attempts: Int {
        get { storage.fields.attempts }
        set { update { $0.attempts = newValue } }
    }
    public var lastAttemptAt: Date? {
        get { storage.fields.lastAttemptAt }
        set { update { $0.lastAttemptAt = newValue } }
    }
    /// When the entry first went out (recorded before its frame is written); nil while it was never sent. The
    /// service's idempotency window counts from here: an entry never sent cannot have created a message.
    public var firstAttemptAt: Date? {
        get { storage.fields.firstAttemptAt }
        set { update { $0.firstAttemptAt = newValue } }
    }
    /// The error code of the latest failed attempt (transient, or the permanent one of a failed entry).
    public var lastError: ChatterErrorCode? {
        get { storage.fields.lastError }
        set { update { $0.lastError = newValue } }
    }
    /// Set once acknowledged.
    public var acknowledgement: Acknowledgement? {
        get { storage.fields.acknowledgement }
        set { update { $0.acknowledgement = newValue } }
    }
    /// What produced the send.
    public var origin: Origin {
        get { storage.fields.origin }
        set { update { $0.origin = newValue } }
    }
    /// The trace that produced the send, for logs and metrics.
    public var traceID: String? {
        get { storage.fields.traceID }
        set { update { $0.traceID = newValue } }
    }

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
        storage = Storage(Fields(
            sequence: sequence, message: message, encodedMessage: encodedMessage, createdAt: createdAt, status: status,
            attempts: attempts, lastAttemptAt: lastAttemptAt, firstAttemptAt: firstAttemptAt, lastError: lastError,
            acknowledgement: acknowledgement, origin: origin, traceID: traceID))
    }

    /// The stored properties, in a box that copies share. It never changes: a change makes a new box.
    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private struct Fields: Hashable, Sendable {
        var sequence: Int64
        var message: MessageSend
        var encodedMessage: String
        var createdAt: Date
        var status: Status
        var attempts: Int
        var lastAttemptAt: Date?
        var firstAttemptAt: Date?
        var lastError: ChatterErrorCode?
        var acknowledgement: Acknowledgement?
        var origin: Origin
        var traceID: String?
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }

    public static func == (lhs: OutboxEntry, rhs: OutboxEntry) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }

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
