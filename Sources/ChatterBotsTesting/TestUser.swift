import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization

/// A person in a bot test: a signed-in sandbox account with its own REST client and, while online, its own
/// realtime socket, on which the bot's messages arrive. Made by `BotTestHarness.user(_:)`.
///
/// ```swift
/// let alice = try await harness.user("alice")
/// try await alice.send("remind me in 10 minutes to stretch")
/// #expect(try await alice.nextText().hasPrefix("Okay, I'll remind you to stretch"))
/// ```
///
/// A user does what a person does in the app (send text and media, edit, delete, react, type, read, befriend,
/// unfriend) and sees what the bot does in return: its messages (`nextMessage`), its edits and deletions
/// (`nextEdit`, `nextDeletion`), its reactions (`nextReactionChange`), its typing (`nextTyping`) and its read
/// receipts (`waitUntilBotHasRead`). Everything the bot does arrives on the user's socket and is kept until the
/// test asks for it, so a test never races the bot.
public final class TestUser: Sendable {
    /// The account.
    public let user: User
    /// The REST client the user acts with (signed in on the user's own device).
    public let rest: ChatterRESTClient
    /// The account and the session of its device, as the sandbox created them.
    public let account: SeededAccount

    /// Strong: a user outlives nothing it needs. `BotTestHarness.stop()` lets go of its users, ending the cycle.
    let harness: BotTestHarness
    let observed = ObservedEvents()
    private let socket = Mutex<Socket?>(nil)
    private let directWithBot = Mutex<Conversation?>(nil)
    private let pingCount = Mutex<UInt64>(0)

    private struct Socket {
        let connection: ChatterRealtimeConnection
        let reader: Task<Void, Never>
    }

    init(account: SeededAccount, harness: BotTestHarness) {
        self.account = account
        self.user = account.user
        self.harness = harness
        self.rest = ChatterRESTClient(
            configuration: harness.sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: account.session.tokens),
            requestTimeouts: harness.configuration.restRequestTimeouts)
    }

    /// The account's id.
    public var id: User.ID { user.id }
    /// The account's username.
    public var username: String { user.username }
    /// Whether the user has a realtime socket open (is online for the bot).
    public var isOnline: Bool { socket.withLock { $0?.connection.isOpen ?? false } }

    // MARK: Talking to the bot

    /// The direct conversation of this user and the bot, opened by the user on first use.
    ///
    /// - Throws: the service's error, e.g. `NOT_FRIENDS` when the user is not the bot's friend.
    public func directConversation() async throws -> Conversation {
        if let known = directWithBot.withLock({ $0 }) { return known }
        let conversation = try await rest.directConversation(with: harness.botUser.id)
        directWithBot.withLock { $0 = conversation }
        return conversation
    }

    /// Sends `text` to the bot in their direct conversation; returns the message as the service stored it.
    @discardableResult
    public func send(_ text: String) async throws -> Message {
        try await send(text, in: try await directConversation())
    }

    /// Sends `text` in `conversation` (a group made by `BotTestHarness.group`); returns the stored message.
    @discardableResult
    public func send(_ text: String, in conversation: Conversation) async throws -> Message {
        try await post(.text(text), in: conversation.id)
    }

    /// Uploads `data` as a file of `contentType`, then sends it as a media message with an optional caption, to
    /// the bot or in `conversation`; returns the message as the service stored it. Its kind follows the content
    /// type, as the contract says: image/* is a `.photo`, audio/* a `.voice` note, video/* a `.video`,
    /// application/pdf a `.document`.
    ///
    /// ```swift
    /// let photo = try await alice.sendMedia(pngBytes, contentType: "image/png", caption: "my cat")
    /// #expect(photo.kind == .photo)
    /// ```
    ///
    /// - Throws: the service's error when it refuses the upload: `VALIDATION_FAILED` for another content type,
    ///   `PAYLOAD_TOO_LARGE` above 10 MiB.
    @discardableResult
    public func sendMedia(
        _ data: Data, contentType: String, caption: String? = nil, in conversation: Conversation? = nil
    ) async throws -> Message {
        let conversationId = try await resolve(conversation)
        let upload = try await rest.uploadMedia(data, contentType: contentType)
        guard let kind = Message.Kind(mediaContentType: contentType) else {
            throw BotTestError.sandboxRefused(
                step: "send \(contentType) media", error: ChatterErrorBody(
                    code: .validationFailed, message: "\(contentType) is no media type a message can carry."))
        }
        return try await post(.media(kind, upload.mediaId, caption: caption), in: conversationId)
    }

    // MARK: Acting on messages and conversations

    /// Changes the text of one of this user's own messages to `body`; returns the message as edited. The bot
    /// gets it as an update of the message, handled once `settle()` returns (as `delete` and reactions are).
    ///
    /// - Throws: the service's `FORBIDDEN` for another sender's message.
    @discardableResult
    public func edit(_ message: Message, to body: String) async throws -> Message {
        try await rest.editMessage(message.id, in: message.conversationId, body: body)
    }

    /// Deletes one of this user's own messages for everyone; returns it as deleted (no body, no media).
    @discardableResult
    public func delete(_ message: Message) async throws -> Message {
        try await rest.deleteMessage(message.id, in: message.conversationId)
    }

    /// Reacts to any message of a conversation the user is in (the bot's or anyone's) with `emoji`; returns the
    /// message with its reactions. Reacting twice with the same emoji changes nothing.
    @discardableResult
    public func react(_ emoji: String, to message: Message) async throws -> Message {
        try await rest.addReaction(emoji, to: message.id, in: message.conversationId)
    }

    /// Takes back this user's `emoji` reaction to `message`; returns the message with its reactions.
    @discardableResult
    public func removeReaction(_ emoji: String, from message: Message) async throws -> Message {
        try await rest.removeReaction(emoji, from: message.id, in: message.conversationId)
    }

    /// Shows the bot (and the other members) that this user is typing in `conversation`, or to the bot. Like the
    /// app, the user must repeat it within 5 s of virtual time to keep typing: the service stops it after that.
    /// Returns once the service has handled it.
    ///
    /// - Throws: `BotTestError.userOffline` without a socket (typing goes over it); `.sandboxRefused` when the
    ///   service refuses it (the user is not a member).
    public func startTyping(in conversation: Conversation? = nil) async throws {
        let conversationId = try await resolve(conversation)
        try await sendOnSocket(.typingStart(conversationId: conversationId), step: "start typing in \(conversationId)")
    }

    /// Stops showing that this user is typing in `conversation`, or to the bot; returns once the service has
    /// handled it.
    ///
    /// - Throws: as `startTyping(in:)`.
    public func stopTyping(in conversation: Conversation? = nil) async throws {
        let conversationId = try await resolve(conversation)
        try await sendOnSocket(.typingStop(conversationId: conversationId), step: "stop typing in \(conversationId)")
    }

    /// Tells the service that this user's device has received its conversation up to `message`
    /// (`receipt.delivered`); returns once the service has moved the user's watermark.
    ///
    /// - Throws: as `startTyping(in:)`.
    public func markDelivered(upTo message: Message) async throws {
        try await sendOnSocket(
            .receiptDelivered(ReceiptPosition(conversationId: message.conversationId, seq: message.seq)),
            step: "mark \(message.conversationId) delivered up to seq \(message.seq)")
    }

    /// Tells the service that this user has read its conversation up to `message` (`receipt.read`, which implies
    /// delivered); returns once the service has moved the user's watermarks.
    ///
    /// - Throws: as `startTyping(in:)`.
    public func markRead(upTo message: Message) async throws {
        try await sendOnSocket(
            .receiptRead(ReceiptPosition(conversationId: message.conversationId, seq: message.seq)),
            step: "mark \(message.conversationId) read up to seq \(message.seq)")
    }

    // MARK: What the bot says

    /// Waits for the bot's next message to this user, in `conversation` or (nil) in any conversation, and takes
    /// it. Messages are taken in the order they arrived; each one once. Only messages that arrive on the user's
    /// socket count: one sent while the user was offline is not seen (the user does not sync).
    ///
    /// - Parameter timeout: real time to wait; by default the harness's `replyTimeout` (120 s).
    /// - Throws: `BotTestError.timedOut` naming the user and the conversation when no message came; a
    ///   `BotTestError.userOffline` when the user has no socket to receive it on.
    public func nextMessage(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> Message {
        let bot = harness.botUser.id
        return try await next(
            "the bot's next message to \(username)", in: conversation, timeout: timeout, from: observed.messages,
            conversationOf: \.conversationId, where: { $0.senderId == bot })
    }

    /// The text of the bot's next message to this user (see `nextMessage(in:timeout:)`): a media message's caption,
    /// "" for media without one (`nextMessage` tells its kind).
    public func nextText(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> String {
        try await nextMessage(in: conversation, timeout: timeout).body ?? ""
    }

    /// Lets the bot finish everything it has to do now (`BotTestHarness.settle()`), then takes every message of
    /// the bot to this user not taken yet, in `conversation` or anywhere: empty when the bot said nothing more.
    /// Use it to show that the bot stays silent.
    public func remainingMessages(in conversation: Conversation? = nil) async throws -> [Message] {
        try await harness.settle()
        let bot = harness.botUser.id
        return observed.messages.takeAll { $0.senderId == bot && (conversation == nil || $0.conversationId == conversation?.id) }
    }

    // MARK: Friends

    /// Sends the bot a friend request from this user; the bot decides it by its policy (the harness's
    /// `friendRequests`, or the bot's own `onFriendRequest`), and has once `settle()` returns.
    @discardableResult
    public func sendFriendRequest() async throws -> FriendRequest {
        try await rest.sendFriendRequest(to: .userId(harness.botUser.id))
    }

    /// Whether this user and the bot are friends now.
    public func isFriendOfBot() async throws -> Bool {
        try await rest.friends().contains { $0.user.id == harness.botUser.id }
    }

    /// Ends this user's friendship with the bot; both get `friend.removed`, which the bot handles in
    /// `onFriendRemoved` when it knew of the friendship (a friendship made by `harness.user` is news to it until it
    /// looks). Wait for the outcome with `harness.waitUntil`.
    public func unfriendBot() async throws {
        try await rest.removeFriend(harness.botUser.id)
    }

    /// Withdraws this user's pending friend request to the bot; the bot gets `friend_request.cancelled`
    /// (`onFriendRequestCancelled`). Returns the request withdrawn, or nil when none was pending (the bot had
    /// decided it already).
    @discardableResult
    public func cancelFriendRequest() async throws -> FriendRequest? {
        let bot = harness.botUser.id
        guard let request = try await rest.friendRequests().outgoing.first(where: { $0.toUser.id == bot }) else { return nil }
        try await rest.cancelFriendRequest(request.id)
        return request
    }

    // MARK: Presence

    /// Opens the user's realtime socket, so the bot's messages arrive, and, when the user is the bot's friend,
    /// waits until the bot has heard that the user came online and has handled it (`onPresenceChanged`). Does
    /// nothing when already online.
    public func goOnline() async throws {
        guard !isOnline else { return }
        // Real-time timeouts as long as the harness waits: the user's socket is the test's instrument, not code under
        // test.
        let connection = try await ChatterRealtimeConnection.connect(
            configuration: harness.sandbox.serverConfiguration, accessToken: account.session.tokens.accessToken,
            options: harness.configuration.userConnectionOptions)
        let observed = observed
        let reader = Task {
            for await event in connection.events {
                if case .frame(let frame) = event { observed.record(frame) }
            }
        }
        let previous = socket.withLock { socket -> Socket? in
            defer { socket = Socket(connection: connection, reader: reader) }
            return socket
        }
        previous?.reader.cancel()
        if harness.session != nil, try await isFriendOfBot() {
            try await harness.waitUntilBotSees(self, online: true)
        }
    }

    /// Closes the user's realtime socket. By default it then lets the sandbox's presence grace period pass on
    /// the virtual clock (`advance(by:)` 10 s, the documented grace) and, when the user is the bot's friend,
    /// waits until the bot has heard that the user went offline and handled it; with `waitingForPresence: false`
    /// only the socket closes (to test a reconnect within the grace period, which friends never hear of).
    public func goOffline(waitingForPresence: Bool = true) async throws {
        guard await disconnect() else { return }
        guard waitingForPresence, harness.session != nil else { return }
        try await harness.advance(by: harness.configuration.realtime.presenceGracePeriod)
        if try await isFriendOfBot() { try await harness.waitUntilBotSees(self, online: false) }
    }

    /// Closes the socket without waiting for anything else (the harness stopping); false when it was closed already.
    @discardableResult
    func disconnect() async -> Bool {
        guard let current = socket.withLock({ socket -> Socket? in
            defer { socket = nil }
            return socket
        }) else { return false }
        _ = await current.connection.close()
        await current.reader.value
        return true
    }

    /// A round trip on the user's socket: events the sandbox sent before it have been observed afterwards.
    func flush() async {
        guard let connection = socket.withLock({ $0?.connection }), connection.isOpen else { return }
        try? await roundTrip(on: connection)
    }

    // MARK: Helpers

    /// The id of `conversation`, or of the direct conversation with the bot.
    private func resolve(_ conversation: Conversation?) async throws -> Conversation.ID {
        if let conversation { return conversation.id }
        return try await directConversation().id
    }

    /// Posts `content` with a fresh key and tells the harness, so that `settle()` waits until the bot read it.
    private func post(_ content: MessageContent, in conversationId: Conversation.ID) async throws -> Message {
        let message = try await rest.postMessage(content, clientMessageId: .random(), in: conversationId)
        observed.know(message)
        harness.noteSent(message, by: account.caller)
        return message
    }

    /// Sends a frame the service does not answer (typing, a receipt) and waits until the service has handled it:
    /// it handles a socket's frames in order, so once the `pong` of a later `ping` is read, so is any `error`.
    private func sendOnSocket(_ request: ClientRequest, step: String) async throws {
        guard let connection = socket.withLock({ $0?.connection }), connection.isOpen else {
            throw BotTestError.userOffline(username: username)
        }
        _ = observed.refusals.takeAll { _ in true }
        try await connection.send(request)
        try await roundTrip(on: connection)
        if let refusal = observed.refusals.takeAll(where: { _ in true }).first {
            throw BotTestError.sandboxRefused(step: step, error: refusal)
        }
    }

    /// Sends a `ping` with an `id` of the user's own and waits until its `pong` has been read by the socket's
    /// reader, after every frame the service sent before it.
    private func roundTrip(on connection: ChatterRealtimeConnection) async throws {
        let number = pingCount.withLock { count -> UInt64 in
            count += 1
            return count
        }
        let id = "flush-\(number)"
        let pongs = observed.pongs
        try await withRealTimeLimit(harness.configuration.replyTimeout, awaiting: "the sandbox to answer \(username)'s ping") {
            try await connection.send(.ping, id: id)
            _ = try await pongs.take { $0 == id }
        }
    }

    /// Waits for the first item in `inbox` that `matches`, in `conversation` or anywhere, and takes it; fails after
    /// `timeout` (by default the harness's `replyTimeout`) saying it awaited `what` in that place.
    func next<Item: Sendable>(
        _ what: String, in conversation: Conversation?, timeout: Duration?, from inbox: Inbox<Item>,
        conversationOf: @escaping @Sendable (Item) -> Conversation.ID, where matches: @escaping @Sendable (Item) -> Bool
    ) async throws -> Item {
        guard isOnline else { throw BotTestError.userOffline(username: username) }
        let conversationId = conversation?.id
        let place = conversation.map { $0.title.map { "group \"\($0)\"" } ?? "conversation \($0.id)" } ?? "any conversation"
        let harness = harness
        return try await withRealTimeLimit(
            timeout ?? harness.configuration.replyTimeout, awaiting: "\(what) in \(place)", meanwhile: { harness.errorsLogged }
        ) {
            try await inbox.take { (conversationId == nil || conversationOf($0) == conversationId) && matches($0) }
        }
    }
}
