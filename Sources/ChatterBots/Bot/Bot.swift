/// A bot: the handlers the runtime calls for what happens to the bot's account. Every handler has a
/// default that does nothing, so a bot implements only what it cares about:
///
/// ```swift
/// struct EchoBot: Bot {
///     func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
///         try await context.reply(to: message, "echo: \(message.text)")
///     }
/// }
/// ```
///
/// How the runtime calls handlers:
/// - Messages of one conversation are handled one at a time in `seq` order, each exactly once as far as
///   the bot can tell: deduplicated by id, and the sends of a handler that runs again after a crash get
///   the same `clientMessageId`s (see `BotContext.reply(to:with:)`), so they are not sent twice.
///   Different conversations are handled concurrently (up to a bound); keep in-memory state in an actor
///   or, better, in `BotContext` state.
/// - The state changes, sends and schedules a handler makes are committed in one transaction when it
///   returns. If it throws, they are discarded and the runtime logs the error.
/// - Every handler must return promptly: a slow handler delays its conversation only, never heartbeats
///   or other bots, but it does hold up the next message of its conversation.
/// - The bot's own messages (sent from any of its devices) are not delivered to `onMessage`, nor are
///   messages deleted for everyone before the bot handled them (one it missed while offline, or an edit's
///   parked copy): they count as handled, so nothing answers a message its sender took back.
///
/// A handler's name must match exactly; a misspelled handler is a new method and the default runs.
public protocol Bot: Sendable {
    /// Once per process start, after the bot signed in and before any event; schedule jobs or set up
    /// state here.
    func onStart(context: any BotContext) async throws

    /// After every (re)connect, once the session is ready, the presence snapshot is in and the sync is done.
    func onReady(_ session: SessionReady, context: any BotContext) async throws

    /// A new message from someone else, in `seq` order per conversation.
    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws

    /// A message was edited, deleted for everyone (`deletedAt` set) or its reactions changed: the whole message
    /// as it is now. Runs first for every update; `onMessageEdited`, `onMessageDeleted` and `onReactionsChanged`
    /// then say what changed, in the same unit of work (a throw in any discards them all).
    ///
    /// Like messages, each update is handled once while connected, even when its frame comes twice. Messages have
    /// no version number, so an update is known by the state it leaves the message in: one that returns a message
    /// to a state handled before (a reaction taken off and put back) is handled again when the service says the
    /// message is in that state now, and in doubt (the service cannot be asked); its sends get clientMessageIds of
    /// their own. A return that the message already left again before its frame arrived is not handled; the next
    /// update then says what changed since the last one handled. So does an update that the message's next replaced
    /// while both waited for the conversation's earlier work. Changes made while the bot was offline are not
    /// replayed (the sync returns only new messages): page back with
    /// `context.service.history(of:)` for the current state when it matters. The bot's own edits and reactions
    /// reach these handlers too; compare `message.senderId` or the reactions' users with `context.bot.userId`.
    func onMessageUpdated(_ message: Message, context: any BotContext) async throws

    /// A message was edited: `message` has the new text; `previousBody` is the text before the edit, nil when
    /// the bot does not know it (the message came before the bot's last start, or it had no text). For a message
    /// the bot knows no earlier version of, any update with `editedAt` set reaches this handler.
    func onMessageEdited(_ message: Message, previousBody: String?, context: any BotContext) async throws

    /// A message was deleted for everyone (`message.deletedAt` is set).
    func onMessageDeleted(_ message: Message, context: any BotContext) async throws

    /// Reactions on a message changed: `added` and `removed` hold one entry per emoji with the users who added or
    /// removed it; `message.reactions` has them all now. The first change the bot sees after being offline is
    /// compared with the message as the bot last saw it, so it may include reactions made meanwhile; for a message
    /// the bot knows no earlier version of, every reaction it has counts as added.
    func onReactionsChanged(
        _ message: Message, added: [Message.Reaction], removed: [Message.Reaction], context: any BotContext
    ) async throws

    /// A friend request to the bot. Return what to do; the default defers to the bot's configured policy.
    func onFriendRequest(_ request: FriendRequest, context: any BotContext) async throws -> FriendRequestDecision

    /// A friendship began (either side accepted a request).
    func onFriendAdded(_ friend: Friend, context: any BotContext) async throws

    /// A friendship ended.
    func onFriendRemoved(_ userId: User.ID, context: any BotContext) async throws

    /// A person withdrew the friend request they had sent the bot (`friend_request.cancelled`).
    func onFriendRequestCancelled(_ requestId: FriendRequest.ID, context: any BotContext) async throws

    /// A friend changed their profile (`user.updated`): display name, avatar.
    func onUserUpdated(_ user: User, context: any BotContext) async throws

    /// The presence of all friends, after every connect.
    func onPresenceSnapshot(_ presences: [Presence], context: any BotContext) async throws

    /// A friend came online or went offline (best effort: changes can be missed, and of those waiting for a slow
    /// handler only the first and the latest run; the next snapshot is whole).
    func onPresenceChanged(_ presence: Presence, context: any BotContext) async throws

    /// Another member's delivered or read watermark moved (`receipt.updated`; or, for a read while the bot was
    /// disconnected, the refresh and sync after the reconnect). Best effort: receipts can be missed, a repeated or late one is not
    /// passed on, of a member's moves waiting for a slow handler only the first and the latest run, and the first
    /// sync of a process finds no move (nothing known before it);
    /// `context.presence.readState(of:)` has the latest values. The bot's own receipts (from any of its devices) are
    /// not passed on.
    func onReadStateChanged(_ receipt: ReceiptUpdate, context: any BotContext) async throws

    /// Another member started or stopped typing (`typing`). Best effort: events can be dropped (of a member's events
    /// waiting for a slow handler, only the first and the latest run), and the service ends typing by itself 5 s
    /// after the last `typing.start`.
    func onTyping(_ typing: TypingIndicator, context: any BotContext) async throws

    /// Someone started a conversation with the bot (or added it to a group).
    func onConversationCreated(_ conversation: Conversation, context: any BotContext) async throws

    /// A conversation's title, avatar, members or roles changed (live, or while the bot was offline: a new message
    /// alone does not call it).
    func onConversationUpdated(_ conversation: Conversation, context: any BotContext) async throws

    /// The bot was removed from a group. Messages and edits of the group that still arrive afterwards (a sync or a
    /// fetch under way at the removal) are not handed to the bot, until it is added back.
    func onConversationRemoved(_ conversationId: Conversation.ID, context: any BotContext) async throws

    /// A job the bot scheduled is due (`job.dueAt` is this occurrence). A repeating job is rescheduled
    /// when the handler returns; a job missed while the bot was down runs once, late.
    func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws
}

/// What to do with an incoming friend request.
public enum FriendRequestDecision: Hashable, Sendable {
    /// Accept: the sender becomes a friend and can message the bot.
    case accept
    /// Decline: the request is gone and the sender is not told.
    case decline
    /// Leave the request pending; the bot may accept or decline it later.
    case ignore
    /// Do what the bot's configuration says (for example accept everyone, or ignore).
    case useConfiguredPolicy
}

extension Bot {
    /// Does nothing: a bot implements only the handlers it needs.
    public func onStart(context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onReady(_ session: SessionReady, context: any BotContext) async throws {}
    /// Does nothing: a bot that only reacts to friends or schedules need not read messages.
    public func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onMessageUpdated(_ message: Message, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onMessageEdited(_ message: Message, previousBody: String?, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onMessageDeleted(_ message: Message, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onReactionsChanged(
        _ message: Message, added: [Message.Reaction], removed: [Message.Reaction], context: any BotContext
    ) async throws {}
    /// Defers to the configured policy, so the runtime's configuration decides unless the bot overrides this.
    public func onFriendRequest(_ request: FriendRequest, context: any BotContext) async throws -> FriendRequestDecision {
        .useConfiguredPolicy
    }
    /// Does nothing: a bot implements only the handlers it needs.
    public func onFriendAdded(_ friend: Friend, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onFriendRemoved(_ userId: User.ID, context: any BotContext) async throws {}
    /// Does nothing.
    public func onFriendRequestCancelled(_ requestId: FriendRequest.ID, context: any BotContext) async throws {}
    /// Does nothing.
    public func onUserUpdated(_ user: User, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onPresenceSnapshot(_ presences: [Presence], context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onPresenceChanged(_ presence: Presence, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onReadStateChanged(_ receipt: ReceiptUpdate, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onTyping(_ typing: TypingIndicator, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onConversationCreated(_ conversation: Conversation, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onConversationUpdated(_ conversation: Conversation, context: any BotContext) async throws {}
    /// Does nothing: a bot implements only the handlers it needs.
    public func onConversationRemoved(_ conversationId: Conversation.ID, context: any BotContext) async throws {}
    /// Does nothing: only a bot that schedules jobs has to run them.
    public func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws {}
}
