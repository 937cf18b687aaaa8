@testable import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import Testing
import WebSocket

/// The store's one writer: each write gets its own typed result, the writes of a batch share one transaction, and
/// handler units commit per lane in order.
@Suite("Store writer")
struct StoreWriterTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    private struct Refused: Error {}

    @Test func eachWriteOfOneTransactionGetsItsOwnTypedResult() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let sendID = ClientMessageID("cm-typed")
        let results = Collected()
        // Written while the gate's transaction runs, the three wait for the next one and share it.
        try gate(store) { writer in
            writer.submit(.admit([Fixture.message(seq: 1)], bot: Fixture.bot)) { result in
                results.add("admit", (try? result.get()).map { $0.admissions == [.deliver] ? "deliver" : "\($0.admissions)" })
            }
            writer.submit(.enqueue([Self.pending(Fixture.send("hi", id: sendID))], origin: .direct)) {
                result in results.add("enqueue", (try? result.get()).map { $0.map(\.id.rawValue).joined() })
            }
            writer.submit(.rewind(Fixture.direct)) { result in
                results.add("rewind", (try? result.get()).map { "\($0.contiguousSeq.map(String.init) ?? "nil") \($0.released.count)" })
            }
        }
        let seen = await results.waitFor(3)
        #expect(seen["admit"] == "deliver")
        #expect(seen["enqueue"] == sendID.rawValue)
        #expect(seen["rewind"] == "0 0", "the rewind forgot the admitted message's hand-out: nothing committed yet")
        #expect(try await store.outboxEntry(sendID)?.status == .pending)
    }

    @Test func aFailedTransactionFailsEveryWriteInItAndStoresNoneOfIt() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let results = Collected()
        try gate(store) { writer in
            writer.submit(.enqueue([Self.pending(Fixture.send("a"))], origin: .direct)) {
                results.add("first", $0.failureDescription)
            }
            writer.submit(StoreWrite<Int>(items: 1, batching: .takesLingeringAcks) { _ in throw Refused() }) {
                results.add("failing", $0.failureDescription)
            }
            writer.submit(.acknowledge([Fixture.ack("cm-unknown", seq: 1)], rows: [])) { results.add("ack", $0.failureDescription) }
        }
        let seen = await results.waitFor(3)
        #expect(seen.values.allSatisfy { $0 == "\(Refused())" }, "\(seen)")
        #expect(try await store.outboxDepth() == 0)
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 0)
    }

    @Test func aRefusedUnitIsUndoneAloneAndTheOthersOfItsWriteCommit() async throws {
        let faults = StoreFaults()
        let store = try await BotStore.open(path: directory.file("bot.sqlite"), clock: clock, faults: faults)
        try await store.recordConversations([Fixture.conversation(), Fixture.conversation(Fixture.group, kind: .group)])
        let refused = Fixture.message(Fixture.group, seq: 1)
        faults.failUnits { $0.id == refused.id }
        let units = [Fixture.message(seq: 1), refused, Fixture.message(seq: 2)].map { message in
            var unit = UnitOfWork(handling: message, bot: Fixture.bot)
            unit.send(Fixture.send("re \(message.id)", to: message.conversationId))
            return unit
        }
        let results = try await store.commit(units)
        #expect(results.map { (try? $0.get())?.contiguousSeq } == [1, nil, 2])
        #expect(try await store.isSeen(messageID: refused.id) == false)
        #expect(try await store.outboxDepth() == 2)
    }

    @Test func aWriteGoesThroughEvenWhenItsCallerIsCancelled() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let id = ClientMessageID("cm-cancelled")
        let caller = Task { try await store.enqueue(Fixture.send("still", id: id)) }
        caller.cancel()
        #expect(try await caller.value.id == id)
        #expect(try await store.outboxEntry(id)?.status == .pending)
    }

    @Test func aWriteThatFindsATransactionRunningWaitsItsTurn() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let inline = Mutex<Bool?>(nil)
        try gate(store) { writer in
            inline.withLock { $0 = writer.writeInline(.admit([Fixture.message(seq: 1)], bot: Fixture.bot)) != nil }
        }
        #expect(inline.withLock { $0 } == false)
        let alone = store.writer.writeInline(.admit([Fixture.message(seq: 1)], bot: Fixture.bot))
        #expect(try alone?.get().admissions == [.deliver], "alone, it is admitted at once: nothing was admitted before")
    }

    @Test func anAckThatFindsTheWriterIdleGoesWithTheNextCommitsTransaction() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let reply = try await store.enqueue(Fixture.send("reply", id: "cm-reply"))
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let (ackedAtOnce, ackedWithTheCommit, contiguous) = try await Task(executorPreference: try group.nextTaskExecutor()) {
            () throws -> (Bool, Bool, Int?) in
            let acked = Mutex(false)
            store.writer.submit(.acknowledge([Fixture.ack(reply.id, seq: 2)], rows: [])) { result in
                acked.withLock { $0 = (try? result.get().outcomes) == [.acknowledged] }
            }
            let ackedAtOnce = acked.withLock { $0 }
            let unit = UnitOfWork(handling: Fixture.message(seq: 1), bot: Fixture.bot)
            let committed = store.writer.writeInline(.commit([unit], faults: store.faults))
            return (ackedAtOnce, acked.withLock { $0 }, try committed?.get().first?.get().contiguousSeq)
        }.value
        #expect(!ackedAtOnce, "the ack waits for a commit to join")
        #expect(ackedWithTheCommit)
        #expect(contiguous == 2, "the ack, applied first in the same transaction, let the cursor pass over the bot's reply")
    }

    @Test func aCommitThatTakesTheLingeringAcksLeavesTheLoopNoAlarmToWakeFor() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let reply = try await store.enqueue(Fixture.send("reply", id: "cm-reply"))
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let (alarmsWhileLingering, alarmsAfterTheCommit) = try await Task(executorPreference: executor) { () throws -> (Int?, Int?) in
            store.writer.submit(.acknowledge([Fixture.ack(reply.id, seq: 2)], rows: [])) { _ in }
            let lingering = EventLoopAlarm.pendingCount(on: executor)
            let unit = UnitOfWork(handling: Fixture.message(seq: 1), bot: Fixture.bot)
            _ = try store.writer.writeInline(.commit([unit], faults: store.faults))?.get()
            return (lingering, EventLoopAlarm.pendingCount(on: executor))
        }.value
        #expect(alarmsWhileLingering == 1)
        #expect(alarmsAfterTheCommit == 0)
    }

    @Test func anAckAloneOnAnEventLoopIsWrittenOnceItsLingerEnds() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let reply = try await store.enqueue(Fixture.send("reply", id: "cm-reply"))
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let executor = try group.nextTaskExecutor()
        let outcomes = await withCheckedContinuation { (continuation: CheckedContinuation<[AckOutcome]?, Never>) in
            Task(executorPreference: executor) {
                store.writer.submit(.acknowledge([Fixture.ack(reply.id, seq: 1)], rows: [])) { result in
                    continuation.resume(returning: try? result.get().outcomes)
                }
            }
        }
        #expect(outcomes == [.acknowledged])
        #expect(try await store.outboxEntry(reply.id)?.status == .acked)
    }

    // MARK: - Lanes

    @Test func aLanesUnitsCommitInOrderAndItsQueuedWritesAreReadUntilThen() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let routed = Mutex<[Int]>([])
        store.writer.openLanes(hooks(routing: { receipt, _ in routed.withLock { $0.append(receipt.contiguousSeq ?? -1) } }))
        let lane = HandlerLane.conversation(Fixture.direct)
        let pending = Mutex<[Data??]>([])
        try gate(store) { writer in
            for seq in 1...3 {
                var unit = UnitOfWork(handling: Fixture.message(seq: seq), bot: Fixture.bot)
                try unit.setStateData(Data("\(seq)".utf8), forKey: "count", in: .global)
                writer.submit(unit, in: lane, trace: "seq \(seq)")
                pending.withLock { $0.append(writer.pendingState(forKey: "count", in: .global, lane: lane)) }
            }
        }
        await store.writer.waitUntilLanesIdle()
        #expect(pending.withLock { $0 } == [Data("1".utf8), Data("2".utf8), Data("3".utf8)].map { .some(.some($0)) })
        #expect(routed.withLock { $0 } == [1, 2, 3])
        #expect(store.writer.lanesAreIdle)
        #expect(store.writer.pendingState(forKey: "count", in: .global, lane: lane) == nil)
        #expect(try await store.stateData(forKey: "count", in: .global) == Data("3".utf8))
    }

    @Test func aUnitTakenBeforeItsConversationWasRewoundIsNotCommitted() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        let refusals = Mutex<[String]>([])
        store.writer.openLanes(hooks(
            routing: { _, _ in Issue.record("a stale unit was committed") },
            isStale: { _, epoch in epoch == 0 },
            onRefusal: { unit, error, _ in refusals.withLock { $0.append("\(unit.traceID ?? "") \(error.map { "\($0)" } ?? "stale")") } }))
        let message = Fixture.message(seq: 1)
        store.writer.submit(UnitOfWork(handling: message, bot: Fixture.bot, traceID: "t1"), in: .conversation(Fixture.direct), trace: "t1")
        await store.writer.waitUntilLanesIdle()
        #expect(refusals.withLock { $0 } == ["t1 stale"])
        #expect(try await store.isSeen(message) == false)
    }

    @Test func aTicketIsWaitedForUntilItsUnitIsCommitted() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        store.writer.openLanes(hooks(routing: { _, _ in }))
        let lane = HandlerLane.conversation(Fixture.direct)
        let ticket = Mutex<UInt64>(0)
        try gate(store) { writer in
            ticket.withLock { $0 = writer.submit(UnitOfWork(handling: Fixture.message(seq: 1), bot: Fixture.bot), in: lane, trace: "t") }
            #expect(writer.hasPending(in: lane))
        }
        await store.writer.waitUntilCommitted(ticket.withLock { $0 }, in: lane)
        #expect(try await store.isSeen(Fixture.message(seq: 1)))
    }

    @Test func stoppedLanesTakeNoMoreUnitsAndReleaseTheirWaiters() async throws {
        let store = try await openStoreWithDirectConversation(in: directory, clock: clock)
        store.writer.openLanes(hooks(routing: { _, _ in }))
        store.writer.stopLanes()
        let lane = HandlerLane.conversation(Fixture.direct)
        let ticket = store.writer.submit(UnitOfWork(handling: Fixture.message(seq: 1), bot: Fixture.bot), in: lane, trace: "t")
        await store.writer.waitUntilCommitted(ticket, in: lane)
        await store.writer.waitUntilLanesIdle()
        #expect(!store.writer.hasPending(in: lane))
        #expect(try await store.isSeen(Fixture.message(seq: 1)) == false)
    }

    // MARK: - Helpers

    private static func pending(_ send: MessageSend) -> PendingSend {
        PendingSend(message: send, payload: OutboxPayload.json(send), traceID: nil)
    }

    /// Runs `body` inside a transaction of the store's writer, committed inline: whatever it submits waits for the
    /// writer's next transaction and shares it.
    private func gate(_ store: BotStore, _ body: @escaping @Sendable (StoreWriter) throws -> Void) throws {
        let writer = store.writer
        let ran = writer.writeInline(StoreWrite<Bool>(items: 1, batching: .goesAhead) { _ in
            try body(writer)
            return true
        })
        #expect(try ran?.get() == true, "the gate must run inline on an idle store")
    }

    private func hooks(
        routing route: @escaping StoreWriter.LaneHooks.Route,
        isStale: @escaping StoreWriter.LaneHooks.Staleness = { _, _ in false },
        onRefusal: @escaping StoreWriter.LaneHooks.Refusal = { _, _, _ in }
    ) -> StoreWriter.LaneHooks {
        StoreWriter.LaneHooks(
            clock: clock, log: SessionLog(sink: .discarding, bot: "writer", clock: clock), metrics: SessionMetrics(clock: clock),
            route: route, onRefusal: onRefusal, isStale: isStale, hasBacklog: { _ in false },
            onFatal: { reason, _, _ in Issue.record("the bot was stopped: \(reason)") })
    }
}

/// Results that callbacks report, by name, and a wait for a number of them.
private final class Collected: Sendable {
    private struct State {
        var results: [String: String] = [:]
        var waiters: [(count: Int, continuation: CheckedContinuation<[String: String], Never>)] = []
    }

    private let state = Mutex(State())

    func add(_ name: String, _ value: String?) {
        let ready = state.withLock { state -> [(CheckedContinuation<[String: String], Never>, [String: String])] in
            state.results[name] = value ?? "nil"
            let results = state.results
            let ready = state.waiters.filter { $0.count <= results.count }
            state.waiters.removeAll { $0.count <= results.count }
            return ready.map { ($0.continuation, results) }
        }
        for (continuation, results) in ready { continuation.resume(returning: results) }
    }

    func waitFor(_ count: Int) async -> [String: String] {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> [String: String]? in
                guard state.results.count < count else { return state.results }
                state.waiters.append((count, continuation))
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}

extension Result {
    /// The failure's description, or "success".
    fileprivate var failureDescription: String {
        switch self {
        case .success: "success"
        case .failure(let error): "\(error)"
        }
    }
}
