import ChatterBots
import Foundation
import Synchronization

/// The `BotContext` of one handler call: reads and writes go into a `UnitOfWork` of the bot's store, committed
/// when the handler returns (discarded if it throws or times out); friend actions and look-ups are REST calls.
/// It carries out every group of the context itself, as they share the handler's unit of work.
///
/// Sends get `clientMessageId`s derived from the trigger (the incoming message, the job occurrence, or an event
/// with an identity of its own) and their index, so running the handler again sends nothing twice. Scheduled
/// jobs get ids derived the same way, so they are not scheduled twice either. `OutgoingMessage.acknowledged()`
/// inside the handler commits the work so far first (the message cannot go out before it is durable). Once the
/// handler has returned, the context still works: each further change commits at once.
final class RuntimeBotContext: BotContext, BotMessaging, BotService, BotStateStore, BotJobs, BotPresence {
    /// What the handler reacts to.
    enum Trigger: Sendable {
        /// An incoming message: the commit marks it handled.
        case message(Message)
        /// A claimed job occurrence: the commit completes it and sets the next due time.
        case occurrence(JobOccurrence, nextDueAt: Date?)
        /// A `message.updated`: the commit records the update as handled (its fingerprint, added to the message's
        /// recently `handled` updates, with the message's version), so a duplicate frame does not run the handler
        /// again and the next update is compared with this one; sends and jobs derive from the fingerprint and the
        /// number of this handling.
        case update(Message, MessageUpdateFingerprint, handled: HandledMessageUpdates)
        /// Anything else. With a key, sends and jobs get ids derived from it (`friend-added:<id>@<since>`);
        /// without, random ones.
        case event(key: String?)
    }

    private struct State {
        var unit: UnitOfWork
        /// The trigger (message handled, occurrence completed) is committed; later work goes in direct units.
        var isTriggerCommitted = false
        var sendIndex = 0
        var jobIndex = 0
        /// The handler returned: every change commits at once.
        var isFinished = false
        /// Sends in the current unit, not committed yet.
        var uncommittedSends: Set<ClientMessageID> = []
    }

    let bot: BotIdentity
    /// Made when asked: most handlers never log, and a logger costs a closure and its fields.
    var logger: BotLogger { dependencies.log.botLogger(trace: trace) }
    private let dependencies: Dependencies
    private let trigger: Trigger
    private let lane: HandlerLane
    private let run: HandlerRun?
    private let trace: String
    /// The derivation key of sends and jobs; nil for random ids.
    private let derivationKey: String?
    /// The quarantine entry this run retries: its unit takes the entry out instead of marking the trigger done.
    /// The quarantine entry this handler run retries, if it does.
    let retrying: Int64?
    private let work: Mutex<State>

    /// What every handler context of a session acts through; built once per session. A class, so that each context
    /// holds one reference instead of a copy of every part.
    final class Dependencies: Sendable {
        let store: BotStore
        let writer: StoreWriter
        let rest: ChatterRESTClient
        let outbox: OutboxSender
        let typing: TypingIndicators
        let presence: PresenceDirectory
        let readState: ReadStateDirectory
        let clock: any ChatterClock
        let log: SessionLog

        init(
            store: BotStore, writer: StoreWriter, rest: ChatterRESTClient, outbox: OutboxSender, typing: TypingIndicators,
            presence: PresenceDirectory, readState: ReadStateDirectory, clock: any ChatterClock, log: SessionLog
        ) {
            self.store = store
            self.writer = writer
            self.rest = rest
            self.outbox = outbox
            self.typing = typing
            self.presence = presence
            self.readState = readState
            self.clock = clock
            self.log = log
        }
    }

    init(
        _ dependencies: Dependencies, bot: BotIdentity, trigger: Trigger, lane: HandlerLane, trace: String, run: HandlerRun?,
        retrying: Int64? = nil
    ) {
        self.dependencies = dependencies
        self.retrying = retrying
        self.bot = bot
        self.trigger = trigger
        self.lane = lane
        self.trace = trace
        self.run = run
        let unit: UnitOfWork
        switch trigger {
        case .message(let message):
            unit = UnitOfWork(handling: message, bot: bot.userId, traceID: trace, derivation: dependencies.store.clientMessageIDDerivation)
            derivationKey = ClientMessageID.messageTrigger(message.id)
        case .occurrence(let occurrence, let next):
            unit = UnitOfWork(running: occurrence, nextDueAt: next, bot: bot.userId, traceID: trace)
            derivationKey = occurrence.trigger
        case .update(let message, let fingerprint, let handled):
            unit = Self.unitRecording(fingerprint, of: message, after: handled, bot: bot.userId, trace: trace)
            derivationKey = fingerprint.derivationKey(of: message.id, handling: handled.nextHandling)
        case .event(let key):
            unit = UnitOfWork(bot: bot.userId, traceID: trace)
            derivationKey = key
        }
        self.work = Mutex(State(unit: retrying.map { Self.retryUnit($0, of: trigger, bot: bot.userId, trace: trace) } ?? unit))
        run?.contextID = ObjectIdentifier(self)
    }

    var now: Date { dependencies.clock.now }

    var messaging: any BotMessaging { self }
    var service: any BotService { self }
    var state: any BotStateStore { self }
    var jobs: any BotJobs { self }
    var presence: any BotPresence { self }

    // MARK: - The handler's end

    /// Queues the handler's work for commit in its lane (or, when `discarding`, only the trigger: the message
    /// counts as handled, the occurrence as done). Called once, when the handler returned; afterwards changes
    /// commit at once. The lane's next handler does not wait for the commit.
    func finish(discarding: Bool) {
        dependencies.typing.hideAll(of: ObjectIdentifier(self))
        let dropped = work.withLock { state -> [ClientMessageID] in
            state.isFinished = true
            guard discarding else {
                submit(&state)
                return []
            }
            let dropped = Array(state.uncommittedSends)
            state.unit = UnitOfWork(bot: bot.userId, traceID: trace)
            state.uncommittedSends = []
            if !state.isTriggerCommitted {
                state.isTriggerCommitted = true
                dependencies.writer.submit(freshTriggerUnit(), in: lane, trace: trace, epoch: run?.epoch ?? 0)
            }
            return dropped
        }
        if !dropped.isEmpty { dependencies.outbox.failWaiters(of: dropped, with: CancellationError()) }
    }

    /// The unit of a retried quarantine entry: it takes the entry out (and lets a job paused by the quarantine run
    /// again); the trigger was marked done when the work was set aside.
    private static func retryUnit(_ entry: Int64, of trigger: Trigger, bot: User.ID, trace: String) -> UnitOfWork {
        var unit = UnitOfWork(bot: bot, traceID: trace)
        unit.crashBookkeeping = [.retried(entry)]
        if case .occurrence(let occurrence, _) = trigger { unit.crashBookkeeping.append(.resumeJob(occurrence.job.id)) }
        return unit
    }

    /// A unit that only marks the trigger done.
    private func freshTriggerUnit() -> UnitOfWork {
        if let retrying { return Self.retryUnit(retrying, of: trigger, bot: bot.userId, trace: trace) }
        return switch trigger {
        case .message(let message):
            UnitOfWork(handling: message, bot: bot.userId, traceID: trace, derivation: dependencies.store.clientMessageIDDerivation)
        case .occurrence(let occurrence, let next): UnitOfWork(running: occurrence, nextDueAt: next, bot: bot.userId, traceID: trace)
        case .update(let message, let fingerprint, let handled):
            Self.unitRecording(fingerprint, of: message, after: handled, bot: bot.userId, trace: trace)
        case .event: UnitOfWork(bot: bot.userId, traceID: trace)
        }
    }

    /// A unit that records the update `fingerprint` of `message` as handled, with the updates `handled` before it.
    static func unitRecording(
        _ fingerprint: MessageUpdateFingerprint, of message: Message, after handled: HandledMessageUpdates, bot: User.ID, trace: String
    ) -> UnitOfWork {
        var unit = UnitOfWork(bot: bot, traceID: trace)
        // Strings and timestamps always encode to JSON: this cannot throw.
        try? unit.setValue(
            handled.recording(fingerprint, version: MessageVersion(message)).stored, forKey: MessageUpdateFingerprint.storageKey(of: message.id), in: .global)
        return unit
    }

    /// Queues the unit for commit (when there is something to commit) and starts a direct unit for what follows.
    /// Returns the ticket. Runs under the state lock, so the lane receives this context's units in order.
    @discardableResult
    private func submit(_ state: inout State) -> UInt64? {
        let unit = state.unit
        let mustCommitTrigger: Bool
        switch trigger {
        case _ where retrying != nil, .message, .occurrence, .update: mustCommitTrigger = !state.isTriggerCommitted
        case .event: mustCommitTrigger = false
        }
        state.unit = UnitOfWork(bot: bot.userId, traceID: trace)
        state.isTriggerCommitted = true
        state.uncommittedSends = []
        guard mustCommitTrigger || !unit.hasNoEffects else { return nil }
        return dependencies.writer.submit(unit, in: lane, trace: trace, epoch: run?.epoch ?? 0)
    }

    /// Commits what the handler did so far and waits until it is stored. A message's or an occurrence's handler
    /// still running, its trigger is left for the handler's last unit: a crash before then runs the handler again.
    private func commitPending() async {
        guard let ticket = work.withLock({ submitProgress(&$0) }) else { return }
        await dependencies.writer.waitUntilCommitted(ticket, in: lane)
    }

    /// Queues what the handler did so far without its trigger (when the trigger is a message or an occurrence not
    /// done yet, or the retry of a quarantine entry, which leaves the quarantine only with the handler's last unit:
    /// a crash before then finds it quarantined), and starts the unit that will carry the trigger. Runs under the
    /// state lock, as ``submit(_:)``.
    private func submitProgress(_ state: inout State) -> UInt64? {
        switch trigger {
        case _ where retrying != nil, .message, .occurrence:
            guard !state.isTriggerCommitted, !state.isFinished else { return submit(&state) }
            var progress = state.unit
            progress.marksTriggerDone = false
            if retrying != nil { progress.crashBookkeeping = [] }
            state.unit = freshTriggerUnit()
            state.uncommittedSends = []
            guard !progress.hasNoEffects else { return nil }
            return dependencies.writer.submit(progress, in: lane, trace: trace, epoch: run?.epoch ?? 0)
        case .update, .event:
            return submit(&state)
        }
    }

    /// After the handler returned, changes commit at once.
    private func commitIfFinished() {
        work.withLock { state in
            if state.isFinished { submit(&state) }
        }
    }

    /// Throws when the dispatcher abandoned this handler (it timed out): its changes would be discarded anyway.
    private func checkUsable() throws {
        if run?.isAbandoned == true { throw CancellationError() }
    }

    // MARK: - Sending

    func reply(to message: IncomingMessage, with content: MessageContent) async throws -> OutgoingMessage {
        try await send(content, to: message.conversationId)
    }

    /// Queues a send. Its clientMessageId derives from the handler's trigger; without one (an event with no
    /// identity of its own, never delivered again as the same event) every send is random, replies too: a key
    /// derived from the message answered would be shared with that message's own replies and with other events'
    /// replies to it, and the outbox would take it for one of those. A message the service would refuse for its
    /// size throws `ChatterAPIError` (`VALIDATION_FAILED`) here and is not queued.
    func send(_ content: MessageContent, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        try checkUsable()
        // The id is chosen, the message encoded and its size checked under the lock, and the send index used up only
        // once the check passed: a refused message takes no index, and concurrent sends of one handler cannot take
        // the same one. The payload checked is the one stored and sent (no second encoding).
        let (id, isFinished) = try work.withLock { state throws(ChatterAPIError) -> (ClientMessageID, Bool) in
            let id: ClientMessageID
            if let derivationKey {
                id = dependencies.store.clientMessageIDDerivation.key(bot: bot.userId, trigger: derivationKey, index: state.sendIndex)
            } else {
                id = .random()
            }
            let send = MessageSend(conversationId: conversationId, clientMessageId: id, content: content)
            let payload = try MessageSizeLimit.checkedPayload(of: send)
            if derivationKey != nil {
                state.sendIndex += 1
            }
            state.unit.send(send, encodedAs: payload, traceID: trace)
            state.uncommittedSends.insert(id)
            return (id, state.isFinished)
        }
        // The seed stops typing when the message is sent: while the handler runs its sends wait for its end, where
        // `finish` hides its typing; a send after that commits (and goes) at once.
        if isFinished, dependencies.typing.isShown(in: conversationId) { dependencies.typing.hide(in: conversationId) }
        commitIfFinished()
        return OutgoingMessage(clientMessageId: id, conversationId: conversationId, content: content) { [self] in
            try await acknowledgement(of: id, in: conversationId)
        }
    }

    /// Waiting for a send's ack commits the handler's work so far: the message goes out now, and the typing shown
    /// where it goes stops with it.
    private func acknowledgement(of id: ClientMessageID, in conversationId: Conversation.ID) async throws -> MessageAck {
        if work.withLock({ $0.uncommittedSends.contains(id) }) {
            try checkUsable()
            await commitPending()
            if dependencies.typing.isShown(in: conversationId) { dependencies.typing.hide(in: conversationId) }
        }
        return try await dependencies.outbox.acknowledgement(of: id)
    }

    /// Uploads at once, then queues the media message as any send: its outbox entry carries the `mediaId`, so every
    /// resend reuses the upload.
    func sendMedia(_ attachment: MediaAttachment, caption: String?, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        try checkUsable()
        try MessageSizeLimit.checkCaption(caption)
        let upload = try await upload(attachment)
        return try await send(.media(attachment.kind, upload.mediaId, caption: caption), to: conversationId)
    }

    /// `POST /media`, tried again after a failure without an answer as `MediaUploadRetry` says.
    private func upload(_ attachment: MediaAttachment) async throws -> MediaUpload {
        var attempts = 0
        while true {
            do {
                return try await dependencies.rest.uploadMedia(attachment.data, contentType: attachment.contentType)
            } catch {
                attempts += 1
                guard let delay = MediaUploadRetry.delay(after: error, attempts: attempts) else { throw error }
                dependencies.log.warning("could not upload a file (\(error)); trying again in \(delay)", trace: trace)
                try await dependencies.clock.sleep(for: delay)
                try checkUsable()
            }
        }
    }

    func downloadMedia(_ mediaId: Media.ID) async throws -> MediaFile {
        try checkUsable()
        return try await dependencies.rest.downloadMedia(mediaId)
    }

    /// Queues the change in the handler's unit: stored with it, carried out by the session's
    /// `MessageActionPerformer` once committed.
    func change(_ change: MessageChange, of messageId: Message.ID, in conversationId: Conversation.ID) async throws {
        try checkUsable()
        try MessageSizeLimit.check(change)
        work.withLock { $0.unit.change(change, of: messageId, in: conversationId, traceID: trace) }
        commitIfFinished()
    }

    func setTyping(_ isTyping: Bool, in conversationId: Conversation.ID) async throws {
        try checkUsable()
        if isTyping {
            dependencies.typing.show(in: conversationId, owner: ObjectIdentifier(self))
        } else {
            dependencies.typing.hide(in: conversationId)
        }
    }

    // MARK: - State

    func data(for key: String, in scope: StateScope) async throws -> Data? {
        try checkUsable()
        if let own = work.withLock({ $0.unit.pendingValue(forKey: key, in: scope) }) { return own }
        if let queued = dependencies.writer.pendingState(forKey: key, in: scope, lane: lane) { return queued }
        return try await dependencies.store.stateData(forKey: key, in: scope)
    }

    func setData(_ data: Data?, for key: String, in scope: StateScope) async throws {
        try checkUsable()
        guard !key.hasPrefix(Self.reservedKeyPrefix) || scope != .global else {
            throw BotContextError.reservedStateKey(key)
        }
        try work.withLock { state throws(BotStoreError) in
            try state.unit.setStateData(data, forKey: key, in: scope)
        }
        commitIfFinished()
    }

    // MARK: - Schedules

    /// Global state keys under this prefix are the runtime's own (the friends list, handled updates).
    static let reservedKeyPrefix = "chatterbots.runtime."

    func schedule(named name: String, at date: Date, repeating rule: RepeatRule?, payload: JSONValue) async throws -> ScheduledJob {
        try checkUsable()
        let job = try work.withLock { state throws(BotStoreError) -> ScheduledJob in
            // Name-based whatever the store's derivation: a job id is stored, and a re-run after an upgrade must
            // schedule the job the older version scheduled, not a second one.
            let id = derivationKey.map {
                ClientMessageID.nameBased(bot: bot.userId, trigger: $0 + "#job", index: state.jobIndex).rawValue
            } ?? UUID().uuidString.lowercased()
            let job = ScheduledJob(id: ScheduledJob.ID(id), name: name, dueAt: Timestamp(date).date, repeatRule: rule, payload: payload)
            state.unit.scheduleJob(try NewScheduledJob(job))
            state.jobIndex += 1
            return job
        }
        commitIfFinished()
        return job
    }

    func cancel(_ id: ScheduledJob.ID) async throws {
        try checkUsable()
        work.withLock { $0.unit.cancelJob(id) }
        commitIfFinished()
    }

    func scheduled() async throws -> [ScheduledJob] {
        try checkUsable()
        await dependencies.writer.waitUntilDrained(lane)
        let unit = work.withLock { $0.unit }
        return try await dependencies.store.jobs(overlaying: unit).map { try $0.scheduledJob() }
    }

    // MARK: - Friends and look-ups (REST, at once)

    func friends() async throws -> [Friend] {
        try checkUsable()
        return try await dependencies.rest.friends()
    }

    func friendRequests() async throws -> FriendRequestList {
        try checkUsable()
        return try await dependencies.rest.friendRequests()
    }

    func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend {
        try checkUsable()
        return try await dependencies.rest.acceptFriendRequest(id).friend
    }

    func declineFriendRequest(_ id: FriendRequest.ID) async throws {
        try checkUsable()
        try await dependencies.rest.declineFriendRequest(id)
    }

    func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest {
        try checkUsable()
        return try await dependencies.rest.sendFriendRequest(to: target)
    }

    func removeFriend(_ userId: User.ID) async throws {
        try checkUsable()
        try await dependencies.rest.removeFriend(userId)
    }

    func cancelFriendRequest(_ id: FriendRequest.ID) async throws {
        try checkUsable()
        try await dependencies.rest.cancelFriendRequest(id)
    }

    // MARK: - People (REST, at once)

    func user(_ id: User.ID) async throws -> User {
        try checkUsable()
        return try await dependencies.rest.user(id)
    }

    func user(named username: String) async throws -> User? {
        try checkUsable()
        return try await dependencies.rest.users(username: username).first
    }

    func profile() async throws -> CurrentUser {
        try checkUsable()
        return try await dependencies.rest.me()
    }

    func updateProfile(displayName: String?, privacy: PrivacySettings?) async throws -> User {
        try checkUsable()
        return try await dependencies.rest.updateMe(displayName: displayName, privacy: privacy)
    }

    // MARK: - Groups and conversation settings (REST, at once)

    func updateGroup(_ conversationId: Conversation.ID, title: String?, avatarUrl: String?) async throws -> Conversation {
        try checkUsable()
        return try await dependencies.rest.updateConversation(conversationId, title: title, avatarUrl: avatarUrl)
    }

    func messages(in conversationId: Conversation.ID, beforeSeq: Int, limit: Int) async throws -> MessagePage {
        try checkUsable()
        return try await dependencies.rest.messages(in: conversationId, beforeSeq: beforeSeq, limit: limit)
    }

    func conversations(updatedSince: Timestamp?) async throws -> [Conversation] {
        try checkUsable()
        return try await dependencies.rest.conversations(updatedSince: updatedSince)
    }

    func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation {
        try checkUsable()
        let group = try await dependencies.rest.createGroup(title: title, memberIds: memberIds)
        // Known at once, as a direct conversation is: the acks of the bot's messages there move its cursor.
        try await dependencies.store.recordConversations([group], newConversationsStart: .firstMessage)
        return group
    }

    func addMembers(_ userIds: [User.ID], to conversationId: Conversation.ID) async throws -> Conversation {
        try checkUsable()
        return try await dependencies.rest.addMembers(userIds, to: conversationId)
    }

    func removeMember(_ userId: User.ID, from conversationId: Conversation.ID) async throws {
        try checkUsable()
        try await dependencies.rest.removeMember(userId, from: conversationId)
    }

    func leaveConversation(_ conversationId: Conversation.ID) async throws {
        try checkUsable()
        try await dependencies.rest.removeMember(bot.userId, from: conversationId)
    }

    func setMuted(_ muted: Bool, conversation conversationId: Conversation.ID) async throws {
        try checkUsable()
        try await dependencies.rest.setMuted(muted, conversation: conversationId)
    }

    func directConversation(with userId: User.ID) async throws -> Conversation {
        try checkUsable()
        let conversation = try await dependencies.rest.directConversation(with: userId)
        // Known at once, so the acks of messages sent there move its cursor and replies are handled.
        try await dependencies.store.recordConversations([conversation], newConversationsStart: .firstMessage)
        return conversation
    }

    func conversation(_ id: Conversation.ID) async throws -> Conversation {
        try checkUsable()
        return try await dependencies.rest.conversation(id)
    }

    func lastKnown(of userId: User.ID) async -> Presence? {
        dependencies.presence.presence(of: userId)
    }

    /// What the session heard; the bot's own latest message, when it heard of none since the start, comes from the
    /// outbox's acknowledged entries (a refresh lists only the conversations changed since the one before).
    func readState(of conversationId: Conversation.ID) async -> ConversationReadState? {
        let known = dependencies.readState.readState(of: conversationId)
        guard known?.lastOwnSeq == nil else { return known }
        guard let seq = try? await dependencies.store.latestAcknowledgedSeq(in: conversationId) else { return known }
        dependencies.readState.noteOwn([seq], in: conversationId)
        return dependencies.readState.readState(of: conversationId)
    }
}

/// Bot code asked the runtime's context for something it refuses.
public enum BotContextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key is the runtime's own (it keeps the friends list and handled updates under `chatterbots.runtime.`).
    case reservedStateKey(String)
    /// The bot's account was deleted and re-created: the message was queued by the old account and deleted with
    /// the rest of its data.
    case accountReplaced(previous: User.ID, current: User.ID)

    public var description: String {
        switch self {
        case .reservedStateKey(let key): "the state key \"\(key)\" of the global scope is reserved for the runtime; use another"
        case .accountReplaced(let previous, let current):
            "the bot signed in as user \(current), not \(previous) (the account was re-created): the old account's outbox, state and schedules were deleted"
        }
    }
}
