import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Scheduled jobs: due after downtime, claimed once, completed with their effects, repeated with the next
/// occurrence number, cancelled.
@Suite("BotStore schedules")
struct ScheduleStoreTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    func at(_ seconds: TimeInterval) -> Date { Fixture.start.addingTimeInterval(seconds) }

    func reminder(_ id: ScheduledJob.ID, dueIn seconds: TimeInterval, repeating: Bool = false, owner: StateScope = .user(Fixture.alice)) -> NewScheduledJob {
        NewScheduledJob(
            id: id, name: "reminder", dueAt: at(seconds), payload: ["text": "stretch"],
            repeatRule: repeating ? ["every": "day"] : nil, timeZone: "America/Toronto", owner: owner)
    }

    @Test func jobsThatCameDueWhileTheProcessWasDownAreDueAtStartOldestFirst() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.addJob(reminder("late", dueIn: 7200))
        try await store.addJob(reminder("early", dueIn: 3600))
        try await store.addJob(reminder("future", dueIn: 36_000))
        await store.close()

        let restarted = try await openStore(in: directory, clock: ManualClock(now: at(18_000)))
        #expect(try await restarted.dueJobs(at: at(18_000)).map(\.id) == ["early", "late"])
        #expect(try await restarted.nextDueDate() == at(3600))
        let claimed = try await restarted.claimDueJobs(at: at(18_000))
        #expect(claimed.map(\.job.id) == ["early", "late"])
        #expect(claimed.allSatisfy { $0.number == 1 && $0.job.status == .running })
        #expect(try await restarted.dueJobs(at: at(18_000)).isEmpty)
        #expect(try await restarted.nextDueDate() == at(36_000))
    }

    @Test func aStoreWithNoScheduledJobHasNoNextDueDate() async throws {
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.nextDueDate() == nil)
        try await store.addJob(reminder("once", dueIn: 60))
        _ = try await store.cancelJob("once")
        #expect(try await store.nextDueDate() == nil)
        await store.close()
    }

    @Test func addingAJobIsIdempotentOnItsId() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let first = try await store.addJob(reminder("r1", dueIn: 60))
        let second = try await store.addJob(reminder("r1", dueIn: 999))
        #expect(second == first)
        #expect(first.dueAt == at(60))
        #expect(first.payload == ["text": "stretch"])
        #expect(first.timeZone == "America/Toronto")
        #expect(first.occurrence == 1 && first.status == .scheduled && first.createdAt == Fixture.start)
    }

    @Test func anOccurrenceIsClaimedOnlyOnce() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.addJob(reminder("r1", dueIn: 0))
        let occurrence = try #require(try await store.claim("r1", occurrence: 1))
        #expect(occurrence.clientMessageID(bot: "bot", index: 0) == .derived(bot: "bot", trigger: "job:r1@1", index: 0))
        #expect(try await store.claim("r1", occurrence: 1) == nil)
        #expect(try await store.claim("r1", occurrence: 2) == nil)
        #expect(try await store.job("r1")?.status == .running)
    }

    @Test func aOneOffOccurrenceCompletesWithItsSendsAndTheJobIsDone() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.addJob(reminder("r1", dueIn: 0))
        await clock.advance(by: .seconds(5))
        let occurrence = try #require(try await store.claimDueJobs(at: clock.now).first)
        var unit = UnitOfWork(running: occurrence, nextDueAt: nil, bot: Fixture.bot)
        let id = unit.send(.text("Time to stretch"), to: Fixture.direct)
        try unit.setValue(1, forKey: "remindersSent", in: .user(Fixture.alice))
        let receipt = try await store.commit(unit)

        #expect(id == ClientMessageID.derived(bot: Fixture.bot, trigger: "job:r1@1", index: 0))
        #expect(receipt.outboxEntries.map(\.origin) == [.schedule(job: "r1", occurrence: 1)])
        #expect(receipt.job?.status == .done)
        #expect(receipt.job?.lastFiredAt == at(5))
        #expect(try await store.dueJobs(at: at(10_000)).isEmpty)
        #expect(try await store.value(Int.self, forKey: "remindersSent", in: .user(Fixture.alice)) == 1)
        #expect(try await store.jobs(ownedBy: .user(Fixture.alice)).isEmpty)
        #expect(try await store.jobs(ownedBy: .user(Fixture.alice), includingFinished: true).map(\.status) == [.done])
    }

    @Test func aRepeatingJobMovesToTheNextOccurrenceWithItsOwnClientMessageIds() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.addJob(reminder("daily", dueIn: 0, repeating: true))
        var sent: [ClientMessageID] = []
        for day in 0..<3 {
            let now = at(Double(day) * 86_400)
            let occurrence = try #require(try await store.claimDueJobs(at: now).first)
            #expect(occurrence.number == day + 1)
            #expect(occurrence.dueAt == now)
            var unit = UnitOfWork(running: occurrence, nextDueAt: now.addingTimeInterval(86_400), bot: Fixture.bot)
            sent.append(unit.send(.text("Good morning"), to: Fixture.direct))
            let job = try #require(try await store.commit(unit).job)
            #expect(job.status == .scheduled && job.occurrence == day + 2 && job.dueAt == now.addingTimeInterval(86_400))
        }
        #expect(Set(sent).count == 3)
        #expect(sent[1] == ClientMessageID.derived(bot: Fixture.bot, trigger: "job:daily@2", index: 0))
        #expect(try await store.outboxDepth() == 3)
    }

    @Test func completingAnOccurrenceTwiceIsRefusedAndItsSecondEffectsAreDropped() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.addJob(reminder("r1", dueIn: 0, repeating: true))
        let occurrence = try #require(try await store.claim("r1", occurrence: 1))
        try await store.completeOccurrence(occurrence, nextDueAt: at(60))
        var again = UnitOfWork(running: occurrence, nextDueAt: at(60), bot: Fixture.bot)
        again.send(.text("twice?"), to: Fixture.direct)
        let error = await storeError { _ = try await store.commit(again) }
        guard case .occurrenceNotClaimed("r1", 1)? = error else {
            Issue.record("expected occurrenceNotClaimed, got \(String(describing: error))")
            return
        }
        #expect(try await store.outboxDepth() == 0)
        #expect(try await store.job("r1")?.occurrence == 2)
    }

    @Test func anOccurrenceRunningWhenTheProcessStoppedRunsAgainWithTheSameNumber() async throws {
        let first = try await openStore(in: directory, clock: clock)
        try await first.addJob(reminder("r1", dueIn: 0))
        let claimed = try #require(try await first.claim("r1", occurrence: 1))
        await first.close()

        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.job("r1")?.status == .scheduled)
        let again = try #require(try await store.claimDueJobs(at: clock.now).first)
        #expect(again.number == claimed.number)
        #expect(again.clientMessageID(bot: Fixture.bot, index: 0) == claimed.clientMessageID(bot: Fixture.bot, index: 0))
    }

    @Test func aReleasedClaimIsScheduledAgainAtTheRetryTime() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.addJob(reminder("r1", dueIn: 0))
        let occurrence = try #require(try await store.claim("r1", occurrence: 1))
        #expect(try await store.releaseClaim(occurrence, retryAt: at(30)))
        #expect(try await store.releaseClaim(occurrence) == false)
        #expect(try await store.dueJobs(at: at(29)).isEmpty)
        #expect(try await store.dueJobs(at: at(30)).map(\.occurrence) == [1])
    }

    @Test func aCancelledJobIsNeverDueNorClaimed() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.addJob(reminder("r1", dueIn: 0))
        #expect(try await store.cancelJob("r1"))
        #expect(try await store.cancelJob("r1") == false)
        #expect(try await store.dueJobs(at: at(100)).isEmpty)
        #expect(try await store.claim("r1", occurrence: 1) == nil)
        #expect(try await store.job("r1")?.status == .cancelled)
    }

    @Test func aJobCancelledWhileItsOccurrenceRunsCompletesThatOccurrenceAndStaysCancelled() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.addJob(reminder("r1", dueIn: 0, repeating: true))
        let occurrence = try #require(try await store.claim("r1", occurrence: 1))
        #expect(try await store.cancelJob("r1"))
        var unit = UnitOfWork(running: occurrence, nextDueAt: at(86_400), bot: Fixture.bot)
        unit.send(.text("last one"), to: Fixture.direct)
        let receipt = try await store.commit(unit)
        #expect(receipt.job?.status == .cancelled)
        #expect(try await store.dueJobs(at: at(100_000)).isEmpty)
        #expect(try await store.outboxDepth() == 1)
    }

    @Test func aUnitCanScheduleAndCancelJobs() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.addJob(reminder("old", dueIn: 600))
        var unit = UnitOfWork(handling: Fixture.message(seq: 1), bot: Fixture.bot)
        unit.cancelJob("old")
        unit.scheduleJob(reminder("new", dueIn: 1200))
        try await store.commit(unit)
        #expect(try await store.jobs(ownedBy: .user(Fixture.alice)).map(\.id) == ["new"])
        #expect(try await store.job("old")?.status == .cancelled)
    }

    @Test func jobsAreListedByOwnerSoonestFirst() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.addJob(reminder("b", dueIn: 200))
        try await store.addJob(reminder("a", dueIn: 100))
        try await store.addJob(reminder("c", dueIn: 50, owner: .conversation(Fixture.group)))
        try await store.addJob(reminder("g", dueIn: 10, owner: .global))
        #expect(try await store.jobs(ownedBy: .user(Fixture.alice)).map(\.id) == ["a", "b"])
        #expect(try await store.jobs(ownedBy: .conversation(Fixture.group)).map(\.id) == ["c"])
        #expect(try await store.jobs().map(\.id) == ["g", "c", "a", "b"])
    }

    @Test func aJobScheduledThroughTheBotAPIKeepsItsRepeatRuleAndTimeZone() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let lisbon = try #require(TimeZone(identifier: "Europe/Lisbon"))
        let job = ScheduledJob(
            id: "daily-digest", name: "digest", dueAt: at(3600), repeatRule: .daily(at: try TimeOfDay(hour: 9, minute: 0), timeZone: lisbon),
            payload: ["topic": "news"])
        let stored = try await store.addJob(try NewScheduledJob(job, owner: .conversation(Fixture.group)))
        #expect(stored.timeZone == "Europe/Lisbon")
        #expect(stored.isRepeating)
        #expect(try stored.scheduledJob() == job)
        let occurrence = try #require(try await store.claimDueJobs(at: at(3600)).first)
        #expect(try occurrence.job.scheduledJob().repeatRule?.nextOccurrence(following: occurrence.dueAt, after: at(3600)) != nil)
    }

    @Test func finishedJobsArePrunedAfterTheCutoff() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.addJob(reminder("done", dueIn: 0))
        try await store.addJob(reminder("kept", dueIn: 0))
        let occurrence = try #require(try await store.claim("done", occurrence: 1))
        try await store.completeOccurrence(occurrence, nextDueAt: nil)
        await clock.advance(by: .seconds(120))
        #expect(try await store.pruneFinishedJobs(finishedBefore: at(60)) == 1)
        #expect(try await store.job("done") == nil)
        #expect(try await store.job("kept") != nil)
    }
}
