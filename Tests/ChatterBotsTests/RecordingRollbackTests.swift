import Foundation
import Testing

@testable import ChatterBots

/// A throwing handler's unit of work is discarded by the recording context as by the runtime: its sends, state and
/// jobs are gone, while service calls, made at once, stay.
@Suite("Recording context: a throwing handler's changes are discarded")
struct RecordingRollbackTests {
    struct Refusal: Error {}

    static let seen = StateKey<Int>("seen")
    static let followUp = JobKind<String>("follow-up")
    static let ben = User(id: "U2", username: "ben", displayName: "Ben")

    /// Sends, stores, schedules and asks ben for friendship, then throws when the message says so.
    struct FailingBot: Bot {
        func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
            try await context.reply(to: message, "working on it")
            try await context.state.set(1, for: RecordingRollbackTests.seen)
            try await context.jobs.schedule(RecordingRollbackTests.followUp, after: .seconds(60), payload: message.text)
            if message.text == "fail" {
                _ = try await context.service.sendFriendRequest(to: .username("ben"))
                throw Refusal()
            }
        }

        func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws {
            try await context.send("following up", to: "C1")
            try await context.state.set(2, for: RecordingRollbackTests.seen)
            throw Refusal()
        }
    }

    func message(_ text: String, id: Message.ID = "M1") -> Message {
        Message(
            id: id, conversationId: "C1", seq: 1, senderId: "U1", clientMessageId: nil, kind: .text, body: text,
            createdAt: Timestamp(Date(timeIntervalSince1970: 1_792_677_791)))
    }

    /// Reacts to every message and edits an earlier one, then throws when the message says so.
    struct ChangingBot: Bot {
        func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
            try await context.messaging.react("👀", to: message)
            try await context.messaging.edit("M0", in: message.conversationId, to: "edited")
            if message.text == "fail" { throw Refusal() }
        }
    }

    @Test func aThrowingHandlersMessageChangesAreDiscardedAndAPassingOnesKept() async throws {
        let context = RecordingBotContext()
        await #expect(throws: Refusal.self) { try await context.deliver(message("fail"), to: ChangingBot()) }
        #expect(context.messageChanges.isEmpty)
        try await context.deliver(message("pass", id: "M2"), to: ChangingBot())
        #expect(context.messageChanges.map(\.change) == [.addReaction("👀"), .edit(body: "edited")])
        #expect(context.messageChanges.map(\.messageId) == ["M2", "M0"])
    }

    @Test func aThrowingRunUndoesEveryMessageChangeItMadeNestedRunsIncluded() async throws {
        let context = RecordingBotContext()
        await #expect(throws: Refusal.self) {
            try await context.run {
                try await context.messaging.change(.addReaction("👀"), of: "M1", in: "C1")
                try await context.run { try await context.messaging.change(.addReaction("👍"), of: "M2", in: "C1") }
                try await context.messaging.change(.delete, of: "M3", in: "C1")
                throw Refusal()
            }
        }
        try await context.messaging.change(.addReaction("👀"), of: "M1", in: "C1")
        #expect(context.messageChanges.map(\.messageId) == ["M1"])
    }

    @Test func aThrowingMessageHandlerLeavesNoSendsStateOrJobsButItsServiceCallsStay() async throws {
        let context = RecordingBotContext(users: [Self.ben])
        await #expect(throws: Refusal.self) { try await context.deliver(message("fail"), to: FailingBot()) }
        #expect(context.sentMessages.isEmpty)
        #expect(try await context.state.value(Self.seen) == nil)
        #expect(try await context.jobs.scheduled().isEmpty)
        #expect(context.friendActions == [.requested(.username("ben"))], "a service call is not undone")
    }

    /// `acknowledged()` commits the handler's work so far, in the runtime as here: a later throw keeps it.
    @Test func whatAHandlerDidBeforeWaitingForAnAcknowledgementSurvivesItsLaterThrow() async throws {
        let context = RecordingBotContext()
        await #expect(throws: Refusal.self) {
            try await context.run {
                try await context.state.set(1, for: Self.seen)
                _ = try await context.send("kept", to: "C1").acknowledged()
                try await context.send("discarded", to: "C1")
                throw Refusal()
            }
        }
        #expect(context.sentMessages.map(\.content.body) == ["kept"])
        #expect(try await context.state.value(Self.seen) == 1)
    }

    @Test func aHandlerThatReturnsKeepsItsChanges() async throws {
        let context = RecordingBotContext(users: [Self.ben])
        try await context.deliver(message("fine"), to: FailingBot())
        #expect(context.sentMessages.map(\.content.body) == ["working on it"])
        #expect(try await context.state.value(Self.seen) == 1)
        #expect(try await context.jobs.scheduled(Self.followUp).count == 1)
    }

    @Test func aThrowingJobHandlerIsDiscardedAndItsOccurrenceStillCountsAsRun() async throws {
        let context = RecordingBotContext(users: [Self.ben])
        try await context.deliver(message("fine"), to: FailingBot())
        context.advance(by: .seconds(60))
        await #expect(throws: Refusal.self) { try await context.runDueJobs(of: FailingBot()) }
        #expect(context.sentMessages.map(\.content.body) == ["working on it"])
        #expect(try await context.state.value(Self.seen) == 1)
        #expect(try await context.jobs.scheduled().isEmpty, "the one-off job ran, though its handler threw")
    }

    @Test func runDiscardsTheChangesOfAnyThrowingHandler() async throws {
        let context = RecordingBotContext()
        try await context.state.set(5, for: Self.seen)
        await #expect(throws: Refusal.self) {
            try await context.run {
                try await context.state.set(6, for: Self.seen)
                try await context.state.remove(Self.seen)
                try await context.send("hello", to: "C1")
                throw Refusal()
            }
        }
        #expect(try await context.state.value(Self.seen) == 5)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func aRedeliveryAfterAThrowSendsUnderTheSameKeys() async throws {
        let context = RecordingBotContext(users: [Self.ben])
        await #expect(throws: Refusal.self) { try await context.deliver(message("fail"), to: FailingBot()) }
        try await context.deliver(message("fine"), to: FailingBot())
        let sent = try #require(context.sentMessages.first)
        #expect(context.sentMessages.count == 1)
        #expect(sent.clientMessageId == .derived(bot: "BOT", handling: "M1", index: 0))
    }
}

extension RecordingRollbackTests {
    @Test func aRunInsideAThrowingRunIsDiscardedWithIt() async throws {
        let context = RecordingBotContext()
        await #expect(throws: Refusal.self) {
            try await context.run {
                try await context.run { try await context.state.set(7, for: Self.seen) }
                throw Refusal()
            }
        }
        #expect(try await context.state.value(Self.seen) == nil)
    }
}
