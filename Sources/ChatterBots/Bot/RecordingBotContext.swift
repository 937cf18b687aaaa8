import Synchronization

/// A `BotContext` for unit tests of bot code, with no server and no runtime: it records what the bot
/// sends, stores and schedules, and simulates friends, conversations and presence from what the test
/// gives it. The clock stands still until the test advances it.
///
/// Drive the bot through `deliver(_:to:)`, `runDueJobs(of:)` and `run(_:)` to get the `clientMessageId`s the
/// runtime would derive (the same ids when a message is delivered twice) and its unit of work: when a handler
/// throws, the messages it sent, the state it stored and the jobs it scheduled or cancelled are discarded, while
/// `service` calls (friends, groups, profile) stay, as they do in the runtime. Unlike the runtime, every change is
/// visible at once and every send is acknowledged at once.
///
/// ```swift
/// let context = RecordingBotContext(bot: BotIdentity(name: "echo", userId: "BOT"))
/// try await context.deliver(context.message("hi", from: "ALICE", in: "CHAT"), to: EchoBot())
/// #expect(context.sentMessages.map(\.content.body) == ["echo: hi"])
/// ```
public final class RecordingBotContext: BotContext {
    /// A message the bot sent.
    public struct SentMessage: Hashable, Sendable {
        /// The key the runtime would have sent it with (derived from the trigger, or random).
        public var clientMessageId: ClientMessageID
        /// Where it went.
        public var conversationId: Conversation.ID
        /// What it said.
        public var content: MessageContent
    }

    /// A typing indicator the bot showed or hid.
    public struct TypingChange: Hashable, Sendable {
        /// Where the indicator was shown or hidden.
        public var conversationId: Conversation.ID
        /// True for `typing.start`, false for `typing.stop`.
        public var isTyping: Bool
    }

    /// A change the bot made to a message.
    public struct MessageChangeRecord: Hashable, Sendable {
        /// What changed.
        public var change: MessageChange
        /// The message changed.
        public var messageId: Message.ID
        /// Its conversation.
        public var conversationId: Conversation.ID
    }

    /// A friend action the bot took.
    public enum FriendAction: Hashable, Sendable {
        /// The bot accepted this request.
        case accepted(FriendRequest.ID)
        /// The bot declined this request.
        case declined(FriendRequest.ID)
        /// The bot sent a friend request to this user.
        case requested(FriendRequestBody)
        /// The bot ended the friendship with this user.
        case removed(User.ID)
        /// The bot withdrew this request it had sent.
        case cancelled(FriendRequest.ID)
    }

    private struct Records: Sendable {
        var now: Date
        var sent: [SentMessage] = []
        var acks: [ClientMessageID: MessageAck] = [:]
        var typing: [TypingChange] = []
        var messageChanges: [MessageChangeRecord] = []
        var friendActions: [FriendAction] = []
        var logRecords: [BotLogger.Record] = []
        var state: [String: Data] = [:]
        var jobs: [ScheduledJob.ID: ScheduledJob] = [:]
        var friends: [Friend]
        var incoming: [FriendRequest]
        var outgoing: [FriendRequest] = []
        var users: [User]
        var conversations: [Conversation.ID: Conversation]
        var presences: [User.ID: Presence]
        var sendIndex: [String: Int] = [:]
        var seqs: [Conversation.ID: Int] = [:]
        var history: [Message]
        /// Files the bot uploaded, and the ones the test made available (`addMedia`).
        var media: [Media.ID: MediaFile] = [:]
        var privacy = PrivacySettings(lastSeen: .friends)
        /// Receipts the test recorded, over the conversations' member watermarks.
        var receipts: [Conversation.ID: [MemberWatermarks]] = [:]
        var serial = 0

        /// The bot's own account: its entry among the users, or one made from its identity.
        func me(_ bot: BotIdentity) -> User {
            users.first { $0.id == bot.userId } ?? User(id: bot.userId, username: bot.name, displayName: bot.name)
        }

        mutating func nextSerial() -> Int {
            serial += 1
            return serial
        }

        /// The seq the next message of `conversationId` gets: after its listed `lastSeq`, the messages the test gave
        /// and made, and the bot's sends.
        mutating func nextSeq(in conversationId: Conversation.ID) -> Int {
            let given = history.lazy.filter { $0.conversationId == conversationId }.map(\.seq).max() ?? 0
            let seq = (seqs[conversationId] ?? max(conversations[conversationId]?.lastSeq ?? 0, given)) + 1
            seqs[conversationId] = seq
            return seq
        }
    }

    /// Shared with the logger's sink, which cannot capture `self` during `init`.
    private final class Storage: Sendable {
        let records: Mutex<Records>
        init(_ records: Records) { self.records = Mutex(records) }
    }

    /// What a handler run changed in its unit of work, to put back when it throws.
    private final class Journal: Sendable {
        enum Undo: Sendable {
            case state(key: String, previous: Data?)
            case job(ScheduledJob.ID, previous: ScheduledJob?)
            case send(ClientMessageID, conversationId: Conversation.ID, previousSeq: Int?)
            case messageChange(MessageChangeRecord)
        }

        let undos = Mutex<[Undo]>([])
        /// The run this one is inside: they are one unit of work.
        let enclosing: Journal?

        init(enclosing: Journal?) {
            self.enclosing = enclosing
        }

        /// What the unit did so far is committed (`OutgoingMessage.acknowledged()`): a later throw keeps it.
        func commitSoFar() {
            var journal: Journal? = self
            while let current = journal {
                current.undos.withLock { $0.removeAll() }
                journal = current.enclosing
            }
        }
    }

    @TaskLocal private static var trigger: String?
    @TaskLocal private static var journal: Journal?

    /// The identity handlers see, and the account derived message keys are named after.
    public let bot: BotIdentity
    /// A logger whose records land in `logRecords`.
    public let logger: BotLogger
    private let storage: Storage

    /// - Parameters:
    ///   - users: the accounts the bot can find (friend requests by username, direct conversations).
    ///   - conversations: the conversations the bot is a member of.
    ///   - messages: the conversations' earlier messages, for `service.history(of:)`.
    public init(
        bot: BotIdentity = BotIdentity(name: "test-bot", userId: "BOT"),
        now: Date = Date(timeIntervalSince1970: 1_792_677_791.482),
        friends: [Friend] = [], friendRequests: [FriendRequest] = [], users: [User] = [],
        conversations: [Conversation] = [], messages: [Message] = [], presences: [Presence] = [],
        logLevel: BotLogger.Level = .trace
    ) {
        self.bot = bot
        let storage = Storage(Records(
            now: now, friends: friends, incoming: friendRequests, users: users,
            conversations: Dictionary(conversations.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }),
            presences: Dictionary(presences.map { ($0.userId, $0) }, uniquingKeysWith: { _, last in last }),
            history: messages))
        self.storage = storage
        self.logger = BotLogger(label: bot.name, minimumLevel: logLevel) { record in
            storage.records.withLock { $0.logRecords.append(record) }
        }
    }

    // MARK: Driving the bot

    /// Delivers `message` to `bot.onMessage` as the runtime would: sends during the call get
    /// `clientMessageId`s derived from the bot, the message and their index; a message deleted for everyone
    /// reaches no handler.
    public func deliver(_ message: Message, to bot: some Bot) async throws {
        guard !message.isDeleted else { return }
        let trigger = ClientMessageID.messageTrigger(message.id)
        storage.records.withLock { $0.sendIndex[trigger] = 0 }
        try await Self.$trigger.withValue(trigger) {
            try await run { try await bot.onMessage(IncomingMessage(message), context: self) }
        }
    }

    /// Delivers a friend request to `bot.onFriendRequest`, applies an `accept` or `decline` to the
    /// simulated friends, and returns the decision.
    @discardableResult
    public func deliver(_ request: FriendRequest, to bot: some Bot) async throws -> FriendRequestDecision {
        storage.records.withLock { records in
            if !records.incoming.contains(where: { $0.id == request.id }) { records.incoming.append(request) }
        }
        let decision = try await run { try await bot.onFriendRequest(request, context: self) }
        switch decision {
        case .accept: _ = try await simulation.acceptFriendRequest(request.id)
        case .decline: try await simulation.declineFriendRequest(request.id)
        case .ignore, .useConfiguredPolicy: break
        }
        return decision
    }

    /// Runs every job due at `now`, soonest first, through `bot.onScheduledJob`; repeating jobs are
    /// rescheduled, one-off jobs removed. Returns the jobs that ran. A handler that throws has its changes
    /// discarded, its occurrence still counts as run (as in the runtime), and the error is rethrown.
    @discardableResult
    public func runDueJobs(of bot: some Bot) async throws -> [ScheduledJob] {
        let now = self.now
        let due = storage.records.withLock { records in
            records.jobs.values.filter { $0.dueAt <= now }.sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
        }
        for job in due {
            let trigger = ClientMessageID.jobTrigger(job.id, occurrence: job.occurrence)
            storage.records.withLock { $0.sendIndex[trigger] = 0 }
            var failure: (any Error)?
            do {
                try await Self.$trigger.withValue(trigger) {
                    try await run { try await bot.onScheduledJob(job, context: self) }
                }
            } catch {
                failure = error
            }
            storage.records.withLock { records in
                guard records.jobs[job.id] == job else { return }  // cancelled or replaced by the handler
                if let next = job.repeatRule?.nextOccurrence(following: job.dueAt, after: now) {
                    records.jobs[job.id]?.dueAt = next
                    records.jobs[job.id]?.occurrence += 1
                } else {
                    records.jobs[job.id] = nil
                }
            }
            if let failure { throw failure }
        }
        return due
    }

    /// Runs `handler` in a unit of work, as the runtime runs a handler: when it throws, the messages sent, state
    /// stored and jobs scheduled or cancelled through this context during the call are discarded and the error is
    /// rethrown (message changes too). Use it for handlers the `deliver` methods do not cover, e.g. `bot.onFriendAdded(friend, context:)`.
    public func run<Value>(_ handler: () async throws -> Value) async throws -> Value {
        let enclosing = Self.journal
        let journal = Journal(enclosing: enclosing)
        do {
            let value = try await Self.$journal.withValue(journal) { try await handler() }
            // A run inside another belongs to the outer unit of work: the outer run's throw undoes it too.
            let undos = journal.undos.withLock { $0 }
            enclosing?.undos.withLock { $0 += undos }
            return value
        } catch {
            let undos = journal.undos.withLock { $0 }
            storage.records.withLock { records in
                for undo in undos.reversed() {
                    switch undo {
                    case .state(let key, let previous): records.state[key] = previous
                    case .job(let id, let previous): records.jobs[id] = previous
                    case .send(let id, let conversationId, let previousSeq):
                        records.sent.removeAll { $0.clientMessageId == id }
                        records.acks[id] = nil
                        records.seqs[conversationId] = previousSeq
                    case .messageChange(let record):
                        if let index = records.messageChanges.lastIndex(of: record) { records.messageChanges.remove(at: index) }
                    }
                }
            }
            throw error
        }
    }

    /// A message from `sender` in `conversationId` as the service would deliver it now: a fresh id, the
    /// conversation's next seq (after its messages and the bot's sends so far) and the context's clock. It joins the
    /// conversation's history and moves its `lastSeq`; hand it to the bot with `deliver(_:to:)`.
    public func message(_ content: MessageContent, from sender: User.ID, in conversationId: Conversation.ID) -> Message {
        storage.records.withLock { records in
            let seq = records.nextSeq(in: conversationId)
            let message = Message(
                id: Message.ID("recorded-message-\(records.nextSerial())"), conversationId: conversationId, seq: seq,
                senderId: sender, clientMessageId: .random(), kind: content.kind, body: content.body,
                mediaId: content.mediaId, replyToId: content.replyToId, createdAt: Timestamp(records.now))
            records.history.append(message)
            records.conversations[conversationId]?.lastSeq = seq
            records.conversations[conversationId]?.updatedAt = message.createdAt
            return message
        }
    }

    /// A text message from `sender` in `conversationId` (see `message(_:from:in:)` for any content).
    public func message(_ text: String, from sender: User.ID, in conversationId: Conversation.ID) -> Message {
        message(.text(text), from: sender, in: conversationId)
    }

    /// Moves the clock forward.
    public func advance(by duration: Duration) {
        storage.records.withLock { $0.now = Timestamp($0.now).advanced(by: duration).date }
    }

    /// Makes a file available to `service.downloadMedia`, as one a delivered media message carries.
    public func addMedia(_ file: MediaFile, as mediaId: Media.ID) {
        storage.records.withLock { $0.media[mediaId] = file }
    }

    /// Records a presence change, as a `presence` event would.
    public func setPresence(_ presence: Presence) {
        storage.records.withLock { $0.presences[presence.userId] = presence }
    }

    /// Records a member's watermarks, as a `receipt.updated` event would (`readState(of:)` sees them).
    public func recordReceipt(_ receipt: ReceiptUpdate) {
        storage.records.withLock {
            $0.receipts[receipt.conversationId, default: []].append(MemberWatermarks(
                userId: receipt.userId, lastDeliveredSeq: receipt.lastDeliveredSeq, lastReadSeq: receipt.lastReadSeq))
        }
    }

    // MARK: What the bot did

    /// Every message the bot sent, in order (a resend of the same key counts once).
    public var sentMessages: [SentMessage] { storage.records.withLock { $0.sent } }
    /// Every typing indicator the bot showed or hid, in order.
    public var typingChanges: [TypingChange] { storage.records.withLock { $0.typing } }
    /// Every change the bot made to a message (edits, deletions, reactions), in order.
    public var messageChanges: [MessageChangeRecord] { storage.records.withLock { $0.messageChanges } }
    /// Every friend action the bot took, in order.
    public var friendActions: [FriendAction] { storage.records.withLock { $0.friendActions } }
    /// Every record the bot logged, in order.
    public var logRecords: [BotLogger.Record] { storage.records.withLock { $0.logRecords } }

    // MARK: BotContext

    /// The test's clock: it stands still until the test advances it.
    public var now: Date { storage.records.withLock { $0.now } }

    /// Records sends (acknowledged at once) and typing.
    public var messaging: any BotMessaging { simulation }
    /// Simulates the service from the friends, users and conversations the test gave.
    public var service: any BotService { simulation }
    /// Stores state in memory.
    public var state: any BotStateStore { simulation }
    /// Keeps jobs in memory; they run when the test calls `runDueJobs(of:)`.
    public var jobs: any BotJobs { simulation }
    /// The presences the test set.
    public var presence: any BotPresence { simulation }

    private var simulation: Simulation { Simulation(bot: bot, storage: storage) }

    /// Carries out the context's groups on the recorded state.
    private struct Simulation: BotMessaging, BotService, BotStateStore, BotJobs, BotPresence {
    let bot: BotIdentity
    let storage: Storage

    var now: Date { storage.records.withLock { $0.now } }

    /// Notes a change of the current handler run's unit of work.
    private func journal(_ undo: Journal.Undo) {
        RecordingBotContext.journal?.undos.withLock { $0.append(undo) }
    }

    /// Records the message and acknowledges it at once; its key is derived as the runtime derives it on a fresh store.
    public func send(_ content: MessageContent, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        record(content, to: conversationId, trigger: RecordingBotContext.trigger)
    }

    /// Records the reply and acknowledges it at once; keyed as the runtime keys it: derived from the delivered
    /// trigger, random outside one (as in an event without an identity of its own).
    public func reply(to message: IncomingMessage, with content: MessageContent) async throws -> OutgoingMessage {
        record(content, to: message.conversationId, trigger: RecordingBotContext.trigger)
    }

    private func record(_ content: MessageContent, to conversationId: Conversation.ID, trigger: String?) -> OutgoingMessage {
        let ack = storage.records.withLock { records -> MessageAck in
            let clientMessageId: ClientMessageID
            if let trigger {
                let index = records.sendIndex[trigger, default: 0]
                records.sendIndex[trigger] = index + 1
                clientMessageId = .derived(bot: bot.userId, trigger: trigger, index: index)
            } else {
                clientMessageId = .random()
            }
            if let earlier = records.acks[clientMessageId] { return earlier }  // the service's idempotency
            records.sent.append(SentMessage(clientMessageId: clientMessageId, conversationId: conversationId, content: content))
            journal(.send(clientMessageId, conversationId: conversationId, previousSeq: records.seqs[conversationId]))
            let seq = records.nextSeq(in: conversationId)
            let ack = MessageAck(
                clientMessageId: clientMessageId, messageId: Message.ID("recorded-message-\(records.nextSerial())"),
                conversationId: conversationId, seq: seq, createdAt: Timestamp(records.now))
            records.acks[clientMessageId] = ack
            return ack
        }
        // As in the runtime, waiting for the acknowledgement commits the handler's work so far.
        let unit = RecordingBotContext.journal
        return OutgoingMessage(clientMessageId: ack.clientMessageId, conversationId: conversationId, content: content) {
            unit?.commitSoFar()
            return ack
        }
    }

    /// Keeps the file (``downloadMedia(_:)`` returns it) under a new `mediaId` and records the media message as a send.
    public func sendMedia(_ attachment: MediaAttachment, caption: String?, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        let mediaId = storage.records.withLock { records -> Media.ID in
            let id = Media.ID("recorded-media-\(records.nextSerial())")
            records.media[id] = MediaFile(data: attachment.data, contentType: attachment.contentType)
            return id
        }
        return try await send(.media(attachment.kind, mediaId, caption: caption), to: conversationId)
    }

    /// Records the change in `messageChanges`.
    func change(_ change: MessageChange, of messageId: Message.ID, in conversationId: Conversation.ID) async throws {
        let record = MessageChangeRecord(change: change, messageId: messageId, conversationId: conversationId)
        storage.records.withLock { $0.messageChanges.append(record) }
        journal(.messageChange(record))
    }

    /// Records the indicator in `typingChanges`.
    public func setTyping(_ isTyping: Bool, in conversationId: Conversation.ID) async throws {
        storage.records.withLock { $0.typing.append(TypingChange(conversationId: conversationId, isTyping: isTyping)) }
    }

    /// The value last stored under `key` in `scope`, nil if none.
    public func data(for key: String, in scope: StateScope) async throws -> Data? {
        storage.records.withLock { $0.state[scope.storageKey + "\n" + key] }
    }

    /// Stores (or with nil removes) the value; a handler run that throws puts the previous value back.
    public func setData(_ data: Data?, for key: String, in scope: StateScope) async throws {
        storage.records.withLock { records in
            let key = scope.storageKey + "\n" + key
            journal(.state(key: key, previous: records.state[key]))
            records.state[key] = data
        }
    }

    /// Stores the job; it runs only when the test calls `runDueJobs(of:)`.
    public func schedule(named name: String, at date: Date, repeating rule: RepeatRule?, payload: JSONValue) async throws -> ScheduledJob {
        storage.records.withLock { records in
            let job = ScheduledJob(
                id: ScheduledJob.ID("recorded-job-\(records.nextSerial())"), name: name, dueAt: Timestamp(date).date,
                repeatRule: rule, payload: payload)
            journal(.job(job.id, previous: records.jobs[job.id]))
            records.jobs[job.id] = job
            return job
        }
    }

    /// Forgets the job; unknown ids are ignored.
    public func cancel(_ id: ScheduledJob.ID) async throws {
        storage.records.withLock { records in
            journal(.job(id, previous: records.jobs[id]))
            records.jobs[id] = nil
        }
    }

    /// The stored jobs, earliest due first.
    public func scheduled() async throws -> [ScheduledJob] {
        storage.records.withLock { $0.jobs.values.sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) } }
    }

    /// The friends the test gave, plus those the bot accepted.
    public func friends() async throws -> [Friend] { storage.records.withLock { $0.friends } }

    /// The pending requests: the test's incoming ones and those the bot sent.
    public func friendRequests() async throws -> FriendRequestList {
        storage.records.withLock { FriendRequestList(incoming: $0.incoming, outgoing: $0.outgoing) }
    }

    /// Turns a pending incoming request into a friend; `NOT_FOUND` when there is none with this id.
    public func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend {
        try storage.records.withLock { records in
            guard let index = records.incoming.firstIndex(where: { $0.id == id }) else {
                throw ChatterAPIError(code: .notFound, message: "No pending friend request \(id) to the bot.")
            }
            let friend = Friend(user: records.incoming.remove(at: index).fromUser, since: Timestamp(records.now))
            records.friends.append(friend)
            records.friendActions.append(.accepted(id))
            return friend
        }
    }

    /// Drops a pending incoming request; `NOT_FOUND` when there is none with this id.
    public func declineFriendRequest(_ id: FriendRequest.ID) async throws {
        try storage.records.withLock { records in
            guard let index = records.incoming.firstIndex(where: { $0.id == id }) else {
                throw ChatterAPIError(code: .notFound, message: "No pending friend request \(id) to the bot.")
            }
            records.incoming.remove(at: index)
            records.friendActions.append(.declined(id))
        }
    }

    /// Records a request to one of the test's users, with the service's refusals (`NOT_FOUND`, `ALREADY_FRIENDS`, `REQUEST_EXISTS`).
    public func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest {
        try storage.records.withLock { records in
            let user: User?
            switch target {
            case .userId(let id): user = records.users.first { $0.id == id }
            case .username(let name): user = records.users.first { $0.username == name }
            }
            guard let user else { throw ChatterAPIError(code: .notFound, message: "No such user.") }
            guard !records.friends.contains(where: { $0.user.id == user.id }) else {
                throw ChatterAPIError(code: .alreadyFriends, message: "Already friends.")
            }
            guard !records.outgoing.contains(where: { $0.toUser.id == user.id }),
                !records.incoming.contains(where: { $0.fromUser.id == user.id })
            else { throw ChatterAPIError(code: .requestExists, message: "A request is pending.") }
            let me = records.me(bot)
            let request = FriendRequest(
                id: FriendRequest.ID("recorded-request-\(records.nextSerial())"), fromUser: me, toUser: user,
                createdAt: Timestamp(records.now))
            records.outgoing.append(request)
            records.friendActions.append(.requested(target))
            return request
        }
    }

    /// Ends a friendship; `NOT_FOUND` when the user is not a friend.
    public func removeFriend(_ userId: User.ID) async throws {
        try storage.records.withLock { records in
            guard let index = records.friends.firstIndex(where: { $0.user.id == userId }) else {
                throw ChatterAPIError(code: .notFound, message: "Not a friend.")
            }
            records.friends.remove(at: index)
            records.friendActions.append(.removed(userId))
        }
    }

    /// Withdraws a request the bot sent; `NOT_FOUND` when there is none with this id.
    public func cancelFriendRequest(_ id: FriendRequest.ID) async throws {
        try storage.records.withLock { records in
            guard let index = records.outgoing.firstIndex(where: { $0.id == id }) else {
                throw ChatterAPIError(code: .notFound, message: "No pending friend request \(id) from the bot.")
            }
            records.outgoing.remove(at: index)
            records.friendActions.append(.cancelled(id))
        }
    }

    /// The direct conversation with a friend, made on first use; `NOT_FRIENDS` for anyone else.
    public func directConversation(with userId: User.ID) async throws -> Conversation {
        try storage.records.withLock { records in
            if let existing = records.conversations.values.first(where: { conversation in
                conversation.kind == .direct && conversation.members.contains { $0.userId == userId }
            }) {
                return existing
            }
            guard records.friends.contains(where: { $0.user.id == userId }) else {
                throw ChatterAPIError(code: .notFriends, message: "You can only message friends.")
            }
            let now = Timestamp(records.now)
            let conversation = Conversation(
                id: Conversation.ID("recorded-conversation-\(records.nextSerial())"), kind: .direct,
                members: [Member(userId: bot.userId, role: .member), Member(userId: userId, role: .member)],
                lastSeq: 0, createdAt: now, updatedAt: now)
            records.conversations[conversation.id] = conversation
            return conversation
        }
    }

    /// One of the bot's conversations; `NOT_FOUND` for any other id.
    public func conversation(_ id: Conversation.ID) async throws -> Conversation {
        try storage.records.withLock { records in
            guard let conversation = records.conversations[id] else {
                throw ChatterAPIError(code: .notFound, message: "No conversation \(id).")
            }
            return conversation
        }
    }

    /// The bot's conversations updated after `updatedSince` (all when nil), oldest change first.
    public func conversations(updatedSince: Timestamp?) async throws -> [Conversation] {
        storage.records.withLock { records in
            records.conversations.values
                .filter { conversation in updatedSince.map { conversation.updatedAt > $0 } ?? true }
                .sorted { ($0.updatedAt, $0.id.rawValue) < ($1.updatedAt, $1.id.rawValue) }
        }
    }

    /// A new group owned by the bot; `NOT_FRIENDS` when a member is not the bot's friend.
    public func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation {
        try storage.records.withLock { records in
            for id in memberIds where !records.friends.contains(where: { $0.user.id == id }) {
                throw ChatterAPIError(code: .notFriends, message: "You can only add friends to a group.")
            }
            let now = Timestamp(records.now)
            let group = Conversation(
                id: Conversation.ID("recorded-conversation-\(records.nextSerial())"), kind: .group, title: title,
                members: [Member(userId: bot.userId, role: .owner)] + memberIds.map { Member(userId: $0, role: .member) },
                lastSeq: 0, createdAt: now, updatedAt: now)
            records.conversations[group.id] = group
            return group
        }
    }

    /// Adds friends to a group the bot owns or administers; `FORBIDDEN`, `NOT_FRIENDS`, `NOT_FOUND` as the service.
    public func addMembers(_ userIds: [User.ID], to conversationId: Conversation.ID) async throws -> Conversation {
        try storage.records.withLock { records in
            var group = try Self.managedGroup(conversationId, in: records, by: bot.userId)
            for id in userIds where !records.friends.contains(where: { $0.user.id == id }) {
                throw ChatterAPIError(code: .notFriends, message: "You can only add friends to a group.")
            }
            for id in userIds where !group.members.contains(where: { $0.userId == id }) {
                group.members.append(Member(userId: id, role: .member))
            }
            group.updatedAt = Timestamp(records.now)
            records.conversations[group.id] = group
            return group
        }
    }

    /// Removes a member of a group the bot owns or administers; `NOT_FOUND` when they are not a member.
    public func removeMember(_ userId: User.ID, from conversationId: Conversation.ID) async throws {
        try storage.records.withLock { records in
            var group = try Self.managedGroup(conversationId, in: records, by: bot.userId)
            guard let index = group.members.firstIndex(where: { $0.userId == userId }) else {
                throw ChatterAPIError(code: .notFound, message: "\(userId) is not a member.")
            }
            group.members.remove(at: index)
            group.updatedAt = Timestamp(records.now)
            records.conversations[group.id] = group
        }
    }

    /// The bot leaves a group: it is no longer among the bot's conversations.
    public func leaveConversation(_ conversationId: Conversation.ID) async throws {
        try storage.records.withLock { records in
            guard let group = records.conversations[conversationId], group.kind == .group else {
                throw ChatterAPIError(code: .notFound, message: "No group \(conversationId).")
            }
            records.conversations[conversationId] = nil
        }
    }

    /// A file the bot uploaded or the test added; `NOT_FOUND` for any other id.
    public func downloadMedia(_ mediaId: Media.ID) async throws -> MediaFile {
        try storage.records.withLock { records throws(ChatterAPIError) -> MediaFile in
            guard let file = records.media[mediaId] else { throw ChatterAPIError(code: .notFound, message: "No media \(mediaId).") }
            return file
        }
    }

    /// Sets the bot's `muted` setting of a conversation; `NOT_FOUND` for any other id.
    public func setMuted(_ muted: Bool, conversation conversationId: Conversation.ID) async throws {
        try storage.records.withLock { records in
            guard records.conversations[conversationId] != nil else {
                throw ChatterAPIError(code: .notFound, message: "No conversation \(conversationId).")
            }
            records.conversations[conversationId]?.muted = muted
        }
    }

    /// Renames a group or changes its avatar; `FORBIDDEN`, `NOT_FOUND` as the service.
    public func updateGroup(_ conversationId: Conversation.ID, title: String?, avatarUrl: String?) async throws -> Conversation {
        try storage.records.withLock { records in
            var group = try Self.managedGroup(conversationId, in: records, by: bot.userId)
            if let title { group.title = title }
            if let avatarUrl { group.avatarUrl = avatarUrl }
            group.updatedAt = Timestamp(records.now)
            records.conversations[group.id] = group
            return group
        }
    }

    /// Up to `limit` of the messages the test gave (`init(messages:)`, `message(_:from:in:)`) with `seq` below
    /// `beforeSeq`, newest first; `NOT_FOUND` for a conversation the bot is not in.
    public func messages(in conversationId: Conversation.ID, beforeSeq: Int, limit: Int) async throws -> MessagePage {
        try storage.records.withLock { records in
            guard records.conversations[conversationId] != nil else {
                throw ChatterAPIError(code: .notFound, message: "No conversation \(conversationId).")
            }
            guard (1...500).contains(limit) else {
                throw ChatterAPIError(code: .validationFailed, message: "limit is 1 to 500, not \(limit).", details: ["field": "limit"])
            }
            let older = records.history
                .filter { $0.conversationId == conversationId && $0.seq < beforeSeq }
                .sorted { $0.seq > $1.seq }
            return MessagePage(messages: Array(older.prefix(limit)), hasMore: older.count > limit)
        }
    }

    /// One of the test's users; `NOT_FOUND` for any other id.
    public func user(_ id: User.ID) async throws -> User {
        try storage.records.withLock { records in
            guard let user = records.users.first(where: { $0.id == id }) else {
                throw ChatterAPIError(code: .notFound, message: "No user \(id).")
            }
            return user
        }
    }

    /// The test's user with this username, nil if none.
    public func user(named username: String) async throws -> User? {
        storage.records.withLock { records in records.users.first { $0.username == username } }
    }

    /// The bot's profile: its entry among the test's users (or one made from its identity) and its privacy.
    public func profile() async throws -> CurrentUser {
        storage.records.withLock { records in CurrentUser(user: records.me(bot), privacy: records.privacy) }
    }

    /// Changes the bot's entry among the users and its privacy.
    public func updateProfile(displayName: String?, privacy: PrivacySettings?) async throws -> User {
        storage.records.withLock { records in
            var me = records.me(bot)
            if let displayName { me.displayName = displayName }
            if let privacy { records.privacy = privacy }
            records.users.removeAll { $0.id == me.id }
            records.users.append(me)
            return me
        }
    }

    /// The group `id` if the bot may manage it (owner or admin), with the service's refusals.
    private static func managedGroup(_ id: Conversation.ID, in records: Records, by botId: User.ID) throws -> Conversation {
        guard let group = records.conversations[id], group.kind == .group else {
            throw ChatterAPIError(code: .notFound, message: "No group \(id).")
        }
        let role = group.members.first { $0.userId == botId }?.role
        guard role == .owner || role == .admin else {
            throw ChatterAPIError(code: .forbidden, message: "Only owners and admins manage a group.")
        }
        return group
    }

    /// The watermarks of the conversation given at `init` (its members) and recorded since (`recordReceipt`), with
    /// the bot's latest message: its last send here, or the conversation's last message when the bot sent it.
    public func readState(of conversationId: Conversation.ID) async -> ConversationReadState? {
        storage.records.withLock { records in
            let conversation = records.conversations[conversationId]
            let receipts = records.receipts[conversationId] ?? []
            guard conversation != nil || !receipts.isEmpty || records.seqs[conversationId] != nil else { return nil }
            var state = ConversationReadState(conversationId: conversationId)
            for member in conversation?.members ?? [] {
                state.merge(MemberWatermarks(
                    userId: member.userId, lastDeliveredSeq: member.lastDeliveredSeq, lastReadSeq: member.lastReadSeq))
            }
            for receipt in receipts { state.merge(receipt) }
            if let last = conversation?.lastMessage, last.senderId == bot.userId { state.noteOwnMessage(last.seq) }
            if let seq = records.seqs[conversationId] { state.noteOwnMessage(seq) }
            return state
        }
    }

    /// The presence the test set last for this user, nil if none.
    public func lastKnown(of userId: User.ID) async -> Presence? {
        storage.records.withLock { $0.presences[userId] }
    }
}
}
