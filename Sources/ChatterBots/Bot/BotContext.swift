/// What a bot can do while handling an event: message, keep state, schedule jobs, manage friends, look
/// things up, log. The runtime gives each handler call a context; tests use `RecordingBotContext`.
///
/// Transactions: state changes, sends and schedules made during a handler are committed together when
/// the handler returns (discarded if it throws). Reads see the handler's own uncommitted writes. Friend
/// actions and look-ups are REST calls made at once; they are not part of the transaction.
///
/// Exactly-once sends: every send made while handling a message gets a `clientMessageId` derived from
/// (bot, incoming message id, index of the send in that handler run) — see
/// `ClientMessageID.derived(bot:handling:index:)`; sends while handling a scheduled job derive it from
/// the job and its occurrence number. A handler that runs again after a crash therefore sends nothing twice, as
/// long as it sends the same things in the same order. Sends outside those handlers get random ids.
public protocol BotContext: Sendable {
    /// Who the bot is.
    var bot: BotIdentity { get }

    /// The current time from the runtime's injected clock (virtual in tests); use it instead of `Date()`.
    var now: Date { get }

    /// A logger labelled with the bot, with fields for the current event.
    var logger: BotLogger { get }

    /// Sends `content` to a conversation: writes it to the durable outbox and returns at once. The
    /// frame goes out when the handler's work is committed.
    func send(_ content: MessageContent, to conversationId: Conversation.ID) async throws -> OutgoingMessage

    /// Sends `content` to the conversation of `message`. Like every send of a handler run, its
    /// `clientMessageId` is derived from the bot, the event being handled (outside any handler: `message`)
    /// and the index of the send, so re-handling `message` never replies twice.
    /// (To quote the message, set `content.replyToId`; `reply(to:_:quoting:)` does it for text.)
    func reply(to message: IncomingMessage, with content: MessageContent) async throws -> OutgoingMessage

    /// Shows or hides "typing…" in a conversation (best effort). While shown, the runtime repeats
    /// `typing.start` every 3 s; it stops when the bot sends there, calls this with false, or the handler returns.
    func setTyping(_ isTyping: Bool, in conversationId: Conversation.ID) async throws

    /// The stored JSON of a state key, or nil. Prefer the typed `state(_:in:)`.
    func stateData(for key: String, in scope: StateScope) async throws -> Data?

    /// Stores (or, with nil, removes) the JSON of a state key. Prefer the typed `setState(_:for:in:)`.
    func setStateData(_ data: Data?, for key: String, in scope: StateScope) async throws

    /// Schedules a job due at `date` (run at once if it is in the past). Part of the handler's transaction.
    func scheduleJob(named name: String, at date: Date, repeating rule: RepeatRule?, payload: JSONValue) async throws -> ScheduledJob

    /// Cancels a job; cancelling a job that does not exist (any more) does nothing.
    func cancelJob(_ id: ScheduledJob.ID) async throws

    /// The bot's scheduled jobs, soonest first.
    func scheduledJobs() async throws -> [ScheduledJob]

    /// The bot's friends.
    func friends() async throws -> [Friend]

    /// Pending friend requests to and from the bot.
    func friendRequests() async throws -> FriendRequestList

    /// Accepts a request to the bot and returns the new friend.
    func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend

    /// Declines a request to the bot (the sender is not told).
    func declineFriendRequest(_ id: FriendRequest.ID) async throws

    /// Sends a friend request, by user id or username.
    func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest

    /// Withdraws a friend request the bot sent (the recipient gets `friend_request.cancelled`).
    func cancelFriendRequest(_ id: FriendRequest.ID) async throws

    /// Ends a friendship.
    func removeFriend(_ userId: User.ID) async throws

    /// The direct conversation with a friend, created if needed.
    func directConversation(with userId: User.ID) async throws -> Conversation

    /// A conversation the bot is a member of.
    func conversation(_ id: Conversation.ID) async throws -> Conversation

    /// The bot's conversations changed after `updatedSince` (every one when nil), oldest change first, at most
    /// 100: pass the last one's `updatedAt` to read on.
    func conversations(updatedSince: Timestamp?) async throws -> [Conversation]

    /// Creates a group owned by the bot with `memberIds` (who must be the bot's friends) as its other members.
    func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation

    /// Adds the bot's friends to a group the bot owns or administers; returns the group as it is now.
    func addMembers(_ userIds: [User.ID], to conversationId: Conversation.ID) async throws -> Conversation

    /// Removes a member from a group the bot owns or administers (they get `conversation.removed`).
    func removeMember(_ userId: User.ID, from conversationId: Conversation.ID) async throws

    /// The bot leaves a group: it gets no more of its messages.
    func leaveConversation(_ conversationId: Conversation.ID) async throws

    /// Mutes or unmutes a conversation for the bot (a muted conversation sends the bot's devices no pushes).
    func setMuted(_ muted: Bool, conversation conversationId: Conversation.ID) async throws

    /// The last known presence of a friend (from the snapshot and later changes); nil if unknown.
    func presence(of userId: User.ID) async -> Presence?

    // MARK: Read state (see BotContext+ReadState.swift)

    /// How far each member has received and read `conversationId`, as the bot last heard (the sync after each
    /// connect, conversation objects, `receipt.updated`), with the bot's own latest message there; nil when the bot
    /// heard nothing of it. No request to the service.
    func readState(of conversationId: Conversation.ID) async -> ConversationReadState?
}

/// Who a bot is: its configured name and its Chatter account.
public struct BotIdentity: Hashable, Sendable, Codable {
    /// The name the bot has in the configuration (e.g. `reminder`).
    public var name: String
    /// The bot's own account, e.g. to tell its own messages from others' in a group.
    public var userId: User.ID

    /// An identity from the configured name and the account the bot signed in as.
    public init(name: String, userId: User.ID) {
        self.name = name
        self.userId = userId
    }
}

/// Where a piece of bot state lives: one value for the whole bot, per user, or per conversation.
public enum StateScope: Hashable, Sendable {
    /// One value for the whole bot, e.g. a counter of messages handled.
    case global
    /// One value per person, whatever the conversation, e.g. a user's preferred language.
    case user(User.ID)
    /// One value per conversation, e.g. a group's settings.
    case conversation(Conversation.ID)

    /// A stable text form for storage: `global`, `user:<id>`, `conversation:<id>`.
    public var storageKey: String {
        switch self {
        case .global: "global"
        case .user(let id): "user:\(id.rawValue)"
        case .conversation(let id): "conversation:\(id.rawValue)"
        }
    }
}

/// A typed key of bot state: `static let greeted = StateKey<Bool>("greeted")`.
public struct StateKey<Value: Codable & Sendable>: Hashable, Sendable {
    /// The name the value is stored under; keep it stable, or stored values are lost to the bot.
    public let name: String

    /// A key named `name`, unique among the bot's keys of the same scope.
    public init(_ name: String) { self.name = name }
}

extension BotContext {
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

    /// The value of `key` in `scope`, or nil when none is stored.
    public func state<Value>(_ key: StateKey<Value>, in scope: StateScope = .global) async throws -> Value? {
        guard let data = try await stateData(for: key.name, in: scope) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    /// Stores `value` under `key` in `scope` (as JSON).
    public func setState<Value>(_ value: Value, for key: StateKey<Value>, in scope: StateScope = .global) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await setStateData(try encoder.encode(value), for: key.name, in: scope)
    }

    /// Removes `key` from `scope`.
    public func removeState<Value>(_ key: StateKey<Value>, in scope: StateScope = .global) async throws {
        try await setStateData(nil, for: key.name, in: scope)
    }

    /// Schedules a job at `date`, with a typed payload.
    @discardableResult
    public func schedule(
        _ name: String, at date: Date, repeating rule: RepeatRule? = nil, payload: some Encodable & Sendable = JSONValue.null
    ) async throws -> ScheduledJob {
        try await scheduleJob(named: name, at: date, repeating: rule, payload: try JSONValue(encoding: payload))
    }

    /// Schedules a job `delay` from `now`, with a typed payload.
    @discardableResult
    public func schedule(
        _ name: String, after delay: Duration, repeating rule: RepeatRule? = nil, payload: some Encodable & Sendable = JSONValue.null
    ) async throws -> ScheduledJob {
        let due = Timestamp(now).advanced(by: delay).date
        return try await scheduleJob(named: name, at: due, repeating: rule, payload: try JSONValue(encoding: payload))
    }
}
