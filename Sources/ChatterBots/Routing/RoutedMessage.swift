/// What a router handler gets: the incoming message, the context to act in, and what the route read from
/// the text (command arguments, pattern captures). Reads like the message itself (`message.text`,
/// `message.senderId`, `message.conversationId`).
///
/// ```swift
/// router.command("ping", summary: "check that I am here") { message in
///     try await message.reply("pong")
/// }
/// ```
@dynamicMemberLookup
public struct RoutedMessage: Sendable {
    /// The message as the runtime delivered it.
    public var incoming: IncomingMessage
    /// The context of the handler call: send, state, schedules, friends.
    public var context: any BotContext
    /// The context's logger; middleware may add fields (the logging middleware adds `trace`), so log here
    /// rather than through `context.logger`.
    public var logger: BotLogger
    /// The arguments of the matched command; empty for other routes.
    public internal(set) var arguments: CommandArguments
    /// The groups of the matched pattern; empty for other routes.
    public internal(set) var captures: PatternCaptures
    /// The names of the dialogs registered with the router, so starting another one fails at once.
    let registeredDialogs: Set<String>

    init(_ incoming: IncomingMessage, context: any BotContext, registeredDialogs: Set<String>) {
        self.incoming = incoming
        self.context = context
        self.logger = context.logger
        self.arguments = .none
        self.captures = PatternCaptures()
        self.registeredDialogs = registeredDialogs
    }

    /// Any property of the incoming message, so `message.senderId` reads as on `Message`.
    public subscript<Value>(dynamicMember keyPath: KeyPath<IncomingMessage, Value>) -> Value {
        incoming[keyPath: keyPath]
    }

    /// Replies with text in the message's conversation (see `BotContext.reply(to:_:quoting:)`).
    @discardableResult
    public func reply(_ text: String, quoting: Bool = false) async throws -> OutgoingMessage {
        try await context.reply(to: incoming, text, quoting: quoting)
    }

    /// Starts `dialog` for the sender in this conversation, replacing any dialog active there, and asks
    /// its first question. Its state lives in the context, so it survives restarts.
    /// - Parameter values: what the dialog starts with; nil for the dialog's `initialValues`.
    /// - Throws: `RoutingError.unregisteredDialog` when the router does not know `dialog`.
    public func startDialog<Values>(_ dialog: Dialog<Values>, with values: Values? = nil) async throws {
        guard registeredDialogs.contains(dialog.name) else { throw RoutingError.unregisteredDialog(dialog.name) }
        try await dialog.start(with: values ?? dialog.initialValues, for: self)
    }

    /// Ends the sender's active dialog in this conversation, if any, without a reply.
    public func endDialog() async throws {
        try await context.state.remove(ActiveDialog.key(for: incoming.conversationId), in: .user(incoming.senderId))
    }
}
