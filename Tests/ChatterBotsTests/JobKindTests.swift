import Foundation
import Testing

@testable import ChatterBots

/// A job kind names a job together with its payload type: what is scheduled with it reads back as that type.
@Suite struct JobKindTests {
    struct Reminder: Codable, Sendable, Equatable {
        var text: String
        var conversationId: Conversation.ID
    }

    static let reminder = JobKind<Reminder>("reminder")
    static let digest = JobKind<Int>("digest")

    @Test func aScheduledPayloadReadsBackTypedInTheJobHandler() async throws {
        let context = RecordingBotContext()
        let sent = Reminder(text: "stretch", conversationId: "C1")
        try await context.jobs.schedule(Self.reminder, after: .seconds(30), payload: sent)
        context.advance(by: .seconds(30))
        let ran = try await context.runDueJobs(of: EchoBot())
        let job = try #require(ran.first)
        #expect(try job.payload(of: Self.reminder) == sent)
    }

    @Test func aJobOfAnotherKindHasNoPayloadOfThisKind() throws {
        let job = ScheduledJob(id: "J1", name: "digest", dueAt: Date(timeIntervalSince1970: 0), payload: .number(3))
        #expect(try job.payload(of: Self.reminder) == nil)
        #expect(try job.payload(of: Self.digest) == 3)
    }

    @Test func scheduledOfAKindListsOnlyThatKind() async throws {
        let context = RecordingBotContext()
        try await context.jobs.schedule(Self.digest, after: .seconds(60), payload: 1)
        try await context.jobs.schedule(Self.reminder, after: .seconds(30), payload: Reminder(text: "a", conversationId: "C1"))
        #expect(try await context.jobs.scheduled(Self.digest).map(\.name) == ["digest"])
        #expect(try await context.jobs.scheduled().map(\.name) == ["reminder", "digest"])
    }
}
