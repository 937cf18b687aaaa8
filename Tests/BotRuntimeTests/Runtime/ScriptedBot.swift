import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import TestSupport

/// What a test bot's handlers were called with, in order, readable from the test while the bot runs.
final class BotProbe: Sendable {
    private struct Records {
        var messages: [Message] = []
        var jobs: [ChatterBots.ScheduledJob] = []
        var friendRequests: [FriendRequest] = []
        var friendsAdded: [Friend] = []
        var friendsRemoved: [User.ID] = []
        var readies = 0
        var starts = 0
        var acks: [MessageAck] = []
        var failures: [String] = []
        var conversationsCreated: [Conversation.ID] = []
        var conversationsRemoved: [Conversation.ID] = []
        var conversationsUpdated: [Conversation.ID] = []
        var updates: [Message] = []
        var presenceSnapshots = 0
        var cancelledRequests: [FriendRequest.ID] = []
        var updatedUsers: [User] = []
    }

    private let records = Mutex(Records())
    private let signals = Mutex<[ChangeSignal]>([])

    /// Signals `signal` after each call recorded from now on.
    func report(to signal: ChangeSignal) {
        signals.withLock { $0.append(signal) }
    }

    private func update(_ change: (inout Records) -> Void) {
        records.withLock { change(&$0) }
        for signal in signals.withLock({ $0 }) { signal.signal() }
    }

    var messages: [Message] { records.withLock { $0.messages } }
    var texts: [String] { messages.map { $0.body ?? "" } }
    var jobs: [ChatterBots.ScheduledJob] { records.withLock { $0.jobs } }
    var friendRequests: [FriendRequest] { records.withLock { $0.friendRequests } }
    var friendsAdded: [Friend] { records.withLock { $0.friendsAdded } }
    var friendsRemoved: [User.ID] { records.withLock { $0.friendsRemoved } }
    var readies: Int { records.withLock { $0.readies } }
    var starts: Int { records.withLock { $0.starts } }
    var acks: [MessageAck] { records.withLock { $0.acks } }
    var failures: [String] { records.withLock { $0.failures } }
    var conversationsCreated: [Conversation.ID] { records.withLock { $0.conversationsCreated } }
    var conversationsRemoved: [Conversation.ID] { records.withLock { $0.conversationsRemoved } }
    var conversationsUpdated: [Conversation.ID] { records.withLock { $0.conversationsUpdated } }
    var updates: [Message] { records.withLock { $0.updates } }
    var presenceSnapshots: Int { records.withLock { $0.presenceSnapshots } }
    var cancelledRequests: [FriendRequest.ID] { records.withLock { $0.cancelledRequests } }
    var updatedUsers: [User] { records.withLock { $0.updatedUsers } }

    func record(_ message: Message) { update { $0.messages.append(message) } }
    func record(_ job: ChatterBots.ScheduledJob) { update { $0.jobs.append(job) } }
    func record(_ request: FriendRequest) { update { $0.friendRequests.append(request) } }
    func recordAdded(_ friend: Friend) { update { $0.friendsAdded.append(friend) } }
    func recordRemoved(_ id: User.ID) { update { $0.friendsRemoved.append(id) } }
    func recordReady() { update { $0.readies += 1 } }
    func recordStart() { update { $0.starts += 1 } }
    func record(_ ack: MessageAck) { update { $0.acks.append(ack) } }
    func recordFailure(_ text: String) { update { $0.failures.append(text) } }
    func recordCreated(_ id: Conversation.ID) { update { $0.conversationsCreated.append(id) } }
    func recordRemoved(conversation id: Conversation.ID) { update { $0.conversationsRemoved.append(id) } }
    func recordUpdated(_ id: Conversation.ID) { update { $0.conversationsUpdated.append(id) } }
    func recordUpdate(_ message: Message) { update { $0.updates.append(message) } }
    func recordSnapshot() { update { $0.presenceSnapshots += 1 } }
    func recordCancelled(_ id: FriendRequest.ID) { update { $0.cancelledRequests.append(id) } }
    func recordUpdated(_ user: User) { update { $0.updatedUsers.append(user) } }
}

/// A bot whose handlers record their calls in a probe and then run what the test scripted (by default: echo).
struct ScriptedBot: Bot {
    typealias MessageScript = @Sendable (IncomingMessage, any BotContext) async throws -> Void
    typealias JobScript = @Sendable (ChatterBots.ScheduledJob, any BotContext) async throws -> Void
    typealias StartScript = @Sendable (any BotContext) async throws -> Void
    typealias UserUpdatedScript = @Sendable (User, any BotContext) async throws -> Void
    typealias ConversationScript = @Sendable (Conversation, any BotContext) async throws -> Void

    let probe: BotProbe
    var onMessageScript: MessageScript = { message, context in
        try await context.reply(to: message, "echo: \(message.text)")
    }
    var onJobScript: JobScript = { _, _ in }
    var onStartScript: StartScript = { _ in }
    var onReadyScript: StartScript = { _ in }
    var onUserUpdatedScript: UserUpdatedScript = { _, _ in }
    var onConversationUpdatedScript: ConversationScript = { _, _ in }
    var friendRequestDecision: FriendRequestDecision = .useConfiguredPolicy

    init(probe: BotProbe) {
        self.probe = probe
    }

    /// A bot that records its messages and answers none.
    static func silent(probe: BotProbe) -> ScriptedBot {
        var bot = ScriptedBot(probe: probe)
        bot.onMessageScript = { _, _ in }
        return bot
    }

    func onStart(context: any BotContext) async throws {
        probe.recordStart()
        try await onStartScript(context)
    }

    func onReady(_ session: SessionReady, context: any BotContext) async throws {
        probe.recordReady()
        try await onReadyScript(context)
    }

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        probe.record(message.message)
        try await onMessageScript(message, context)
    }

    func onScheduledJob(_ job: ChatterBots.ScheduledJob, context: any BotContext) async throws {
        probe.record(job)
        try await onJobScript(job, context)
    }

    func onFriendRequest(_ request: FriendRequest, context: any BotContext) async throws -> FriendRequestDecision {
        probe.record(request)
        return friendRequestDecision
    }

    func onFriendAdded(_ friend: Friend, context: any BotContext) async throws {
        probe.recordAdded(friend)
    }

    func onFriendRemoved(_ userId: User.ID, context: any BotContext) async throws {
        probe.recordRemoved(userId)
    }

    func onConversationCreated(_ conversation: Conversation, context: any BotContext) async throws {
        probe.recordCreated(conversation.id)
    }

    func onConversationUpdated(_ conversation: Conversation, context: any BotContext) async throws {
        probe.recordUpdated(conversation.id)
        try await onConversationUpdatedScript(conversation, context)
    }

    func onConversationRemoved(_ conversationId: Conversation.ID, context: any BotContext) async throws {
        probe.recordRemoved(conversation: conversationId)
    }

    func onMessageUpdated(_ message: Message, context: any BotContext) async throws {
        probe.recordUpdate(message)
    }

    func onPresenceSnapshot(_ presences: [Presence], context: any BotContext) async throws {
        probe.recordSnapshot()
    }

    func onFriendRequestCancelled(_ requestId: FriendRequest.ID, context: any BotContext) async throws {
        probe.recordCancelled(requestId)
    }

    func onUserUpdated(_ user: User, context: any BotContext) async throws {
        probe.recordUpdated(user)
        try await onUserUpdatedScript(user, context)
    }
}

/// Log records of a test, searchable.
final class LogCollector: Sendable {
    private let records = Mutex<[LogRecord]>([])
    private let changes: ChangeSignal?

    /// A collector that signals `changes` (if given) after each record.
    init(changes: ChangeSignal? = nil) {
        self.changes = changes
    }

    var sink: LogSink {
        LogSink(minimumLevel: .trace) { [self] record in
            records.withLock { $0.append(record) }
            changes?.signal()
        }
    }

    var all: [LogRecord] { records.withLock { $0 } }

    func records(trace: String) -> [LogRecord] { all.filter { $0.trace == trace } }

    func contains(_ level: LogLevel, _ text: String) -> Bool {
        all.contains { $0.level == level && $0.message.contains(text) }
    }
}
