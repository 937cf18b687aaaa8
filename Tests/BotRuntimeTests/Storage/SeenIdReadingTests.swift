@testable import BotRuntime
import ChatterBots
import Testing

/// The seen ids are read into memory a bounded step at a time: counted first, then read in id order, answering
/// nothing until the last step; ids written meanwhile are kept wherever the reading is.
@Suite("Reading the seen ids")
struct SeenIdReadingTests {
    let limit = SeenIdReading.rowsPerStep

    /// Hands `ids` to the reading as what its next step read.
    func read(_ ids: [String], into reading: inout SeenIdReading) throws {
        reading.read(ids, of: try #require(reading.nextStep))
    }

    /// Ids that sort in the order of their numbers.
    func ids(_ range: Range<Int>) -> [String] {
        range.map { "M\(1_000_000 + $0)" }
    }

    @Test func aNewReadingCountsTheRowsFirstThenReadsFromTheFirstId() {
        var reading = SeenIdReading()
        #expect(reading.nextStep == .count)
        reading.counted(3 * limit)
        #expect(reading.nextStep == .rows(after: nil, limit: limit))
    }

    @Test func eachStepReadsOnFromTheLastIdOfTheStepBefore() throws {
        var reading = SeenIdReading()
        reading.counted(3 * limit)
        let first = ids(0..<limit)
        try read(first, into: &reading)
        #expect(reading.nextStep == .rows(after: first.last, limit: limit))
    }

    @Test func nothingIsAnsweredUntilAStepReadsFewerIdsThanAskedFor() throws {
        var reading = SeenIdReading()
        reading.counted(limit + 1)
        try read(ids(0..<limit), into: &reading)
        #expect(reading.mightContain("M1000000") == nil)
        #expect(reading.mightContain("never seen") == nil)

        try read(ids(limit..<limit + 1), into: &reading)
        #expect(reading.nextStep == nil)
        #expect(ids(0..<limit + 1).allSatisfy { reading.mightContain($0) == true })
        #expect(reading.mightContain("never seen") == false)
    }

    @Test func anEmptyTableIsWholeAfterItsFirstStep() throws {
        var reading = SeenIdReading()
        reading.counted(0)
        try read([], into: &reading)
        #expect(reading.nextStep == nil)
        #expect(reading.mightContain("M1000001") == false)
    }

    /// The reading has passed "M1000001" when it is written: only the insert puts it in the filter.
    @Test func anIdWrittenBehindTheReadingIsKept() throws {
        var reading = SeenIdReading()
        reading.counted(2 * limit)
        try read(ids(2..<limit + 2), into: &reading)
        reading.insert("M1000001")
        try read(ids(limit + 2..<limit + 10), into: &reading)
        #expect(reading.mightContain("M1000001") == true)
    }

    @Test func anIdWrittenBeforeTheCountIsLeftToTheReading() throws {
        var reading = SeenIdReading()
        reading.insert("M1000001")
        reading.counted(1)
        try read(["M1000001"], into: &reading)
        #expect(reading.mightContain("M1000001") == true)
    }

    /// A reading that has moved on takes no result of a step before: an empty one would end it unread.
    @Test func idsReadForAStepThatIsNoLongerNextAreIgnored() throws {
        var reading = SeenIdReading()
        reading.counted(3 * limit)
        let first = try #require(reading.nextStep)
        reading.read(ids(0..<limit), of: first)
        reading.read([], of: first)
        #expect(reading.nextStep == .rows(after: ids(0..<limit).last, limit: limit))
        #expect(reading.mightContain("M1000000") == nil)
    }

    /// The filter's bits have one owner, so an insert changes them in place: a copy would cost the whole array (about
    /// 1.5 MB at 600,000 ids) at every message handled.
    @Test func insertingChangesTheFiltersBitsInPlace() throws {
        var reading = SeenIdReading()
        reading.counted(3 * limit)
        let whileReading = try #require(reading.filterBitsAddress)
        reading.insert("M1000001")
        try read(ids(0..<limit), into: &reading)
        #expect(reading.filterBitsAddress == whileReading)

        try read([], into: &reading)
        let whole = try #require(reading.filterBitsAddress)
        reading.insert("M1000002")
        #expect(reading.filterBitsAddress == whole)
    }

    @Test func aWholeFilterThatFillsUpIsReadAgainFromTheCount() throws {
        var reading = SeenIdReading()
        reading.counted(0)
        try read([], into: &reading)
        for id in ids(0..<SeenMessageFilter.minimumCapacity) { reading.insert(id) }
        #expect(reading.nextStep == nil)

        reading.insert("one more")
        #expect(reading.nextStep == .count)
        #expect(reading.mightContain("one more") == nil)
    }
}

/// A store reads its seen ids one step per write transaction, and answers every admission correctly meanwhile.
@Suite("BotStore reading its seen ids")
struct StoreSeenIdReadingTests {
    let directory: StoreDirectory
    let clock = ManualClock()
    /// More handled messages than two steps read.
    let handledCount = 2 * SeenIdReading.rowsPerStep + 100

    init() throws {
        directory = try StoreDirectory()
    }

    /// A store whose file holds `handledCount` seen ids, opened again with none of them in memory.
    func reopenedStoreWithManySeenIds() async throws -> BotStore {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let messages = (1...handledCount).map { Fixture.message(seq: $0) }
        _ = try await first.admit(messages, bot: Fixture.bot)
        _ = try await first.commit(messages.map { UnitOfWork(handling: $0, bot: Fixture.bot) })
        await first.close()
        return try await openStore(in: directory, clock: clock)
    }

    func admit(_ message: Message, _ store: BotStore) async throws -> MessageAdmission? {
        try await store.admit([message], bot: Fixture.bot).admissions.first
    }

    /// The next read once one step is done: from the last id of the first step, the handled ids in text order.
    var afterOneStep: SeenIdReading.Step {
        let ids = (1...handledCount).map { Fixture.message(seq: $0).id.rawValue }.sorted()
        return .rows(after: ids[SeenIdReading.rowsPerStep - 1], limit: SeenIdReading.rowsPerStep)
    }

    /// `seq`'s message under a new seq, as a service that resequenced it would deliver it.
    func resequenced(_ seq: Int, to newSeq: Int) -> Message {
        var message = Fixture.message(seq: seq)
        message.seq = newSeq
        return message
    }

    @Test func eachAdmissionReadsOneStepOfTheSeenIdsNotAllOfThem() async throws {
        let store = try await reopenedStoreWithManySeenIds()
        #expect(try await admit(Fixture.message(seq: handledCount + 1), store) == .deliver)
        #expect(store.memory.nextSeenRead == afterOneStep)
        #expect(try await admit(Fixture.message(seq: handledCount + 2), store) == .deliver)
        #expect(try await admit(Fixture.message(seq: handledCount + 3), store) == .deliver)
        #expect(store.memory.nextSeenRead == nil)
        // Read whole: every handled id is in the filter, from each step and across the steps' boundaries.
        let missed = (1...handledCount).filter { store.memory.mightHaveSeen(Fixture.message(seq: $0).id) != true }
        #expect(missed.isEmpty)
    }

    /// A batch of messages is admitted in one transaction, which reads one step, however many it checks.
    @Test func aBatchAdmittedInOneTransactionReadsOneStep() async throws {
        let store = try await reopenedStoreWithManySeenIds()
        let batch = (1...5).map { Fixture.message(seq: handledCount + $0) }
        #expect(try await store.admit(batch, bot: Fixture.bot).admissions == Array(repeating: .deliver, count: 5))
        #expect(store.memory.nextSeenRead == afterOneStep)
    }

    /// Ids sort as text, so the reading meets seq 999 last and seq 1 first: each is refused from the first admission.
    @Test func duplicatesAreRefusedWhileTheSeenIdsAreStillBeingRead() async throws {
        let store = try await reopenedStoreWithManySeenIds()
        for (offset, seq) in [999, 1, handledCount, 1_500].enumerated() {
            #expect(try await admit(resequenced(seq, to: handledCount + 100 + offset), store) == .duplicate)
        }
        #expect(try await admit(Fixture.message(seq: handledCount + 1), store) == .deliver)
    }

    /// "M_0" sorts before every id the store holds, so the reading has passed it when it is handled.
    @Test func anIdHandledWhileTheSeenIdsAreBeingReadIsADuplicateOnceTheyAreAllRead() async throws {
        let store = try await reopenedStoreWithManySeenIds()
        var early = Fixture.message(seq: handledCount + 1)
        early.id = "M_0"
        #expect(try await admit(early, store) == .deliver)
        try await handle(early, in: store)
        for seq in handledCount + 2...handledCount + 4 {
            #expect(try await admit(Fixture.message(seq: seq), store) == .deliver)
        }
        #expect(store.memory.nextSeenRead == nil)

        early.seq = handledCount + 10
        #expect(try await admit(early, store) == .duplicate)
    }
}
