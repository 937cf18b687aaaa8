import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Conversation cursors: the contiguous seq for `sync.request`, parking ahead of gaps, release in seq order,
/// durable dedupe, and the bot's own messages passed over.
@Suite("BotStore conversations and dedupe")
struct ConversationCursorTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    func admit(_ messages: [Message], _ store: BotStore) async throws -> [MessageAdmission] {
        try await store.admit(messages, bot: Fixture.bot).admissions
    }

    @Test func messagesInOrderAreDeliveredAndAdvanceTheContiguousSeq() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let messages = (1...3).map { Fixture.message(seq: $0) }
        #expect(try await admit(messages, store) == [.deliver, .deliver, .deliver])
        for message in messages { try await handle(message, in: store) }
        #expect(try await store.syncPositions() == [Fixture.direct: 3])
    }

    /// Admission records nothing durable for a message to handle or to park (the service still has it, and the
    /// store's memory knows it was handed out): the file's write-ahead log does not grow.
    @Test func admittingOrdinaryMessagesWritesNothingToTheFile() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let wal = store.path + "-wal"
        let before = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int
        #expect(try await admit([Fixture.message(seq: 1), Fixture.message(seq: 3)], store) == [.deliver, .parked])
        #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int == before)
        try await handle(Fixture.message(seq: 1), in: store)
        #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int != before)
        #expect(try await store.conversationCursor(Fixture.direct)?.lastSeq == 3)
    }

    @Test func aBatchIsAdmittedInSeqOrderWhateverOrderItArrivesIn() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let admissions = try await admit([3, 1, 2].map { Fixture.message(seq: $0) }, store)
        #expect(admissions == [.deliver, .deliver, .deliver])
    }

    @Test func messagesAheadOfAGapAreParkedAndReleasedInSeqOrderOnceItCloses() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 1)], store) == [.deliver])
        #expect(try await admit([Fixture.message(seq: 4), Fixture.message(seq: 3)], store) == [.parked, .parked])
        #expect(try await handle(Fixture.message(seq: 1), in: store).released.isEmpty)
        #expect(try await store.nextDeliverable(in: Fixture.direct) == nil)

        // 2 closes the gap: it is delivered, and the parked 3 and 4 are handed out after it.
        let report = try await store.admit([Fixture.message(seq: 2)], bot: Fixture.bot)
        #expect(report.admissions == [.deliver])
        #expect(report.released.map(\.seq) == [3, 4])
        #expect(report.released.first == Fixture.message(seq: 3))
        // Handed out once: asking again gives nothing until they are handled.
        #expect(try await store.nextDeliverable(in: Fixture.direct) == nil)
        #expect(try await handle(Fixture.message(seq: 2), in: store).released.isEmpty)
        for message in report.released { try await handle(message, in: store) }
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 4)
    }

    @Test func duplicatesAreDroppedWhetherHandledInFlightOrParked() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        #expect(try await admit([Fixture.message(seq: 2)], store) == [.deliver])
        #expect(try await admit([Fixture.message(seq: 4)], store) == [.parked])
        let again = [1, 2, 4, 2].map { Fixture.message(seq: $0) }
        #expect(try await admit(again, store) == [.duplicate, .duplicate, .duplicate, .duplicate])
    }

    @Test func aMessageWhosePredecessorIsStillBeingHandledIsDeliveredNotParked() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 1)], store) == [.deliver])
        #expect(try await admit([Fixture.message(seq: 2)], store) == [.deliver])
        try await handle(Fixture.message(seq: 1), in: store)
        try await handle(Fixture.message(seq: 2), in: store)
        #expect(try await store.syncPositions() == [Fixture.direct: 2])
    }

    @Test func parkedMessagesAreNotKeptAcrossARestartTheCursorStaysBeforeThemForSync() async throws {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: first)
        #expect(try await admit([Fixture.message(seq: 3)], first) == [.parked])
        await first.close()

        // Parked messages live in memory: after a restart the sync from the contiguous seq brings 2 and 3 again.
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.syncPositions() == [Fixture.direct: 1])
        #expect(try await store.conversationsWithDeliverableMessages().isEmpty)
        let report = try await store.admit([Fixture.message(seq: 2), Fixture.message(seq: 3)], bot: Fixture.bot)
        #expect(report.admissions == [.deliver, .deliver])
        #expect(report.released.isEmpty)
    }

    @Test func rowsAnEarlierVersionParkedDurablyAreDroppedTheCursorStaysBeforeThem() async throws {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        await first.close()
        let path = directory.file("bot.sqlite")
        _ = try await sqlite3(path, """
            INSERT INTO parked_messages (conversation_id, seq, message_id, own, message, parked_at)
            VALUES ('\(Fixture.direct.rawValue)', 2, 'M_OLD_2', 0, '{}', 0), ('\(Fixture.direct.rawValue)', 3, 'M_OLD_3', 1, NULL, 0);
            """)

        let store = try await openStore(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 1), Fixture.message(seq: 2)], store) == [.deliver, .deliver])
        #expect(try await store.syncPositions() == [Fixture.direct: 0])
        await store.close()  // the store holds its file exclusively while open
        #expect(try await sqlite3(path, "SELECT count(*) FROM parked_messages;").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func aPositionNoConversationCanHaveIsACorruptRecordNotAnOverflow() async throws {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        await first.close()
        let path = directory.file("bot.sqlite")
        _ = try await sqlite3(path, """
            UPDATE conversations SET contiguous_seq = 9223372036854775807, last_seq = 9223372036854775807
            WHERE id = '\(Fixture.direct.rawValue)';
            """)

        let store = try await openStore(in: directory, clock: clock)
        func isThatRow(_ error: BotStoreError?) -> Bool {
            guard case .corruptRecord(let table, let key, let reason)? = error else { return false }
            return table == "conversations" && key == Fixture.direct.rawValue && reason.contains("9223372036854775807")
        }
        #expect(isThatRow(await #expect(throws: BotStoreError.self) { _ = try await store.syncPositions() }))
        #expect(isThatRow(await #expect(throws: BotStoreError.self) { _ = try await store.conversationCursors() }))
        #expect(isThatRow(await #expect(throws: BotStoreError.self) { _ = try await self.admit([Fixture.message(seq: 1)], store) }))
    }

    @Test func aCommitReleasesParkedMessagesThatFollowItOnceTheGapBeforeThemCloses() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 3)], store) == [.parked])
        // 1 and 2 were handled without passing through admission (e.g. fetched and handled by REST paging).
        #expect(try await handle(Fixture.message(seq: 1), in: store).released.isEmpty)
        #expect(try await handle(Fixture.message(seq: 2), in: store).released.map(\.seq) == [3])
    }

    @Test func parkedMessagesHandedOutButNotHandledBeforeARestartComeAgainThroughSync() async throws {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 2), Fixture.message(seq: 3)], first) == [.parked, .parked])
        // The bot's own message was seq 1: its ack closes the gap, and the store hands 2 and 3 out.
        let report = try await first.markAcked(Fixture.ack("reply", seq: 1))
        #expect(report.released.map(\.seq) == [2, 3])
        await first.close()

        // The process died before handling them: the cursor stands after the own message, so sync brings them again.
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.syncPositions() == [Fixture.direct: 1])
        #expect(try await admit([Fixture.message(seq: 2), Fixture.message(seq: 3)], store) == [.deliver, .deliver])
    }

    @Test func aParkedMessageThatIsNextIsFoundAndHandedOutAfterItsDeliveryWasAbandoned() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 2), Fixture.message(seq: 3)], store) == [.parked, .parked])
        #expect(try await store.markAcked(Fixture.ack("reply", seq: 1)).released.map(\.seq) == [2, 3])
        try await store.abandonDeliveries(in: Fixture.direct)
        #expect(try await store.conversationsWithDeliverableMessages() == [Fixture.direct])
        #expect(try await store.nextDeliverable(in: Fixture.direct)?.seq == 2)
        #expect(try await store.deliverableMessages(in: Fixture.direct).map(\.seq) == [3])
        #expect(try await store.conversationsWithDeliverableMessages().isEmpty)
    }

    @Test func abandonedDeliveriesAreHandedOutAgain() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 2)], store) == [.parked])
        _ = try await store.markAcked(Fixture.ack("reply", seq: 1))
        try await store.abandonDeliveries()
        #expect(try await store.nextDeliverable(in: Fixture.direct)?.seq == 2)
        try await store.abandonDeliveries(in: Fixture.direct)
        #expect(try await store.nextDeliverable(in: Fixture.direct)?.seq == 2)
    }

    @Test func anAckOfTheBotsOwnMessageAdvancesTheCursorOverIt() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        let reply = try await store.enqueue(Fixture.send("pong"))
        _ = try await store.markAcked(Fixture.ack(reply.id, seq: 2))
        #expect(try await store.syncPositions() == [Fixture.direct: 2])
        #expect(try await admit([Fixture.message(seq: 3)], store) == [.deliver])
    }

    @Test func anAckAheadOfTheCursorIsPassedOverWhenTheCursorReachesIt() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 1)], store) == [.deliver])
        // While 1 is being handled, the bot's reply to an earlier message is acked as seq 2, and 3 arrives.
        _ = try await store.markAcked(Fixture.ack("earlier-reply", seq: 2))
        #expect(try await admit([Fixture.message(seq: 3)], store) == [.deliver])
        try await handle(Fixture.message(seq: 1), in: store)
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 2)
        try await handle(Fixture.message(seq: 3), in: store)
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 3)
    }

    @Test func anIncomingMessageThatOvertookTheAckOfTheBotsReplyIsReleasedByTheAck() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        let reply = try await store.enqueue(Fixture.send("reply to 1"))
        #expect(try await admit([Fixture.message(seq: 3)], store) == [.parked])
        let report = try await store.markAcked(Fixture.ack(reply.id, seq: 2))
        #expect(report.outcomes == [.acknowledged])
        #expect(report.released.map(\.seq) == [3])
    }

    @Test func theBotsOwnMessageSeenThroughSyncIsPassedOverAndAcknowledgesItsEntry() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        let entry = try await store.enqueue(Fixture.send("lost ack"))
        let own = Fixture.message(seq: 2, from: Fixture.bot, body: "lost ack", clientMessageId: entry.id)
        let report = try await store.admit([own, Fixture.message(seq: 3)], bot: Fixture.bot)
        #expect(report.admissions == [.own, .deliver])
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 2)
        let acked = try #require(try await store.outboxEntry(entry.id))
        #expect(acked.status == .acked)
        #expect(acked.acknowledgement?.messageId == own.id)
        #expect(acked.acknowledgement?.seq == 2)
    }

    @Test func theBotsOwnMessageAheadOfAGapReleasesWhatFollowsOnceReached() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let report = try await store.admit(
            [Fixture.message(seq: 2, from: Fixture.bot), Fixture.message(seq: 3)], bot: Fixture.bot)
        #expect(report.admissions == [.own, .parked])
        // 1 closes the gap; the own 2 is passed over, so 3 is handed out right after 1.
        let next = try await store.admit([Fixture.message(seq: 1)], bot: Fixture.bot)
        #expect(next.admissions == [.deliver])
        #expect(next.released.map(\.seq) == [3])
        let receipt = try await handle(Fixture.message(seq: 1), in: store)
        #expect(receipt.contiguousSeq == 2)
        try await handle(Fixture.message(seq: 3), in: store)
        #expect(try await store.syncPositions() == [Fixture.direct: 3])
    }

    @Test func messagesOfAnUnrecordedConversationAreNotStored() async throws {
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 5)], store) == [.unknownConversation])
        try await store.recordConversations([Fixture.conversation(lastSeq: 5)])
        #expect(try await admit([Fixture.message(seq: 5)], store) == [.parked])
    }

    @Test func aConversationStartedAfterItsLastMessageSkipsItsHistory() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let cursors = try await store.recordConversations(
            [Fixture.conversation(Fixture.group, lastSeq: 40, kind: .group)], newConversationsStart: .afterLastMessage)
        #expect(cursors.map(\.contiguousSeq) == [40])
        #expect(try await admit([Fixture.message(Fixture.group, seq: 40), Fixture.message(Fixture.group, seq: 41)], store) == [
            .duplicate, .deliver,
        ])
        // Recording it again never moves a known cursor.
        try await store.recordConversations([Fixture.conversation(Fixture.group, lastSeq: 50, kind: .group)])
        let cursor = try await store.conversationCursor(Fixture.group)
        #expect(cursor?.contiguousSeq == 40)
        #expect(cursor?.lastSeq == 50)
    }

    @Test func skippingMessagesMovesTheCursorUpAndDropsParkedOnes() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 3), Fixture.message(seq: 6)], store) == [.parked, .parked])
        #expect(try await store.skipMessages(in: Fixture.direct, through: 5).map(\.seq) == [6])
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 5)
        #expect(try await store.skipMessages(in: Fixture.direct, through: 2).isEmpty)
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 5)
    }

    @Test func theUpdatedSinceMarkerIsTheNewestUpdatedAtOfARefreshPage() async throws {
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.conversationsUpdatedSince() == nil)
        let later = Fixture.start.addingTimeInterval(500)
        try await store.recordConversations([
            Fixture.conversation(Fixture.direct, updatedAt: later), Fixture.conversation(Fixture.group, updatedAt: Fixture.start),
        ], isRefreshPage: true)
        try await store.recordConversations(
            [Fixture.conversation(Fixture.group, updatedAt: Fixture.start.addingTimeInterval(100))], isRefreshPage: true)
        #expect(try await store.conversationsUpdatedSince() == Timestamp(later))
        #expect(try await store.conversationCursor(Fixture.group)?.updatedAt == Timestamp(Fixture.start.addingTimeInterval(100)))
    }

    @Test func aConversationRecordedOutsideARefreshLeavesTheUpdatedSinceMarker() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.recordConversations([Fixture.conversation(Fixture.group, updatedAt: Fixture.start)], isRefreshPage: true)
        try await store.recordConversations([Fixture.conversation(Fixture.direct, updatedAt: Fixture.start.addingTimeInterval(500))])
        #expect(try await store.conversationsUpdatedSince() == Timestamp(Fixture.start))
        #expect(try await store.conversationCursor(Fixture.direct)?.updatedAt == Timestamp(Fixture.start.addingTimeInterval(500)))
    }

    @Test func aRemovedConversationLeavesSyncButKeepsItsCursorForARejoin() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        #expect(try await store.removeConversation(Fixture.direct))
        #expect(try await store.syncPositions().isEmpty)
        #expect(try await store.conversationCursors().isEmpty)
        #expect(try await store.conversationCursors(includingRemoved: true).map(\.isRemoved) == [true])
        try await store.recordConversations([Fixture.conversation(lastSeq: 3)])
        #expect(try await store.syncPositions() == [Fixture.direct: 1])
    }

    @Test func messagesOfARemovedConversationArePassedOverUntilItIsRecordedAgain() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        try await store.removeConversation(Fixture.direct)
        // A sync or a fetch under way at the removal still brings the conversation's messages.
        #expect(try await admit([Fixture.message(seq: 2)], store) == [.removedConversation])
        #expect(try await store.syncPositions().isEmpty)

        try await store.recordConversations([Fixture.conversation(lastSeq: 2)])
        #expect(try await admit([Fixture.message(seq: 2)], store) == [.deliver])
    }

    @Test func aRemovedConversationStaysRemovedAcrossAReopen() async throws {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await first.removeConversation(Fixture.direct)
        await first.close()
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 1)], store) == [.removedConversation])
    }

    @Test func theBotsOwnMessageInARemovedConversationIsStillPassedOverAsItsOwn() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.removeConversation(Fixture.direct)
        #expect(try await admit([Fixture.message(seq: 1, from: Fixture.bot)], store) == [.own])
    }

    @Test func removingAConversationAgainChangesNothing() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await store.removeConversation(Fixture.direct))
        #expect(try await store.removeConversation(Fixture.direct) == false)
    }

    @Test func handledMessagesAreSeenAfterAReopen() async throws {
        let first = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: first)
        await first.close()
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.isSeen(Fixture.message(seq: 1)))
        #expect(try await store.isSeen(messageID: Fixture.message(seq: 1).id))
        #expect(try await store.isSeen(Fixture.message(seq: 2)) == false)
        #expect(try await admit([Fixture.message(seq: 1)], store) == [.duplicate])
    }

    @Test func aKnownMessageIdUnderANewSeqIsStillADuplicate() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await handle(Fixture.message(seq: 1), in: store)
        var resequenced = Fixture.message(seq: 1)
        resequenced.seq = 2
        #expect(try await admit([resequenced], store) == [.duplicate])
    }

    /// Admission first reads the seen ids into memory; ids handled after that reach the memory as they are written.
    @Test func anIdHandledAfterTheSeenIdsWereReadIsStillADuplicateUnderANewSeq() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        #expect(try await admit([Fixture.message(seq: 1)], store) == [.deliver])
        try await handle(Fixture.message(seq: 1), in: store)
        var resequenced = Fixture.message(seq: 1)
        resequenced.seq = 2
        #expect(try await admit([resequenced], store) == [.duplicate])
        #expect(try await admit([Fixture.message(seq: 2)], store) == [.deliver])
    }

    /// The seen ids in memory are read again, larger, once more ids were handled than they were sized for.
    @Test func manyIdsHandledAfterTheSeenIdsWereReadAreStillDuplicatesUnderNewSeqs() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let messages = (1...600).map { Fixture.message(seq: $0) }
        #expect(try await admit([messages[0]], store) == [.deliver])
        _ = try await admit(Array(messages.dropFirst()), store)
        _ = try await store.commit(messages.map { UnitOfWork(handling: $0, bot: Fixture.bot) })
        let resequenced = messages.map { message in
            var copy = message
            copy.seq += 1_000
            return copy
        }
        #expect(try await admit(resequenced, store).allSatisfy { $0 == .duplicate })
        #expect(try await admit([Fixture.message(seq: 601)], store) == [.deliver])
    }

    @Test func pruningSeenRecordsKeepsDedupeCorrect() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let messages = (1...30).map { Fixture.message(seq: $0) }
        _ = try await admit(messages, store)
        _ = try await store.commit(messages.map { UnitOfWork(handling: $0, bot: Fixture.bot) })
        await clock.advance(by: .seconds(3600))

        #expect(try await store.pruneSeenMessages(keepingNewest: 5, handledWithin: .seconds(60)) == 25)
        #expect(try await store.isSeen(messageID: messages[0].id) == false)
        #expect(try await store.isSeen(messageID: messages[29].id))
        // Every handled message is still a duplicate: the contiguous seq covers the pruned records.
        #expect(try await admit(messages, store).allSatisfy { $0 == .duplicate })
        #expect(try await store.isSeen(messages[0]))
        #expect(try await store.pruneSeenMessages(keepingNewest: 5, handledWithin: .seconds(60)) == 0)
    }

    @Test func recentSeenRecordsAreKeptByAge() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let messages = (1...10).map { Fixture.message(seq: $0) }
        _ = try await store.commit(messages.map { UnitOfWork(handling: $0, bot: Fixture.bot) })
        #expect(try await store.pruneSeenMessages(keepingNewest: 0, handledWithin: .seconds(60)) == 0)
        await clock.advance(by: .seconds(61))
        #expect(try await store.pruneSeenMessages(keepingNewest: 0, handledWithin: .seconds(60)) == 10)
    }
}
