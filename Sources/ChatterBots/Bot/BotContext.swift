/// What a bot can do while handling an event, grouped by when it takes effect. The runtime gives each handler
/// call a context; tests use `RecordingBotContext`.
///
/// - `messaging`, `state` and `jobs` belong to the handler's unit of work: what the handler sends, stores and
///   schedules is committed together when it returns and discarded when it throws. Reads see the handler's own
///   uncommitted writes. That is what makes a handler safe to run again after a crash: nothing is half done, and
///   the re-run derives the same message and job ids, so nothing is done twice.
/// - `service` calls the Chatter service at once (look-ups, friends, groups, history, the bot's profile). They are
///   reads or actions that are idempotent at the service, so they are not held back, and they are not undone when
///   the handler throws.
/// - `presence` reads what the session already knows; it changes nothing.
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

    /// Sends and typing, part of the handler's unit of work (`reply` and `send` are also on the context itself).
    var messaging: any BotMessaging { get }

    /// Calls to the Chatter service, made at once and not undone when the handler throws.
    var service: any BotService { get }

    /// The bot's stored state, part of the handler's unit of work.
    var state: any BotStateStore { get }

    /// The bot's scheduled jobs, part of the handler's unit of work.
    var jobs: any BotJobs { get }

    /// What the session knows of friends' presence.
    var presence: any BotPresence { get }
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
    /// Sends `content` to a conversation (see `BotMessaging.send(_:to:)`).
    @discardableResult
    public func send(_ content: MessageContent, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        try await messaging.send(content, to: conversationId)
    }

    /// Sends a text message to a conversation.
    @discardableResult
    public func send(_ text: String, to conversationId: Conversation.ID) async throws -> OutgoingMessage {
        try await messaging.send(.text(text), to: conversationId)
    }

    /// Sends `content` to the conversation of `message` (see `BotMessaging.reply(to:with:)`).
    @discardableResult
    public func reply(to message: IncomingMessage, with content: MessageContent) async throws -> OutgoingMessage {
        try await messaging.reply(to: message, with: content)
    }

    /// Replies with text in the conversation of `message`; with `quoting`, the reply quotes it.
    @discardableResult
    public func reply(to message: IncomingMessage, _ text: String, quoting: Bool = false) async throws -> OutgoingMessage {
        try await messaging.reply(to: message, with: .text(text, replyingTo: quoting ? message.id : nil))
    }
}
