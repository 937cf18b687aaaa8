@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// The outbox: durable before sending, idempotent on clientMessageId, resent oldest first until acknowledged.
@Suite("BotStore outbox")
struct OutboxStoreTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    @Test func anEntryHasNoFirstAttemptUntilOneIsRecordedAndKeepsTheFirstAfterwards() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let entry = try await store.enqueue(Fixture.send("hello"))
        #expect(entry.firstAttemptAt == nil)
        #expect(try await store.outboxEntry(entry.id)?.firstAttemptAt == nil)

        await clock.advance(by: .seconds(60))
        let firstSend = clock.now
        try await store.recordFirstAttempts([entry.id], at: firstSend)
        await clock.advance(by: .seconds(60))
        try await store.recordFirstAttempts([entry.id], at: clock.now)
        try await store.recordAttempts([entry.id], error: .rateLimited)
        let stored = try #require(try await store.outboxEntry(entry.id))
        #expect(stored.firstAttemptAt == firstSend)
        #expect(try await store.pendingOutbox().first?.firstAttemptAt == firstSend)
    }

    @Test func aRecordedRetryCountsAsTheFirstAttemptOfAnEntryWithoutOne() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let entry = try await store.enqueue(Fixture.send("hello"))
        await clock.advance(by: .seconds(5))
        try await store.recordAttempts([entry.id], error: .rateLimited)
        #expect(try await store.outboxEntry(entry.id)?.firstAttemptAt == clock.now)
    }

    @Test func enqueuingTheSameDerivedIdTwiceKeepsOneEntry() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let id = ClientMessageID.derived(bot: Fixture.bot, handling: "M_X", index: 0)
        let first = try await store.enqueue(Fixture.send("hello", id: id), origin: .handler(incoming: "M_X"))
        await clock.advance(by: .seconds(5))
        let second = try await store.enqueue(Fixture.send("hello again", id: id), origin: .handler(incoming: "M_X"))
        #expect(second == first)
        #expect(second.message.content.body == "hello")
        #expect(try await store.outboxDepth() == 1)
    }

    @Test func aUnitSendingAnAlreadyEnqueuedIdGetsTheExistingEntryBack() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let incoming = Fixture.message(seq: 1)
        let derived = ClientMessageID.derived(bot: Fixture.bot, handling: incoming.id, index: 0)
        let existing = try await store.enqueue(Fixture.send("first run", id: derived), origin: .handler(incoming: incoming.id))
        _ = try await store.markAcked(Fixture.ack(derived, seq: 2))

        var unit = UnitOfWork(handling: incoming, bot: Fixture.bot)
        #expect(unit.send(.text("second run"), to: Fixture.direct) == derived)
        let receipt = try await store.commit(unit)
        #expect(receipt.createdEntries.isEmpty)
        #expect(receipt.outboxEntries.map(\.sequence) == [existing.sequence])
        #expect(receipt.outboxEntries.first?.status == .acked)
        #expect(receipt.entriesToSend.isEmpty)
        #expect(try await store.outboxDepth() == 0)
    }

    @Test func pendingEntriesComeOldestFirstAfterAReopen() async throws {
        let store = try await openStore(in: directory, clock: clock)
        for text in ["one", "two", "three", "four"] {
            _ = try await store.enqueue(Fixture.send(text), traceID: "trace-\(text)")
            await clock.advance(by: .seconds(1))
        }
        let pending = try await store.pendingOutbox()
        _ = try await store.markAcked(Fixture.ack(pending[1].id, seq: 1))
        await store.close()

        let reopened = try await openStore(in: directory, clock: clock)
        let resend = try await reopened.pendingOutbox()
        #expect(resend.map(\.message.content.body) == ["one", "three", "four"])
        #expect(resend.map(\.id) == [pending[0].id, pending[2].id, pending[3].id])
        #expect(resend.first?.traceID == "trace-one")
        #expect(resend.first?.createdAt == Fixture.start)
        #expect(try await reopened.pendingOutbox(limit: 2).count == 2)
    }

    @Test func anAckRecordsTheCreatedMessageOnce() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let entry = try await store.enqueue(Fixture.send("hi"))
        await clock.advance(by: .seconds(2))
        let ack = Fixture.ack(entry.id, seq: 1)
        #expect(try await store.markAcked(ack).outcomes == [.acknowledged])
        #expect(try await store.markAcked(ack).outcomes == [.alreadyAcknowledged])
        #expect(try await store.markAcked(Fixture.ack("unknown-id", seq: 2)).outcomes == [.unknownEntry])

        let stored = try #require(try await store.outboxEntry(entry.id))
        #expect(stored.status == .acked)
        #expect(
            stored.acknowledgement
                == OutboxEntry.Acknowledgement(
                    messageId: ack.messageId, seq: 1, createdAt: ack.createdAt, ackedAt: Fixture.start.addingTimeInterval(2)))
        #expect(try await store.outboxDepth() == 0)
    }

    @Test func anAckWithItsEntrysRowRecordsTheSameAsOneWithout() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let byRow = try await store.enqueue(Fixture.send("by row"))
        let byKey = try await store.enqueue(Fixture.send("by key"))
        let report = try await store.markAcked(
            [Fixture.ack(byRow.id, seq: 1), Fixture.ack(byKey.id, seq: 2)], rows: [byRow.sequence, nil])
        #expect(report.outcomes == [.acknowledged, .acknowledged])
        #expect(try await store.outboxEntry(byRow.id)?.acknowledgement?.seq == 1)
        #expect(try await store.outboxEntry(byKey.id)?.acknowledgement?.seq == 2)
        #expect(try await store.markAcked([Fixture.ack(byRow.id, seq: 1)], rows: [byRow.sequence]).outcomes == [.alreadyAcknowledged])
    }

    @Test func theAckByRowStatementFindsAnEntryByItsSequence() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let entry = try await store.enqueue(Fixture.send("by row"))
        let changes = try await store.queue.write { db -> Int in
            try db.execute(sql: OutboxSQL.acknowledgeRow, arguments: ["M_1", 1, 0, 0, entry.id.rawValue, entry.sequence])
            return db.changes
        }
        #expect(changes == 1)
        #expect(try await store.outboxEntry(entry.id)?.acknowledgement?.messageId == "M_1")
    }

    @Test func anAckGivenAnotherEntrysRowAcknowledgesItsOwnEntryOnly() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let acked = try await store.enqueue(Fixture.send("acked"))
        let other = try await store.enqueue(Fixture.send("other"))
        let report = try await store.markAcked([Fixture.ack(acked.id, seq: 1)], rows: [other.sequence])
        #expect(report.outcomes == [.acknowledged])
        #expect(try await store.outboxEntry(acked.id)?.status == .acked)
        #expect(try await store.outboxEntry(other.id)?.status == .pending)
        #expect(try await store.markAcked([Fixture.ack("unknown-id", seq: 2)], rows: [other.sequence]).outcomes == [.unknownEntry])
        #expect(try await store.outboxEntry(other.id)?.status == .pending)
    }

    @Test func aPermanentErrorFailsTheEntryForGood() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let entry = try await store.enqueue(Fixture.send("to a former friend"))
        #expect(try await store.markFailed(entry.id, code: .notFriends))
        #expect(try await store.markFailed(entry.id, code: .notFound) == false)
        let stored = try #require(try await store.outboxEntry(entry.id))
        #expect(stored.status == .failed)
        #expect(stored.lastError == .notFriends)
        #expect(try await store.pendingOutbox().isEmpty)
    }

    @Test func anAckedEntryCannotFailAndAFailedOneAcceptsALateAck() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let acked = try await store.enqueue(Fixture.send("a"))
        _ = try await store.markAcked(Fixture.ack(acked.id, seq: 1))
        #expect(try await store.markFailed(acked.id, code: .validationFailed) == false)
        #expect(try await store.outboxEntry(acked.id)?.status == .acked)

        let failed = try await store.enqueue(Fixture.send("b"))
        try await store.markFailed(failed.id, code: .internalError)
        #expect(try await store.markAcked(Fixture.ack(failed.id, seq: 2)).outcomes == [.acknowledged])
        #expect(try await store.outboxEntry(failed.id)?.status == .acked)
    }

    @Test func attemptsAreCountedWithTheLastTransientError() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let entry = try await store.enqueue(Fixture.send("retry me"))
        try await store.recordAttempts([entry.id])
        await clock.advance(by: .seconds(3))
        try await store.recordAttempts([entry.id], error: .rateLimited)
        try await store.recordAttempts([entry.id])
        let stored = try #require(try await store.outboxEntry(entry.id))
        #expect(stored.attempts == 3)
        #expect(stored.lastError == .rateLimited)
        #expect(stored.lastAttemptAt == Fixture.start.addingTimeInterval(3))
        #expect(stored.status == .pending)
    }

    @Test func pruningDeletesOnlySettledEntriesOlderThanTheCutoff() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let old = try await store.enqueue(Fixture.send("old"))
        let oldFailed = try await store.enqueue(Fixture.send("old failed"))
        let pending = try await store.enqueue(Fixture.send("pending"))
        _ = try await store.markAcked(Fixture.ack(old.id, seq: 1))
        try await store.markFailed(oldFailed.id, code: .notFound)
        await clock.advance(by: .seconds(3600))
        let recent = try await store.enqueue(Fixture.send("recent"))
        _ = try await store.markAcked(Fixture.ack(recent.id, seq: 2))

        #expect(try await store.pruneOutbox(settledBefore: Fixture.start.addingTimeInterval(60)) == 2)
        #expect(try await store.outboxEntry(old.id) == nil)
        #expect(try await store.outboxEntry(oldFailed.id) == nil)
        #expect(try await store.outboxEntry(pending.id)?.status == .pending)
        #expect(try await store.outboxEntry(recent.id)?.status == .acked)
    }

    /// A retry of quarantined work, or the rerun of a suspect after a long outage, re-enqueues its sends under the
    /// same ids: their settled entries must still be there to make that a no-op, past the service's 24 h window.
    @Test func pruningKeepsTheEntriesOfQuarantinedAndSuspectedWork() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let quarantined = try await store.enqueue(Fixture.send("quarantined"), traceID: "M_quarantined")
        let suspected = try await store.enqueue(Fixture.send("suspected"), traceID: "M_suspected")
        let other = try await store.enqueue(Fixture.send("other"), traceID: "M_other")
        for (entry, seq) in [(quarantined, 1), (suspected, 2), (other, 3)] {
            _ = try await store.markAcked(Fixture.ack(entry.id, seq: seq))
        }
        func record(_ trace: String) -> InFlightTable.Record {
            InFlightTable.Record(bot: "bot", handler: "onMessage", trace: trace, key: "message:\(trace)", summary: "", startedAt: Fixture.start)
        }
        try await store.recordCrashedWork([record("M_quarantined"), record("M_suspected")])
        let suspect = try #require(try await store.crashSuspects().first { $0.trace == "M_quarantined" })
        try await store.record([.quarantine(suspect, work: nil)])
        await clock.advance(by: .seconds(3600))

        #expect(try await store.pruneOutbox(settledBefore: Fixture.start.addingTimeInterval(60)) == 1)
        #expect(try await store.outboxEntry(quarantined.id)?.status == .acked)
        #expect(try await store.outboxEntry(suspected.id)?.status == .acked)
        #expect(try await store.outboxEntry(other.id) == nil)
    }

    @Test func originsAreStoredAsGiven() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let origins: [OutboxEntry.Origin] = [.direct, .handler(incoming: "M_1"), .schedule(job: "job-1", occurrence: 3)]
        for origin in origins {
            _ = try await store.enqueue(Fixture.send("x"), origin: origin)
        }
        #expect(try await store.pendingOutbox().map(\.origin) == origins)
    }

    /// More requests at once than one transaction takes, twice: whether the store's writer drains them inline or
    /// on the database's queue, and whichever way the second flood starts, each caller gets exactly its own result.
    @Test func floodsOfConcurrentEnqueuesAndAcksEachGetTheirOwnResult() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let count = StoreWriter.maxItemsPerTransaction * 3
        for round in 0..<2 {
            let ids = (0..<count).map { ClientMessageID("cm-\(round)-\($0)") }
            let entries = try await withThrowingTaskGroup(of: (ClientMessageID, OutboxEntry).self) { group in
                for id in ids { group.addTask { (id, try await store.enqueue(Fixture.send("\(id)", id: id))) } }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(entries.count == count)
            #expect(entries.allSatisfy { id, entry in entry.id == id && entry.message.content.body == id.rawValue })
            #expect(try await store.outboxDepth() == count)

            let outcomes = try await withThrowingTaskGroup(of: [AckOutcome].self) { group in
                for (index, id) in ids.enumerated() {
                    group.addTask { try await store.markAcked(Fixture.ack(id, seq: round * count + index + 1)).outcomes }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(outcomes.count == count)
            #expect(outcomes.allSatisfy { $0 == .acknowledged })
            #expect(try await store.outboxDepth() == 0)
        }
    }
}

/// The stored payload of an outbox entry reads back exactly, whatever the text holds.
@Suite("BotStore outbox payload")
struct OutboxPayloadTests {
    @Test(arguments: [
        "plain", "", "quote \" backslash \\ slash /", "lines\nand\r\ttabs", "control \u{01}\u{1f}\u{7f} chars",
        "émoji 👋🏽 and 中文", "\u{2028}\u{2029} separators", String(repeating: "long ", count: 900),
    ])
    func everyTextSurvivesStorage(_ body: String) async throws {
        let directory = try StoreDirectory()
        let store = try await openStore(in: directory)
        let send = MessageSend(
            conversationId: Fixture.direct, clientMessageId: ClientMessageID("cm-\(body.utf8.count)"),
            content: MessageContent(kind: .photo, body: body, mediaId: "MEDIA_1", replyToId: "M_9"))
        let sequence = try await store.enqueue(send).sequence
        await store.close()
        let reopened = try await openStore(in: directory)
        let stored = try #require(try await reopened.pendingOutbox().first)
        #expect(stored.sequence == sequence)
        #expect(stored.message == send)
    }

    @Test func absentFieldsAndUnknownKindsSurviveStorage() async throws {
        let directory = try StoreDirectory()
        let store = try await openStore(in: directory)
        let send = MessageSend(
            conversationId: Fixture.direct, clientMessageId: "cm-1", content: MessageContent(kind: .unrecognized("sticker"), body: nil))
        _ = try await store.enqueue(send)
        #expect(try await store.pendingOutbox().first?.message == send)
    }

    /// What a `message.send` carries is the text stored: the entry keeps it, so no resend encodes it again.
    @Test func anEntryCarriesItsStoredPayload() async throws {
        let directory = try StoreDirectory()
        let store = try await openStore(in: directory)
        let send = Fixture.send("quote \" and\nline")
        let enqueued = try await store.enqueue(send)
        let pending = try #require(try await store.pendingOutbox().first)
        await store.close()
        let stored = try await inspect(directory.file("bot.sqlite")) { db in
            try db.fetchOne(String.self, sql: "SELECT payload FROM outbox WHERE client_message_id = ?", arguments: [send.clientMessageId.rawValue])
        }
        #expect(enqueued.encodedMessage == stored)
        #expect(pending.encodedMessage == stored)
        #expect(stored == OutboxPayload.json(send))
    }

    /// A payload stored in another form of the same JSON (an older version's encoder: other key order, spaces) is
    /// resent byte for byte as stored, not re-encoded.
    @Test func aPayloadStoredInAnotherFormIsSentAsStored() async throws {
        let directory = try StoreDirectory()
        let store = try await openStore(in: directory)
        let send = Fixture.send("hi", id: "cm-old")
        _ = try await store.enqueue(send)
        await store.close()
        let older = #"{"type": "text", "clientMessageId": "cm-old", "conversationId": "C_DIRECT", "body": "hi"}"#
        let queue = try await DatabaseQueue(path: directory.file("bot.sqlite"))
        try await queue.write { db in
            try db.execute(sql: "UPDATE outbox SET payload = ? WHERE client_message_id = 'cm-old'", arguments: [older])
        }
        await queue.close()
        let reopened = try await openStore(in: directory)
        let entry = try #require(try await reopened.pendingOutbox().first)
        #expect(entry.message == send)
        #expect(entry.encodedMessage == older)
        await reopened.close()
    }

    @Test func changingAnEntrysMessageReencodesIt() {
        var entry = OutboxEntry(
            sequence: 1, message: Fixture.send("before", id: "cm-1"), createdAt: Fixture.start, status: .pending, attempts: 0,
            lastAttemptAt: nil, lastError: nil, acknowledgement: nil, origin: .direct, traceID: nil)
        entry.message = Fixture.send("after", id: "cm-1")
        #expect(entry.encodedMessage == OutboxPayload.json(Fixture.send("after", id: "cm-1")))
    }

    /// Entries share their fields between copies, yet a change to one copy is never seen through another.
    @Test func changingACopyOfAnEntryLeavesTheOriginalAsItWas() {
        let original = OutboxEntry(
            sequence: 1, message: Fixture.send("before", id: "cm-1"), createdAt: Fixture.start, status: .pending, attempts: 0,
            lastAttemptAt: nil, lastError: nil, acknowledgement: nil, origin: .direct, traceID: nil)
        var copy = original
        copy.status = .failed
        copy.attempts = 2
        copy.message = Fixture.send("after", id: "cm-1")
        #expect(original.status == .pending)
        #expect(original.attempts == 0)
        #expect(original.encodedMessage == OutboxPayload.json(Fixture.send("before", id: "cm-1")))
        #expect(copy != original)
        copy.status = .pending
        copy.attempts = 0
        copy.message = Fixture.send("before", id: "cm-1")
        #expect(copy == original)
    }
}
