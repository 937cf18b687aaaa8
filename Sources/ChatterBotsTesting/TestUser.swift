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
public final class TestUser: Sendable {
    /// The account.
    public let user: User
    /// The REST client the user acts with (signed in on the user's own device).
    public let rest: ChatterRESTClient
    /// The account and the session of its device, as the sandbox created them.
    public let account: SeededAccount

    /// Strong: a user outlives nothing it needs. `BotTestHarness.stop()` lets go of its users, ending the cycle.
    private let harness: BotTestHarness
    private let inbox = MessageInbox()
    private let socket = Mutex<Socket?>(nil)
    private let directWithBot = Mutex<Conversation?>(nil)

    private struct Socket {
        let connection: ChatterRealtimeConnection
        let reader: Task<Void, Never>
    }

    init(account: SeededAccount, harness: BotTestHarness) {
        self.account = account
        self.user = account.user
        self.harness = harness
        self.rest = ChatterRESTClient(
            configuration: harness.sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: account.session.tokens))
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
        let message = try await rest.postMessage(.text(text), clientMessageId: .random(), in: conversation.id)
        harness.noteSent(message, by: account.caller)
        return message
    }

    /// Waits for the bot's next message to this user, in `conversation` or (nil) in any conversation, and takes
    /// it. Messages are taken in the order they arrived; each one once. Only messages that arrive on the user's
    /// socket count: one sent while the user was offline is not seen (the user does not sync).
    ///
    /// - Parameter timeout: real time to wait; by default the harness's `replyTimeout` (10 s).
    /// - Throws: `BotTestError.timedOut` naming the user and the conversation when no message came; a
    ///   `BotTestError.userOffline` when the user has no socket to receive it on.
    public func nextMessage(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> Message {
        guard isOnline else { throw BotTestError.userOffline(username: username) }
        let bot = harness.botUser.id
        let conversationId = conversation?.id
        let place = conversation.map { $0.title.map { "group \"\($0)\"" } ?? "conversation \($0.id)" } ?? "any conversation"
        let inbox = inbox
        return try await withRealTimeLimit(
            timeout ?? harness.configuration.replyTimeout,
            awaiting: "the bot's next message to \(username) in \(place)"
        ) {
            try await inbox.take { $0.senderId == bot && (conversationId == nil || $0.conversationId == conversationId) }
        }
    }

    /// The text of the bot's next message to this user (see `nextMessage(in:timeout:)`).
    public func nextText(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> String {
        try await nextMessage(in: conversation, timeout: timeout).body ?? ""
    }

    /// Lets the bot finish everything it has to do now (`BotTestHarness.settle()`), then takes every message of
    /// the bot to this user not taken yet, in `conversation` or anywhere: empty when the bot said nothing more.
    /// Use it to show that the bot stays silent.
    public func remainingMessages(in conversation: Conversation? = nil) async throws -> [Message] {
        try await harness.settle()
        let bot = harness.botUser.id
        return inbox.takeAll { $0.senderId == bot && (conversation == nil || $0.conversationId == conversation?.id) }
    }

    // MARK: Friends

    /// Sends the bot a friend request from this user; the bot decides it by its policy (the harness's
    /// `friendRequests`, or the bot's own `onFriendRequest`). Follow with `harness.settle()` and `isFriendOfBot()`.
    @discardableResult
    public func sendFriendRequest() async throws -> FriendRequest {
        try await rest.sendFriendRequest(to: .userId(harness.botUser.id))
    }

    /// Whether this user and the bot are friends now.
    public func isFriendOfBot() async throws -> Bool {
        try await rest.friends().contains { $0.user.id == harness.botUser.id }
    }

    // MARK: Presence

    /// Opens the user's realtime socket, so the bot's messages arrive, and, when the user is the bot's friend,
    /// waits until the bot has heard that the user came online and has handled it (`onPresenceChanged`). Does
    /// nothing when already online.
    public func goOnline() async throws {
        guard !isOnline else { return }
        // Real-time timeouts: the user's socket is the test's instrument, not code under test.
        let connection = try await ChatterRealtimeConnection.connect(
            configuration: harness.sandbox.serverConfiguration, accessToken: account.session.tokens.accessToken,
            options: RealtimeConnectionOptions(clock: SystemClock()))
        let inbox = inbox
        let reader = Task {
            for await event in connection.events {
                if case .frame(let frame) = event, case .messageNew(let message) = frame.event {
                    inbox.deliver(message)
                }
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

    /// A round trip on the user's socket: events the sandbox sent before it are in the inbox afterwards.
    func flush() async {
        guard let connection = socket.withLock({ $0?.connection }), connection.isOpen else { return }
        try? await connection.ping(timeout: .seconds(5))
    }
}
