@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// A handler's unit of work commits in one transaction: the message handled, its state, dialog and schedule
/// changes, and its replies, all or nothing.
@Suite("BotStore unit of work")
struct UnitOfWorkTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    struct Reminder: Codable, Sendable, Equatable {
        var text: String
        var count: Int
    }

    /// A unit handling `message` that touches every kind of record.
    func fullUnit(for message: Message, poisonSend: Bool = false) throws -> UnitOfWork {
        var unit = UnitOfWork(handling: message, bot: Fixture.bot, traceID: "trace-1")
        try unit.setValue(Reminder(text: "tea", count: 1), forKey: "reminder", in: .user(Fixture.alice))
        unit.setDialog(DialogState(name: "remind", step: "when"), user: Fixture.alice, conversation: message.conversationId)
        unit.scheduleJob(NewScheduledJob(id: ScheduledJob.ID("job-\(message.id)"), name: "remind", dueAt: Fixture.start.addingTimeInterval(60)))
        unit.send(.text("Noted."), to: message.conversationId)
        if poisonSend {
            unit.send(.text("this insert fails"), to: "C_POISON")
        }
        return unit
    }

    @Test func aCopyOfAUnitChangesAloneLikeAnyValue() throws {
        let message = Fixture.message(seq: 1)
        var original = try fullUnit(for: message)
        var copy = original
        copy.send(.text("only in the copy"), to: message.conversationId)
        copy.removeValue(forKey: "reminder", in: .user(Fixture.alice))
        copy.cancelJob(ScheduledJob.ID("job-\(message.id)"))
        copy.endDialog(user: Fixture.alice, conversation: message.conversationId)
        copy.traceID = "trace-copy"
        original.nextDueAt = Fixture.start

        #expect(original.messages.map(\.content.body) == ["Noted."])
        #expect(copy.messages.map(\.content.body) == ["Noted.", "only in the copy"])
        #expect(original.pendingValue(forKey: "reminder", in: .user(Fixture.alice)) != .some(nil))
        #expect(copy.pendingValue(forKey: "reminder", in: .user(Fixture.alice)) == .some(nil))
        #expect(original.jobChanges.count == 1 && copy.jobChanges.count == 2)
        #expect(original.pendingDialog(user: Fixture.alice, conversation: message.conversationId) != .some(nil))
        #expect(copy.pendingDialog(user: Fixture.alice, conversation: message.conversationId) == .some(nil))
        #expect(original.traceID == "trace-1" && copy.traceID == "trace-copy")
        #expect(original.nextDueAt == Fixture.start && copy.nextDueAt == nil)
    }

    /// Makes every outbox insert for `C_POISON` fail inside SQLite, to break a unit in the middle of its commit:
    /// `ABORT` fails the statement, `ROLLBACK` rolls back the whole transaction as some I/O errors do. Installed
    /// through the store's own connection: the store holds its file exclusively.
    func installPoison(_ resolution: String = "ABORT", in store: BotStore) async throws {
        try await store.queue.write { db in
            try db.execute(sql: """
                CREATE TRIGGER poison BEFORE INSERT ON outbox WHEN NEW.conversation_id = 'C_POISON'
                BEGIN SELECT RAISE(\(resolution), 'poisoned insert'); END
                """)
        }
    }

    @Test func aCommittedUnitStoresEveryEffectTogether() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let message = Fixture.message(seq: 1)
        let receipt = try await store.commit(try fullUnit(for: message))

        #expect(receipt.contiguousSeq == 1)
        #expect(receipt.outboxEntries.count == 1)
        #expect(receipt.createdEntries == [ClientMessageID.derived(bot: Fixture.bot, handling: message.id, index: 0)])
        #expect(receipt.outboxEntries.first?.origin == .handler(incoming: message.id))
        #expect(receipt.outboxEntries.first?.traceID == "trace-1")
        #expect(try await store.isSeen(message))
        #expect(try await store.value(Reminder.self, forKey: "reminder", in: .user(Fixture.alice)) == Reminder(text: "tea", count: 1))
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct)?.step == "when")
        #expect(try await store.job(ScheduledJob.ID("job-\(message.id)"))?.status == .scheduled)
        #expect(try await store.pendingOutbox().map(\.id) == receipt.outboxEntries.map(\.id))
    }

    @Test func aUnitThatFailsMidCommitLeavesNothingBehind() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await installPoison(in: store)
        let message = Fixture.message(seq: 1)
        await #expect(throws: BotStoreError.self) {
            _ = try await store.commit(try fullUnit(for: message, poisonSend: true))
        }
        #expect(try await store.isSeen(message) == false)
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 0)
        #expect(try await store.value(Reminder.self, forKey: "reminder", in: .user(Fixture.alice)) == nil)
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct) == nil)
        #expect(try await store.job(ScheduledJob.ID("job-\(message.id)")) == nil)
        #expect(try await store.outboxDepth() == 0)
        // The message can still be handled: nothing of the failed attempt is in the way.
        #expect(try await store.commit(try fullUnit(for: message)).contiguousSeq == 1)
    }

    @Test func inAGroupCommitAFailingUnitIsUndoneAloneAndTheOthersCommit() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.recordConversations([Fixture.conversation(Fixture.direct), Fixture.conversation(Fixture.group)])
        try await installPoison(in: store)
        let good = Fixture.message(Fixture.direct, seq: 1)
        let bad = Fixture.message(Fixture.group, seq: 1)
        let afterBad = Fixture.message(Fixture.direct, seq: 2)
        let results = try await store.commit([try fullUnit(for: good), try fullUnit(for: bad, poisonSend: true), try fullUnit(for: afterBad)])

        #expect(results.count == 3)
        #expect((try? results[0].get())?.contiguousSeq == 1)
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get())?.contiguousSeq == 2)
        #expect(try await store.syncPositions() == [Fixture.direct: 2, Fixture.group: 0])
        #expect(try await store.job(ScheduledJob.ID("job-\(bad.id)")) == nil)
        #expect(try await store.job(ScheduledJob.ID("job-\(good.id)")) != nil)
        #expect(try await store.outboxDepth() == 2)
    }

    @Test func whenSQLiteRollsBackTheWholeTransactionTheWholeGroupFailsAndNothingIsStored() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.recordConversations([Fixture.conversation(Fixture.direct), Fixture.conversation(Fixture.group)])
        try await installPoison("ROLLBACK", in: store)
        let units = [
            try fullUnit(for: Fixture.message(Fixture.direct, seq: 1)),
            try fullUnit(for: Fixture.message(Fixture.group, seq: 1), poisonSend: true),
            try fullUnit(for: Fixture.message(Fixture.direct, seq: 2)),
        ]
        await #expect(throws: BotStoreError.self) { _ = try await store.commit(units) }
        #expect(try await store.syncPositions() == [Fixture.direct: 0, Fixture.group: 0])
        #expect(try await store.outboxDepth() == 0)
        #expect(try await store.jobs().isEmpty)
        // The store goes on working: the same units, without the poisoned one, commit.
        let results = try await store.commit([units[0], units[2]])
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(try await store.syncPositions() == [Fixture.direct: 2, Fixture.group: 0])
    }

    @Test func handlingAMessageAgainIsRefusedAndAppliesNothing() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let message = Fixture.message(seq: 1)
        try await handle(message, in: store)
        var again = UnitOfWork(handling: message, bot: Fixture.bot)
        try again.setValue("twice", forKey: "k", in: .global)
        let error = await storeError { _ = try await store.commit(again) }
        guard case .alreadyHandled(let id, let conversation, let seq)? = error else {
            Issue.record("expected alreadyHandled, got \(String(describing: error))")
            return
        }
        #expect(id == message.id && conversation == Fixture.direct && seq == 1)
        #expect(try await store.value(String.self, forKey: "k", in: .global) == nil)
    }

    @Test func handlingAMessageAheadOfItsTurnIsRefused() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let error = await storeError { _ = try await handle(Fixture.message(seq: 2), in: store) }
        guard case .outOfOrder(_, Fixture.direct, 2, 1)? = error else {
            Issue.record("expected outOfOrder, got \(String(describing: error))")
            return
        }
    }

    @Test func handlingAMessageOfAnUnrecordedConversationIsRefused() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let error = await storeError { _ = try await handle(Fixture.message(seq: 1), in: store) }
        guard case .unknownConversation(Fixture.direct)? = error else {
            Issue.record("expected unknownConversation, got \(String(describing: error))")
            return
        }
    }

    @Test func readsThroughAUnitSeeItsOwnPendingWrites() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        try await store.setValue(1, forKey: "count", in: .conversation(Fixture.direct))
        try await store.setValue("stays", forKey: "other", in: .conversation(Fixture.direct))
        try await store.setValue("gone soon", forKey: "old", in: .conversation(Fixture.direct))

        var unit = UnitOfWork(handling: Fixture.message(seq: 1), bot: Fixture.bot)
        let scope = StateScope.conversation(Fixture.direct)
        let count = try await store.value(Int.self, forKey: "count", in: scope, overlaying: unit) ?? 0
        try unit.setValue(count + 1, forKey: "count", in: scope)
        unit.removeValue(forKey: "old", in: scope)
        try unit.setValue(true, forKey: "new", in: scope)
        unit.setDialog(DialogState(name: "quiz", step: "q2"), user: Fixture.alice, conversation: Fixture.direct)
        unit.scheduleJob(NewScheduledJob(id: "pending-job", name: "remind", dueAt: Fixture.start, owner: .user(Fixture.alice)))

        #expect(try await store.value(Int.self, forKey: "count", in: scope, overlaying: unit) == 2)
        #expect(try await store.value(Int.self, forKey: "count", in: scope) == 1)
        #expect(try await store.value(String.self, forKey: "old", in: scope, overlaying: unit) == nil)
        #expect(try await store.value(String.self, forKey: "other", in: scope, overlaying: unit) == "stays")
        #expect(try await store.keys(in: scope, overlaying: unit) == ["count", "new", "other"])
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct, overlaying: unit)?.step == "q2")
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct) == nil)
        #expect(try await store.jobs(ownedBy: .user(Fixture.alice), overlaying: unit).map(\.id) == ["pending-job"])
        #expect(try await store.jobs(ownedBy: .user(Fixture.alice)).isEmpty)

        try await store.commit(unit)
        #expect(try await store.keys(in: scope) == ["count", "new", "other"])
        #expect(try await store.value(Int.self, forKey: "count", in: scope) == 2)
    }

    @Test func sendsGetClientMessageIdsDerivedFromTheTriggerAndTheirIndex() throws {
        let message = Fixture.message(seq: 7)
        var first = UnitOfWork(handling: message, bot: Fixture.bot)
        var second = UnitOfWork(handling: message, bot: Fixture.bot)
        let ids = [first.send(.text("a"), to: Fixture.direct), first.send(.text("b"), to: Fixture.direct)]
        let rerun = [second.send(.text("a'"), to: Fixture.direct), second.send(.text("b'"), to: Fixture.direct)]
        #expect(ids == rerun)
        #expect(ids[0] == .derived(bot: Fixture.bot, handling: message.id, index: 0))
        #expect(ids[1] == .derived(bot: Fixture.bot, handling: message.id, index: 1))
        var direct = UnitOfWork(bot: Fixture.bot)
        let once = direct.send(.text("x"), to: Fixture.direct)
        let twice = direct.send(.text("x"), to: Fixture.direct)
        #expect(once != twice)
    }

    @Test func aValueThatCannotBeEncodedFailsWhenSetAndReadingAsAnotherTypeNamesTheKey() async throws {
        let store = try await openStore(in: directory, clock: clock)
        var unit = UnitOfWork(bot: Fixture.bot)
        #expect(throws: BotStoreError.self) { try unit.setValue(Double.nan, forKey: "nan", in: .global) }
        try await store.setValue("text", forKey: "typed", in: .global)
        let error = await storeError { _ = try await store.value(Int.self, forKey: "typed", in: .global) }
        guard case .undecodableValue(let key, let scope, _, _)? = error else {
            Issue.record("expected undecodableValue, got \(String(describing: error))")
            return
        }
        #expect(key == "typed" && scope == .global)
        #expect(try await store.value(JSONValue.self, forKey: "typed", in: .global) == "text")
    }

    @Test func stateDataIsCodedAsTheBotAPICodesIt() async throws {
        let store = try await openStore(in: directory, clock: clock)
        struct Note: Codable, Sendable, Equatable {
            var text: String
            var at: Date
        }
        let note = Note(text: "tea", at: Fixture.start)
        // Written through the store's typed API, read the way BotContext.state(_:in:) decodes it...
        try await store.setValue(note, forKey: "note", in: .global)
        let data = try #require(try await store.stateData(forKey: "note", in: .global))
        #expect(try JSONDecoder().decode(Note.self, from: data) == note)
        // ...and written the way BotStateStore.set(_:for:in:) encodes it, read through the typed API.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await store.setStateData(try encoder.encode(note), forKey: "from-context", in: .global)
        #expect(try await store.value(Note.self, forKey: "from-context", in: .global) == note)
        try await store.setStateData(nil, forKey: "from-context", in: .global)
        #expect(try await store.stateData(forKey: "from-context", in: .global) == nil)
    }

    @Test func stateDataThatIsNotJSONIsRefused() async throws {
        let store = try await openStore(in: directory, clock: clock)
        var unit = UnitOfWork(bot: Fixture.bot)
        #expect(throws: BotStoreError.self) { try unit.setStateData(Data("not json".utf8), forKey: "k", in: .global) }
        await #expect(throws: BotStoreError.self) { try await store.setStateData(Data([0xff, 0xfe]), forKey: "k", in: .global) }
        try unit.setStateData(Data("[1,2]".utf8), forKey: "k", in: .global)
        #expect(try await store.stateData(forKey: "k", in: .global, overlaying: unit) == Data("[1,2]".utf8))
    }

    @Test func stateIsScopedGloballyPerUserAndPerConversation() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.setValue("g", forKey: "k", in: .global)
        try await store.setValue("alice", forKey: "k", in: .user(Fixture.alice))
        try await store.setValue("ben", forKey: "k", in: .user(Fixture.ben))
        try await store.setValue("direct", forKey: "k", in: .conversation(Fixture.direct))
        #expect(try await store.value(String.self, forKey: "k", in: .user(Fixture.alice)) == "alice")
        #expect(try await store.value(String.self, forKey: "k", in: .user(Fixture.ben)) == "ben")
        #expect(try await store.value(String.self, forKey: "k", in: .global) == "g")
        #expect(try await store.removeValue(forKey: "k", in: .user(Fixture.ben)))
        #expect(try await store.removeValue(forKey: "k", in: .user(Fixture.ben)) == false)
        #expect(try await store.value(String.self, forKey: "k", in: .user(Fixture.ben)) == nil)
        #expect(try await store.removeAllValues(in: .user(Fixture.alice)) == 1)
        #expect(try await store.keys(in: .global) == ["k"])
        #expect(try await store.value(String.self, forKey: "k", in: .conversation(Fixture.direct)) == "direct")
    }

    @Test func dialogsExpireAndEnd() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let dialog = DialogState(name: "remind", step: "what", data: ["when": "8pm"], expiresAt: Fixture.start.addingTimeInterval(300))
        try await store.setDialog(dialog, user: Fixture.alice, conversation: Fixture.direct)
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct) == dialog)
        await clock.advance(by: .seconds(300))
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct) == nil)
        #expect(try await store.pruneExpiredDialogs() == 1)
        try await store.setDialog(DialogState(name: "quiz", step: "1"), user: Fixture.alice, conversation: Fixture.direct)
        #expect(try await store.endDialog(user: Fixture.alice, conversation: Fixture.direct))
        #expect(try await store.dialog(user: Fixture.alice, conversation: Fixture.direct) == nil)
    }

    @Test func concurrentCommitsFromManyConversationsAllLand() async throws {
        let store = try await openStore(in: directory, clock: clock)
        let conversations = (0..<50).map { Conversation.ID("C_\($0)") }
        try await store.recordConversations(conversations.map { Fixture.conversation($0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for conversation in conversations {
                group.addTask {
                    for seq in 1...8 {
                        var unit = UnitOfWork(handling: Fixture.message(conversation, seq: seq), bot: Fixture.bot)
                        unit.send(.text("reply \(seq)"), to: conversation)
                        let receipt = try await store.commit(unit)
                        #expect(receipt.contiguousSeq == seq)
                    }
                }
            }
            try await group.waitForAll()
        }
        let positions = try await store.syncPositions()
        #expect(positions.count == 50 && positions.values.allSatisfy { $0 == 8 })
        #expect(try await store.outboxDepth() == 400)
    }
}
