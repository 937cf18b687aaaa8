import Foundation
import Testing

@testable import ChatterBots

/// The brief's example bot.
struct EchoBot: Bot {
    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        try await context.reply(to: message, "echo: \(message.text)")
    }
}

/// Accepts friends whose username ends in `_friend`, counts messages per user, reminds on request.
struct ReminderBot: Bot {
    static let messageCount = StateKey<Int>("messageCount")
    static let reminder = JobKind<Reminder>("reminder")
    struct Reminder: Codable, Sendable, Equatable {
        var conversationId: Conversation.ID
        var text: String
    }

    func onFriendRequest(_ request: FriendRequest, context: any BotContext) async throws -> FriendRequestDecision {
        request.fromUser.username.hasSuffix("_friend") ? .accept : .ignore
    }

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        let count = try await context.state.value(Self.messageCount, in: .user(message.senderId)) ?? 0
        try await context.state.set(count + 1, for: Self.messageCount, in: .user(message.senderId))
        if message.text.hasPrefix("remind me ") {
            let text = String(message.text.dropFirst("remind me ".count))
            try await context.jobs.schedule(Self.reminder, after: .seconds(600), payload: Reminder(conversationId: message.conversationId, text: text))
            try await context.reply(to: message, "OK, in 10 minutes.", quoting: true)
            context.logger.info("reminder scheduled", ["user": message.senderId.rawValue])
        }
    }

    func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws {
        guard let reminder = try job.payload(of: Self.reminder) else { return }
        try await context.send("⏰ \(reminder.text)", to: reminder.conversationId)
    }
}

private func incoming(_ text: String, id: Message.ID = "M1", from sender: User.ID = "U1", in conversation: Conversation.ID = "C1") -> Message {
    Message(
        id: id, conversationId: conversation, seq: 7, senderId: sender, clientMessageId: .random(), kind: .text, body: text,
        createdAt: Timestamp(millisecondsSince1970: 1_792_677_791_482))
}

@Suite("Bot API with RecordingBotContext")
struct BotTests {
    let identity = BotIdentity(name: "echo", userId: "BOT")

    @Test func echoBotRepliesInTheSameConversation() async throws {
        let context = RecordingBotContext(bot: identity)
        try await context.deliver(incoming("hi"), to: EchoBot())
        #expect(context.sentMessages == [RecordingBotContext.SentMessage(
            clientMessageId: .derived(bot: "BOT", handling: "M1", index: 0), conversationId: "C1", content: .text("echo: hi"))])
    }

    @Test func redeliveringAMessageDoesNotReplyTwice() async throws {
        let context = RecordingBotContext(bot: identity)
        try await context.deliver(incoming("hi"), to: EchoBot())
        try await context.deliver(incoming("hi"), to: EchoBot())
        #expect(context.sentMessages.count == 1)
        try await context.deliver(incoming("again", id: "M2"), to: EchoBot())
        #expect(context.sentMessages.map(\.content.body) == ["echo: hi", "echo: again"])
    }

    @Test func sendsReturnAHandleWhoseAckNamesTheMessage() async throws {
        let context = RecordingBotContext(bot: identity)
        let outgoing = try await context.send("hello", to: "C1")
        let ack = try await outgoing.acknowledged()
        #expect(ack.clientMessageId == outgoing.clientMessageId && ack.conversationId == "C1" && ack.seq == 1)
        #expect(ack.createdAt == Timestamp(context.now))
    }

    @Test func friendRequestDecisionIsApplied() async throws {
        let bot = User(id: "BOT", username: "reminder", displayName: "Reminder")
        let ana = User(id: "U1", username: "ana_friend", displayName: "Ana")
        let eve = User(id: "U2", username: "eve", displayName: "Eve")
        let context = RecordingBotContext(bot: identity)
        let fromAna = FriendRequest(id: "R1", fromUser: ana, toUser: bot, createdAt: Timestamp(context.now))
        let fromEve = FriendRequest(id: "R2", fromUser: eve, toUser: bot, createdAt: Timestamp(context.now))
        #expect(try await context.deliver(fromAna, to: ReminderBot()) == .accept)
        #expect(try await context.deliver(fromEve, to: ReminderBot()) == .ignore)
        #expect(try await context.service.friends().map(\.user) == [ana])
        #expect(try await context.service.friendRequests().incoming == [fromEve])
        #expect(context.friendActions == [.accepted("R1")])
    }

    @Test func defaultFriendRequestHandlerDefersToThePolicy() async throws {
        let context = RecordingBotContext(bot: identity)
        let request = FriendRequest(
            id: "R1", fromUser: User(id: "U1", username: "a", displayName: "A"), toUser: User(id: "BOT", username: "b", displayName: "B"),
            createdAt: Timestamp(context.now))
        #expect(try await context.deliver(request, to: EchoBot()) == .useConfiguredPolicy)
        #expect(context.friendActions.isEmpty)
    }

    @Test func typedStateIsScopedPerUser() async throws {
        let context = RecordingBotContext(bot: identity)
        try await context.deliver(incoming("one", id: "M1", from: "U1"), to: ReminderBot())
        try await context.deliver(incoming("two", id: "M2", from: "U1"), to: ReminderBot())
        try await context.deliver(incoming("three", id: "M3", from: "U2"), to: ReminderBot())
        #expect(try await context.state.value(ReminderBot.messageCount, in: .user("U1")) == 2)
        #expect(try await context.state.value(ReminderBot.messageCount, in: .user("U2")) == 1)
        #expect(try await context.state.value(ReminderBot.messageCount, in: .global) == nil)
        try await context.state.remove(ReminderBot.messageCount, in: .user("U1"))
        #expect(try await context.state.value(ReminderBot.messageCount, in: .user("U1")) == nil)
    }

    @Test func scheduledJobRunsWhenDueAndItsSendIsDerivedFromTheJob() async throws {
        let context = RecordingBotContext(bot: identity)
        try await context.deliver(incoming("remind me stretch"), to: ReminderBot())
        #expect(context.sentMessages.map(\.content) == [.text("OK, in 10 minutes.", replyingTo: "M1")])
        let job = try #require(try await context.jobs.scheduled().first)
        #expect(job.name == "reminder" && job.dueAt == Timestamp(context.now).advanced(by: .seconds(600)).date)

        context.advance(by: .seconds(599))
        #expect(try await context.runDueJobs(of: ReminderBot()).isEmpty)
        context.advance(by: .seconds(1))
        #expect(try await context.runDueJobs(of: ReminderBot()) == [job])
        let reminder = try #require(context.sentMessages.last)
        #expect(reminder.content == .text("⏰ stretch") && reminder.conversationId == "C1")
        #expect(reminder.clientMessageId == .derived(bot: "BOT", running: job.id, occurrence: 1, index: 0))
        #expect(try await context.jobs.scheduled().isEmpty, "a one-off job is done")
        #expect(context.logRecords.map(\.message) == ["reminder scheduled"])
        #expect(context.logRecords.first?.fields == ["user": "U1"])
    }

    @Test func repeatingJobIsRescheduledAfterItRuns() async throws {
        let context = RecordingBotContext(bot: identity)
        let job = try await context.jobs.schedule(JobKind<Int>("tick"), after: .seconds(60), repeating: .every(.seconds(60)), payload: 0)
        context.advance(by: .seconds(150))
        #expect(try await context.runDueJobs(of: EchoBot()).map(\.id) == [job.id])
        #expect(try await context.jobs.scheduled().map(\.dueAt) == [job.dueAt.addingTimeInterval(120)])
        try await context.jobs.cancel(job.id)
        #expect(try await context.jobs.scheduled().isEmpty)
    }

    @Test func directConversationNeedsAFriendship() async throws {
        let ben = User(id: "U2", username: "ben", displayName: "Ben")
        let context = RecordingBotContext(bot: identity, users: [ben])
        let refused = await #expect(throws: ChatterAPIError.self) { try await context.service.directConversation(with: "U2") }
        #expect(refused?.code == .notFriends)
        _ = try await context.service.sendFriendRequest(to: .username("ben"))
        #expect(context.friendActions == [.requested(.username("ben"))])
        let friendContext = RecordingBotContext(bot: identity, friends: [Friend(user: ben, since: Timestamp(context.now))])
        let direct = try await friendContext.service.directConversation(with: "U2")
        #expect(direct.kind == .direct && Set(direct.members.map(\.userId)) == ["BOT", "U2"])
        #expect(try await friendContext.service.directConversation(with: "U2") == direct, "one direct conversation per pair")
    }

    @Test func presenceLookUpSeesTheLatestChange() async throws {
        let context = RecordingBotContext(bot: identity, presences: [Presence(userId: "U1", isOnline: true)])
        #expect(await context.presence.lastKnown(of: "U1")?.isOnline == true)
        context.setPresence(Presence(userId: "U1", isOnline: false, lastSeenAt: Timestamp(context.now)))
        #expect(await context.presence.lastKnown(of: "U1")?.isOnline == false)
        #expect(await context.presence.lastKnown(of: "U9") == nil)
    }

    @Test func incomingMessageReadsLikeItsMessage() {
        let message = IncomingMessage(incoming("hi"))
        #expect(message.id == "M1" && message.seq == 7 && message.senderId == "U1" && message.text == "hi")
        var photo = incoming("x")
        photo.body = nil
        #expect(IncomingMessage(photo).text == "")
    }
}

@Suite("Bot logger")
struct BotLoggerTests {
    @Test func recordsBelowTheMinimumLevelAreDroppedWithoutBuildingTheMessage() {
        let context = RecordingBotContext(logLevel: .warning)
        var built = false
        context.logger.info({ built = true; return "quiet" }())
        context.logger.error("loud")
        #expect(!built)
        #expect(context.logRecords.map(\.level) == [.error])
    }

    @Test func fieldsOfTheLoggerAndTheRecordAreMerged() {
        let context = RecordingBotContext()
        context.logger.with(["conversation": "C1", "k": "logger"]).notice("hello", ["k": "record"])
        #expect(context.logRecords == [BotLogger.Record(label: "test-bot", level: .notice, message: "hello", fields: ["conversation": "C1", "k": "record"])])
    }
}
