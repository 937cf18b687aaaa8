@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// What a bot's store keeps of crashes: suspects with their attempts, and the quarantine.
@Suite("BotStore quarantine")
struct QuarantineStoreTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    func leftover(_ key: String, at seconds: TimeInterval = 0, summary: String = "boom") -> InFlightTable.Record {
        InFlightTable.Record(
            bot: "poison", handler: "onMessage", trace: "trace-\(key)", key: key, summary: summary,
            startedAt: Fixture.start.addingTimeInterval(seconds))
    }

    @Test func eachCrashAddsAnAttemptAndKeepsTheLastStart() async throws {
        let store = try await openStore(in: directory)
        try await store.recordCrashedWork([leftover("message:1"), leftover("message:2")])
        try await store.recordCrashedWork([leftover("message:1", at: 60)])
        let suspects = try await store.crashSuspects().sorted { $0.key < $1.key }
        #expect(suspects.map(\.key) == ["message:1", "message:2"])
        #expect(suspects.map(\.attempts) == [2, 1])
        #expect(suspects.first?.lastStartedAt == Fixture.start.addingTimeInterval(60))
        await store.close()
    }

    @Test func quarantiningMovesTheSuspectIntoTheQuarantineWithItsWork() async throws {
        let store = try await openStore(in: directory)
        try await store.recordCrashedWork([leftover("message:1"), leftover("message:1")])
        let suspect = try #require(try await store.crashSuspects().first)
        let message = Fixture.message(seq: 1, body: "boom")
        try await store.record([.quarantine(suspect, work: .message(message))])
        #expect(try await store.crashSuspects().isEmpty)
        let entry = try #require(try await store.quarantined().first)
        #expect(entry.key == "message:1")
        #expect(entry.attempts == 2)
        #expect(entry.summary == "boom")
        #expect(entry.work == .message(message))
        #expect(!entry.retryRequested)
        #expect(try await store.quarantinedCount(since: Fixture.start) == 1)
        await store.close()
    }

    @Test func aRetryRequestMarksTheEntryAndARetryThatRanTakesItOut() async throws {
        let store = try await openStore(in: directory)
        try await store.record([.quarantine(
            CrashSuspect(key: "message:1", handler: "onMessage", trace: "t", summary: "boom", attempts: 2, lastStartedAt: Fixture.start),
            work: nil)])
        let id = try #require(try await store.quarantined().first?.id)
        #expect(try await store.requestRetry(of: id)?.retryRequested == true)
        #expect(try await store.requestRetry(of: id + 1) == nil)
        try await store.record([.retried(id)])
        #expect(try await store.quarantined().isEmpty)
        await store.close()
    }

    @Test func aRetryThatCrashedAgainStaysWithoutItsRequest() async throws {
        let store = try await openStore(in: directory)
        try await store.record([.quarantine(
            CrashSuspect(key: "message:1", handler: "onMessage", trace: "t", summary: "boom", attempts: 2, lastStartedAt: Fixture.start),
            work: nil)])
        let id = try #require(try await store.quarantined().first?.id)
        _ = try await store.requestRetry(of: id)
        try await store.recordCrashedWork([leftover("retry:\(id)")])
        try await store.record([.retryCrashed(id)])
        let entry = try #require(try await store.quarantined().first)
        #expect(!entry.retryRequested)
        #expect(entry.attempts == 3)
        #expect(try await store.crashSuspects().isEmpty)
        await store.close()
    }

    @Test func droppingForgetsTheEntry() async throws {
        let store = try await openStore(in: directory)
        try await store.record([.quarantine(
            CrashSuspect(key: "message:1", handler: "onMessage", trace: "t", summary: "boom", attempts: 2, lastStartedAt: Fixture.start),
            work: nil)])
        let id = try #require(try await store.quarantined().first?.id)
        #expect(try await store.dropQuarantined(id))
        #expect(!(try await store.dropQuarantined(id)))
        #expect(try await store.quarantined().isEmpty)
        await store.close()
    }

    @Test func aRepeatingJobIsPausedAtItsSecondQuarantinedOccurrenceAndResumedByARetry() async throws {
        let store = try await openStore(in: directory)
        let job = try await store.addJob(NewScheduledJob(name: "tick", dueAt: Fixture.start, repeatRule: .string("every")))
        func quarantine(_ occurrence: Int) async throws {
            try await store.record([
                .quarantine(
                    CrashSuspect(
                        key: "job:\(job.id.rawValue)#\(occurrence)", handler: "onScheduledJob", trace: "t", summary: "tick",
                        attempts: 2, lastStartedAt: Fixture.start),
                    work: .job(job.id, occurrence: occurrence)),
                .pauseJobIfQuarantinedBefore(job.id),
            ])
        }
        try await quarantine(1)
        #expect(try await store.job(job.id)?.status == .scheduled)
        try await quarantine(2)
        #expect(try await store.job(job.id)?.status == .paused)
        #expect(try await store.dueJobs(at: Fixture.start.addingTimeInterval(3600)).isEmpty)
        try await store.record([.resumeJob(job.id)])
        #expect(try await store.job(job.id)?.status == .scheduled)
        await store.close()
    }
}
