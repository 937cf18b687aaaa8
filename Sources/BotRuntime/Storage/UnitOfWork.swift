import ChatterBots
import Foundation
import SQLite

/// Everything one handler run (or one job occurrence) changes, collected in memory and committed by
/// ``BotStore/commit(_:)`` in ONE transaction: the trigger marked done, the state and dialog writes, the
/// schedule changes and the outbox entries. A crash before the commit leaves no trace of the run; after it,
/// all of it is there.
///
/// Sends get clientMessageIds derived from the trigger and their index, so running the same trigger again
/// (after a crash, or a power loss that undid the commit) produces the same ids and the service creates no
/// second message. Reads through ``BotStore`` with `overlaying: unit` see the unit's own pending writes.
package struct UnitOfWork: Sendable {
    /// What the unit is the effect of.
    public enum Trigger: Hashable, Sendable {
        /// Handling an incoming message: the commit marks it handled (seen, cursor advanced, unparked).
        case message(Message)
        /// Running a claimed job occurrence: the commit completes the occurrence.
        indirect case occurrence(JobOccurrence)
        /// Bot code outside any handler: sends get random clientMessageIds.
        case direct
    }

    /// The bot's user id, the namespace of derived clientMessageIds.
    public var bot: User.ID { storage.fields.bot }
    public var trigger: Trigger { storage.fields.trigger }
    /// How the clientMessageIds of the unit's sends are derived: the store's ``BotStore/clientMessageIDDerivation``.
    public var derivation: ClientMessageIDDerivation { storage.fields.derivation }
    /// For an occurrence: when the job runs next (computed by the caller from the repeat rule); nil ends the job.
    public var nextDueAt: Date? {
        get { storage.fields.nextDueAt }
        set { modify { $0.nextDueAt = newValue } }
    }
    /// Whether committing the unit marks its trigger done (the message handled, the occurrence run). False for the
    /// work a handler commits before it ends (to await an ack): its trigger is done with the handler's last unit, so
    /// a crash in between runs the handler again, whose derived sends, jobs and changes then come out the same.
    package var marksTriggerDone: Bool {
        get { storage.fields.marksTriggerDone }
        set { modify { $0.marksTriggerDone = newValue } }
    }
    /// The trace recorded with the unit's sends unless a send names its own.
    public var traceID: String? {
        get { storage.fields.traceID }
        set { modify { $0.traceID = newValue } }
    }

    /// Suspects cleared and work quarantined or retried, recorded with the unit's effects.
    package var crashBookkeeping: [CrashBookkeeping] {
        get { storage.fields.crashBookkeeping }
        set { modify { $0.crashBookkeeping = newValue } }
    }

    var sends: [PendingSend] { storage.fields.sends }
    var stateWrites: [StateAddress: Data?] { storage.fields.stateWrites }
    var jobChanges: [JobChange] { storage.fields.jobChanges }
    var dialogWrites: [DialogAddress: DialogState?] { storage.fields.dialogWrites }
    /// Edits, deletions and reactions, in the order asked for.
    var messageActions: [MessageAction] { storage.fields.messageActions }

    /// The unit's contents, in a box its copies share until one of them changes (copy on write). A unit passes
    /// through several owners between the handler and the commit (the handler's context, the lane's queue, the
    /// store's request); a copy is then one reference instead of nine fields.
    private var storage: Storage

    /// `@unchecked Sendable`: `fields` is only changed after `makeUnique`, which first makes the box unique
    /// (`isKnownUniquelyReferenced`, else a fresh box), so a box that another unit, and so possibly another
    /// thread, can reach is never written; shared boxes are only read. It is the copy-on-write rule of the
    /// standard library's collections, which are `Sendable` on the same grounds.
    private final class Storage: @unchecked Sendable {
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private struct Fields: Sendable {
        let bot: User.ID
        let trigger: Trigger
        let derivation: ClientMessageIDDerivation
        var nextDueAt: Date?
        var traceID: String?
        var sends: [PendingSend] = []
        var stateWrites: [StateAddress: Data?] = [:]
        var jobChanges: [JobChange] = []
        var dialogWrites: [DialogAddress: DialogState?] = [:]
        var messageActions: [MessageAction] = []
        var crashBookkeeping: [CrashBookkeeping] = []
        var marksTriggerDone = true
    }

    /// Makes the box this unit's own before a change: a fresh copy when another unit shares it.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
    }

    private mutating func modify(_ change: (inout Fields) -> Void) {
        makeUnique()
        change(&storage.fields)
    }

    /// A unit for handling `message`; its sends' clientMessageIds follow `derivation` (pass the store's).
    public init(
        handling message: Message, bot: User.ID, traceID: String? = nil, derivation: ClientMessageIDDerivation = .timeOrdered
    ) {
        storage = Storage(Fields(bot: bot, trigger: .message(message), derivation: derivation, traceID: traceID))
    }

    /// A unit for running `occurrence`; `nextDueAt` is when the job runs again (nil: it is done).
    public init(running occurrence: JobOccurrence, nextDueAt: Date?, bot: User.ID, traceID: String? = nil) {
        storage = Storage(
            Fields(bot: bot, trigger: .occurrence(occurrence), derivation: .timeOrdered, nextDueAt: nextDueAt, traceID: traceID))
    }

    /// A unit for bot code that runs outside any handler.
    public init(bot: User.ID, traceID: String? = nil) {
        storage = Storage(Fields(bot: bot, trigger: .direct, derivation: .timeOrdered, traceID: traceID))
    }

    // MARK: - Sending

    /// Queues `content` for `conversation` and returns its clientMessageId: derived from the trigger and
    /// the index of this send in the unit (random for a direct unit).
    @discardableResult
    public mutating func send(
        _ content: MessageContent, to conversation: Conversation.ID, traceID: String? = nil
    ) -> ClientMessageID {
        let id: ClientMessageID
        switch trigger {
        case .message(let message): id = derivation.key(bot: bot, handling: message.id, index: sends.count)
        case .occurrence(let occurrence): id = occurrence.clientMessageID(bot: bot, index: sends.count)
        case .direct: id = .random()
        }
        send(MessageSend(conversationId: conversation, clientMessageId: id, content: content), traceID: traceID)
        return id
    }

    /// Queues `message` with the clientMessageId it carries.
    public mutating func send(_ message: MessageSend, traceID: String? = nil) {
        send(message, encodedAs: OutboxPayload.json(message), traceID: traceID)
    }

    /// Queues `message`, already encoded as `payload` (its `OutboxPayload` JSON text, stored and sent as is).
    mutating func send(_ message: consuming MessageSend, encodedAs payload: consuming String, traceID: String? = nil) {
        // Appended in place, not through `modify`'s closure, so the send is moved into the unit rather than copied.
        let send = PendingSend(message: message, payload: payload, traceID: traceID ?? self.traceID)
        makeUnique()
        storage.fields.sends.append(send)
    }

    /// The messages queued so far, in send order.
    public var messages: [MessageSend] { sends.map(\.message) }

    // MARK: - Changes to messages

    /// Queues `change` of `messageId`: stored with the unit, carried out over REST after it commits.
    public mutating func change(_ change: MessageChange, of messageId: Message.ID, in conversation: Conversation.ID, traceID: String? = nil) {
        let action = MessageAction(change, of: messageId, in: conversation, traceID: traceID ?? self.traceID)
        modify { $0.messageActions.append(action) }
    }

    // MARK: - State

    /// Sets the value of `key` in `scope` (encoded as JSON now, so an unencodable value fails here).
    public mutating func setValue<Value: Encodable>(
        _ value: Value, forKey key: String, in scope: StateScope
    ) throws(BotStoreError) {
        let data = try StateValueCoding.encode(value, key: key)
        modify { $0.stateWrites[StateAddress(scope: scope, key: key)] = .some(data) }
    }

    /// Sets `key` in `scope` to the JSON `data`, or removes it when nil: the form `BotContext.setStateData`
    /// hands over. Data that is not JSON is refused here.
    public mutating func setStateData(_ data: Data?, forKey key: String, in scope: StateScope) throws(BotStoreError) {
        if let data { try StateValueCoding.validate(data, key: key) }
        modify { $0.stateWrites[StateAddress(scope: scope, key: key)] = .some(data) }
    }

    /// Removes `key` from `scope`.
    public mutating func removeValue(forKey key: String, in scope: StateScope) {
        modify { $0.stateWrites[StateAddress(scope: scope, key: key)] = .some(nil) }
    }

    /// The unit's own write of `key`: nil when the unit did not touch it, `.some(nil)` when it removed it.
    func pendingValue(forKey key: String, in scope: StateScope) -> Data?? {
        stateWrites[StateAddress(scope: scope, key: key)]
    }

    // MARK: - Schedules

    /// Adds `job` to the schedule (nothing changes if a job with its id exists).
    public mutating func scheduleJob(_ job: NewScheduledJob) {
        modify { $0.jobChanges.append(.add(job)) }
    }

    /// Cancels the job `id`: no further occurrence runs.
    public mutating func cancelJob(_ id: ScheduledJob.ID) {
        modify { $0.jobChanges.append(.cancel(id)) }
    }

    // MARK: - Dialogs

    /// Sets the dialog state of `user` in `conversation`.
    public mutating func setDialog(_ dialog: DialogState, user: User.ID, conversation: Conversation.ID) {
        modify { $0.dialogWrites[DialogAddress(user: user, conversation: conversation)] = .some(dialog) }
    }

    /// Ends the dialog of `user` in `conversation`.
    public mutating func endDialog(user: User.ID, conversation: Conversation.ID) {
        modify { $0.dialogWrites[DialogAddress(user: user, conversation: conversation)] = .some(nil) }
    }

    func pendingDialog(user: User.ID, conversation: Conversation.ID) -> DialogState?? {
        dialogWrites[DialogAddress(user: user, conversation: conversation)]
    }

    /// Whether the unit changes nothing beyond its trigger.
    public var hasNoEffects: Bool {
        sends.isEmpty && stateWrites.isEmpty && jobChanges.isEmpty && dialogWrites.isEmpty && messageActions.isEmpty
            && crashBookkeeping.isEmpty
    }

    /// The origin recorded with the unit's outbox entries.
    var origin: OutboxEntry.Origin {
        switch trigger {
        case .message(let message): .handler(incoming: message.id)
        case .occurrence(let occurrence): .schedule(job: occurrence.job.id, occurrence: occurrence.number)
        case .direct: .direct
        }
    }
}

/// A send queued in a unit, with its payload already encoded (off the database thread).
struct PendingSend: Sendable {
    var message: MessageSend
    var payload: String
    var traceID: String?
}

/// A state key in its scope.
struct StateAddress: Hashable, Sendable {
    var scope: StateScope
    var key: String
}

/// A dialog's (user, conversation).
struct DialogAddress: Hashable, Sendable {
    var user: User.ID
    var conversation: Conversation.ID
}

/// A schedule change made by a unit, applied in order.
enum JobChange: Hashable, Sendable {
    case add(NewScheduledJob)
    case cancel(ScheduledJob.ID)
}

/// JSON coding of state values: Foundation's default strategies with sorted keys, exactly as the bot API's
/// typed state (`BotContext.state(_:in:)`, `setState(_:for:in:)`) codes them, so either side reads the other's.
enum StateValueCoding {
    static func encode<Value: Encodable>(_ value: Value, key: String) throws(BotStoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(value)
        } catch {
            throw .unencodableValue(key: key, type: "\(Value.self)", reason: "\(error)")
        }
    }

    static func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, key: String, scope: StateScope
    ) throws(BotStoreError) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw .undecodableValue(key: key, scope: scope, type: "\(Value.self)", reason: "\(error)")
        }
    }

    /// Refuses data that is not one JSON value (the column holds JSON text).
    static func validate(_ data: Data, key: String) throws(BotStoreError) {
        do {
            _ = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .unencodableValue(key: key, type: "Data", reason: "not JSON: \(error)")
        }
    }
}
