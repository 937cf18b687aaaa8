@testable import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import TestSupport
import Testing

/// The dispatcher on its own: a runner that records and blocks on command, a manual clock, no sockets.
@Suite struct HandlerDispatcherTests {
    /// Records what the dispatcher runs; handlers whose text is in `blocking` wait until released.
    final class RecordingRunner: HandlerDispatcher.Runner {
        private struct State {
            var started: [String] = []
            var finished: [String] = []
            var recovered: [String] = []
            var running = 0
            var maxRunning = 0
            var gates: [String: Gate] = [:]
            var contiguous: [Conversation.ID: Int] = [:]
            var asked: [Conversation.ID] = []
            var unreadable: Set<Conversation.ID> = []
        }

        private let state = Mutex(State())
        /// Signalled after every call the dispatcher makes.
        private let changes = ChangeSignal()

        var started: [String] { state.withLock { $0.started } }
        var finished: [String] { state.withLock { $0.finished } }
        var recovered: [String] { state.withLock { $0.recovered } }
        var maxRunning: Int { state.withLock { $0.maxRunning } }
        /// The conversations whose contiguous seq the dispatcher asked for, in order.
        var asked: [Conversation.ID] { state.withLock { $0.asked } }

        /// Returns once `condition` holds, checked after each call the dispatcher makes.
        func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
            do {
                try await changes.wait(until: { condition() }, what)
            } catch {
                Issue.record("\(error)")
                throw error
            }
        }

        private func update<T>(_ change: (inout State) -> T) -> T {
            let result = state.withLock { change(&$0) }
            changes.signal()
            return result
        }

        /// Makes the handler for `text` wait until `release(text)`.
        func block(_ text: String) {
            state.withLock { $0.gates[text] = Gate() }
        }

        func release(_ text: String) {
            state.withLock { $0.gates[text] }?.open()
        }

        func setStoreContiguous(_ seq: Int, in conversation: Conversation.ID) {
            state.withLock { $0.contiguous[conversation] = seq }
        }

        func run(_ work: HandlerWork, _ run: HandlerRun) async {
            let text = Self.text(of: work)
            let gate = update { state -> Gate? in
                state.started.append(text)
                state.running += 1
                state.maxRunning = max(state.maxRunning, state.running)
                return state.gates[text]
            }
            await gate?.wait()
            update { state in
                state.running -= 1
                state.finished.append(text)
            }
            _ = run.complete()
        }

        func recover(_ work: HandlerWork, _ run: HandlerRun, timedOutAfter timeout: Duration) async {
            update { state in
                state.running -= 1
                state.recovered.append(Self.text(of: work))
            }
        }

        func laneDrained(_ conversation: Conversation.ID) {}

        func contiguousSeq(of conversation: Conversation.ID) async throws -> Int? {
            let (contiguous, unreadable) = update { state in
                state.asked.append(conversation)
                return (state.contiguous[conversation], state.unreadable.contains(conversation))
            }
            if unreadable { throw CancellationError() }
            return contiguous
        }

        /// Makes reading where `conversation` stands fail, as a store that cannot be read.
        func setStoreUnreadable(_ conversation: Conversation.ID, _ unreadable: Bool = true) {
            state.withLock { state in
                if unreadable { state.unreadable.insert(conversation) } else { state.unreadable.remove(conversation) }
            }
        }

        static func text(of work: HandlerWork) -> String {
            switch work {
            case .message(let message): message.body ?? ""
            case .event(_, let trace), .messageUpdated(_, let trace): trace
            case .job(let occurrence): occurrence.job.name
            case .retry(let entry): entry.trace
            }
        }
    }

    static func message(_ seq: Int, in conversation: Conversation.ID = "C1") -> HandlerWork {
        .message(Message(
            id: Message.ID("\(conversation.rawValue)-\(seq)"), conversationId: conversation, seq: seq, senderId: "ANA",
            clientMessageId: nil, kind: .text, body: "\(conversation.rawValue)#\(seq)", createdAt: Timestamp(millisecondsSince1970: 0)))
    }

    @Test func messagesOfAConversationRunInSeqOrderEvenWhenHandedOutOfOrder() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(0, in: "C1")
        dispatcher.enqueue([Self.message(3), Self.message(1)], in: .conversation("C1"))
        dispatcher.enqueue(Self.message(2), in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("three handlers finished") { runner.finished.count == 3 }
        #expect(runner.started == ["C1#1", "C1#2", "C1#3"])
        dispatcher.cancelAll()
    }

    @Test func aMessageQueuedAfterAnUpdateOfItRunsBeforeTheUpdate() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(0, in: "C1")
        guard case .message(let second) = Self.message(2) else { return }
        dispatcher.enqueue(.messageUpdated(second, trace: "edit of 2"), in: .conversation("C1"))
        dispatcher.enqueue([Self.message(2), Self.message(1)], in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("three handlers finished") { runner.finished.count == 3 }
        #expect(runner.started == ["C1#1", "C1#2", "edit of 2"])
        dispatcher.cancelAll()
    }

    @Test func anUpdateOfAMessageStillQueuedReplacesIt() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(0, in: "C1")
        guard case .message(var first) = Self.message(1) else { return }
        dispatcher.enqueue([Self.message(1), Self.message(2)], in: .conversation("C1"))
        first.body = "C1#1, edited"
        dispatcher.enqueue(.messageUpdated(first, trace: "edit of 1"), in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("both messages finished") { runner.finished.count == 2 }
        #expect(runner.started == ["C1#1, edited", "C1#2"])
        dispatcher.cancelAll()
    }

    /// As after a rewind, which drops a conversation's queued messages but keeps its updates until the messages come
    /// back from the store.
    @Test func anUpdateWhoseMessageIsNotQueuedWaitsUntilTheMessageComesAndRuns() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(1, in: "C1")
        guard case .message(let second) = Self.message(2) else { return }
        dispatcher.enqueue(.messageUpdated(second, trace: "edit of 2"), in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("the lane asked the store where the conversation is") { runner.asked == ["C1"] }
        #expect(runner.started.isEmpty, "message 2 was not handled yet")
        dispatcher.enqueue(Self.message(2), in: .conversation("C1"))
        try await runner.waitUntil("both handlers finished") { runner.finished.count == 2 }
        #expect(runner.started == ["C1#2", "edit of 2"])
        dispatcher.cancelAll()
    }

    @Test func anUpdateInAConversationWithoutACursorRunsOnceTheStoreSaysSo() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        guard case .message(let message) = Self.message(2) else { return }
        dispatcher.enqueue(.messageUpdated(message, trace: "edit of 2"), in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("the update ran") { runner.finished == ["edit of 2"] }
        #expect(runner.asked == ["C1"])
        dispatcher.cancelAll()
    }

    @Test func anUpdateWaitsWhenTheStoreCannotSayWhereItsConversationIs() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreUnreadable("C1")
        guard case .message(let message) = Self.message(1) else { return }
        dispatcher.enqueue(.messageUpdated(message, trace: "edit of 1"), in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("the lane asked the store") { runner.asked == ["C1"] }
        #expect(runner.started.isEmpty)
        dispatcher.noteContiguous(0, in: "C1")
        dispatcher.enqueue(Self.message(1), in: .conversation("C1"))
        try await runner.waitUntil("the message, then its update") { runner.finished.count == 2 }
        #expect(runner.started == ["C1#1", "edit of 1"])
        dispatcher.cancelAll()
    }

    @Test func aLaneThatCouldNotReadTheStoreAsksAgainAfterASecond() async throws {
        let runner = RecordingRunner()
        let clock = ManualClock()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30), clock: clock)
        runner.setStoreUnreadable("C1")
        guard case .message(let message) = Self.message(1) else { return }
        dispatcher.enqueue(.messageUpdated(message, trace: "edit of 1"), in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("the lane asked the store") { runner.asked == ["C1"] }
        runner.setStoreUnreadable("C1", false)
        await clock.advance(by: HandlerDispatcher.unreadableRetryDelay)
        try await runner.waitUntil("it asked again and, with no cursor there, ran the update") { runner.finished == ["edit of 1"] }
        #expect(runner.asked == ["C1", "C1"])
        dispatcher.cancelAll()
    }

    @Test func aLaneWaitsForAMissingMessageAndGoesOnWhenTheBotsOwnMessageFillsTheGap() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(1, in: "C1")
        dispatcher.open(runner: runner)
        dispatcher.enqueue(Self.message(3), in: .conversation("C1"))  // seq 2 is the bot's reply, not acked yet
        try await runner.waitUntil("the lane looked up the store's seq") { runner.asked.contains("C1") }
        #expect(runner.started.isEmpty)
        dispatcher.noteOwn([2], in: "C1")
        try await runner.waitUntil("C1#3 finished") { runner.finished == ["C1#3"] }
        dispatcher.cancelAll()
    }

    @Test func aMessageTheStoreAlreadyPassedIsNotRunAgain() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(0, in: "C1")
        dispatcher.open(runner: runner)
        dispatcher.enqueue(Self.message(1), in: .conversation("C1"))
        try await runner.waitUntil("C1#1 finished") { runner.finished == ["C1#1"] }
        dispatcher.noteContiguous(1, in: "C1")
        dispatcher.enqueue([Self.message(1), Self.message(2)], in: .conversation("C1"))
        try await runner.waitUntil("C1#2 finished") { runner.finished == ["C1#1", "C1#2"] }
        try await withDeadline(.hangGuard, "the dispatcher to be idle") { await dispatcher.waitUntilIdle() }
        #expect(runner.started == ["C1#1", "C1#2"])
        dispatcher.cancelAll()
    }

    @Test func conversationsRunConcurrentlyUpToTheBound() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 2, timeout: .seconds(30))
        let conversations: [Conversation.ID] = ["A", "B", "C", "D"]
        for conversation in conversations {
            runner.setStoreContiguous(0, in: conversation)
            runner.block("\(conversation.rawValue)#1")
        }
        dispatcher.open(runner: runner)
        for conversation in conversations { dispatcher.enqueue(Self.message(1, in: conversation), in: .conversation(conversation)) }
        try await runner.waitUntil("two handlers started") { runner.started.count == 2 }
        #expect(runner.started.count == 2)
        for conversation in conversations { runner.release("\(conversation.rawValue)#1") }
        try await runner.waitUntil("four handlers finished") { runner.finished.count == 4 }
        #expect(runner.maxRunning == 2, "the two blocked handlers held both slots until released")
        dispatcher.cancelAll()
    }

    @Test func aLimitOfOneRunsOneHandlerAtATimeAndLiftingItStartsTheWaitingLanes() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        let conversations: [Conversation.ID] = ["A", "B", "C"]
        for conversation in conversations {
            runner.setStoreContiguous(0, in: conversation)
            runner.block("\(conversation.rawValue)#1")
        }
        dispatcher.limitConcurrency(to: 1)
        dispatcher.open(runner: runner)
        for conversation in conversations { dispatcher.enqueue(Self.message(1, in: conversation), in: .conversation(conversation)) }
        try await runner.waitUntil("one handler started") { runner.started.count == 1 }
        runner.release(runner.started[0])
        try await runner.waitUntil("the next one started") { runner.started.count == 2 }
        #expect(runner.maxRunning == 1)

        dispatcher.limitConcurrency(to: nil)
        try await runner.waitUntil("the third started beside the second") { runner.started.count == 3 }
        #expect(runner.maxRunning == 2)
        for conversation in conversations { runner.release("\(conversation.rawValue)#1") }
        try await runner.waitUntil("three handlers finished") { runner.finished.count == 3 }
        dispatcher.cancelAll()
    }

    @Test func aBusyConversationYieldsItsSlotToWaitingOnes() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 1, timeout: .seconds(30))
        runner.setStoreContiguous(0, in: "A")
        runner.setStoreContiguous(0, in: "B")
        dispatcher.enqueue((1...3).map { Self.message($0, in: "A") }, in: .conversation("A"))
        dispatcher.enqueue((1...3).map { Self.message($0, in: "B") }, in: .conversation("B"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("six handlers finished") { runner.finished.count == 6 }
        #expect(runner.started == ["A#1", "B#1", "A#2", "B#2", "A#3", "B#3"])
        dispatcher.cancelAll()
    }

    @Test func aHandlerPastItsTimeoutIsAbandonedAndItsLaneGoesOn() async throws {
        let runner = RecordingRunner()
        let clock = ManualClock()
        let dispatcher = Self.dispatcher(maxConcurrent: 1, timeout: .seconds(5), clock: clock)
        runner.setStoreContiguous(0, in: "C1")
        runner.block("C1#1")
        dispatcher.open(runner: runner)
        dispatcher.enqueue([Self.message(1), Self.message(2)], in: .conversation("C1"))
        try await runner.waitUntil("C1#1 started") { runner.started == ["C1#1"] }
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(5))
        try await runner.waitUntil("C1#2 finished") { runner.finished == ["C1#2"] }
        #expect(runner.recovered == ["C1#1"])
        try await withDeadline(.hangGuard, "the dispatcher to be idle") { await dispatcher.waitUntilIdle() }
        runner.release("C1#1")  // returning late changes nothing
        try await runner.waitUntil("C1#1 returned") { runner.finished == ["C1#2", "C1#1"] }
        #expect(runner.recovered == ["C1#1"])
        dispatcher.cancelAll()
    }

    @Test func nothingRunsBeforeTheDispatcherOpensAndQueuedWorkIsDroppedWhenItStopsAccepting() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 2, timeout: .seconds(30))
        dispatcher.enqueue(.event(.start, trace: "first"), in: .events)
        #expect(runner.started.isEmpty)
        #expect(dispatcher.stopAccepting() == 1, "the event is still queued: nothing took it")
        dispatcher.open(runner: runner)
        dispatcher.enqueue(.event(.start, trace: "late"), in: .events)
        try await withDeadline(.hangGuard, "the dispatcher to be idle") { await dispatcher.waitUntilIdle() }
        #expect(runner.started.isEmpty)
    }

    /// A dispatcher whose handler deadlines wait on a scheduler of `clock`, as a session's do.
    /// An event in the events lane, traced as `trace`.
    static func event(_ event: BotEvent, _ trace: String) -> HandlerWork { .event(event, trace: trace) }

    static func typing(_ user: User.ID, _ isTyping: Bool, in conversation: Conversation.ID = "C1") -> BotEvent {
        .typing(TypingIndicator(conversationId: conversation, userId: user, isTyping: isTyping))
    }

    /// Starts `dispatcher` with a handler of the events lane that runs until released, so that what comes next queues.
    static func busyEventsLane(_ dispatcher: HandlerDispatcher, _ runner: RecordingRunner) async throws {
        runner.block("busy")
        dispatcher.enqueue(Self.event(.friendRequestCancelled("R0"), "busy"), in: .events)
        dispatcher.open(runner: runner)
        try await runner.waitUntil("the busy handler started") { runner.started == ["busy"] }
    }

    @Test func aPersonsTypingQueuesItsFirstChangeAndItsLatestState() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        try await Self.busyEventsLane(dispatcher, runner)
        dispatcher.enqueue(Self.event(Self.typing("ANA", true), "ana typing"), in: .events)
        dispatcher.enqueue(Self.event(Self.typing("BOB", true), "bob typing"), in: .events)
        dispatcher.enqueue(Self.event(Self.typing("ANA", true, in: "C2"), "ana typing in C2"), in: .events)
        for round in 1...1000 {
            dispatcher.enqueue(Self.event(Self.typing("ANA", round % 2 == 0), "ana \(round)"), in: .events)
        }
        #expect(dispatcher.backlog(of: .events) == 4)
        runner.release("busy")
        try await runner.waitUntil("every handler finished") { runner.finished.count == 5 }
        #expect(runner.started == ["busy", "ana typing", "bob typing", "ana typing in C2", "ana 1000"])
        dispatcher.cancelAll()
    }

    @Test func aStartAndAStopOfTypingQueuedTogetherBothRun() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        try await Self.busyEventsLane(dispatcher, runner)
        dispatcher.enqueue(Self.event(Self.typing("ANA", true), "ana typing"), in: .events)
        dispatcher.enqueue(Self.event(Self.typing("ANA", false), "ana stopped"), in: .events)
        runner.release("busy")
        try await runner.waitUntil("every handler finished") { runner.finished.count == 3 }
        #expect(runner.started == ["busy", "ana typing", "ana stopped"])
        dispatcher.cancelAll()
    }

    @Test func aKeyTakenByAHandlerCountsNoLongerAsQueued() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        try await Self.busyEventsLane(dispatcher, runner)
        runner.block("ana 1")
        for round in 1...2 {
            dispatcher.enqueue(Self.event(Self.typing("ANA", round % 2 == 1), "ana \(round)"), in: .events)
        }
        runner.release("busy")
        try await runner.waitUntil("ana 1 started") { runner.started.count == 2 }
        for round in 3...5 {
            dispatcher.enqueue(Self.event(Self.typing("ANA", round % 2 == 1), "ana \(round)"), in: .events)
        }
        runner.release("ana 1")
        try await runner.waitUntil("every handler finished") { runner.finished.count == 4 }
        #expect(runner.started == ["busy", "ana 1", "ana 2", "ana 5"])
        dispatcher.cancelAll()
    }

    @Test func presenceAndWatermarksQueueTwoAtMostPerUserAndMember() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        try await Self.busyEventsLane(dispatcher, runner)
        let receipt = { (user: User.ID, read: Int) in
            BotEvent.readStateChanged(ReceiptUpdate(conversationId: "C1", userId: user, lastDeliveredSeq: read, lastReadSeq: read))
        }
        dispatcher.enqueue([
            Self.event(.presenceChanged(Presence(userId: "ANA", isOnline: true)), "ana online"),
            Self.event(receipt("ANA", 3), "ana read 3"),
            Self.event(.presenceChanged(Presence(userId: "ANA", isOnline: false)), "ana offline"),
            Self.event(receipt("BOB", 2), "bob read 2"),
            Self.event(receipt("ANA", 4), "ana read 4"),
            Self.event(.presenceChanged(Presence(userId: "ANA", isOnline: true)), "ana online again"),
            Self.event(.presenceChanged(Presence(userId: "ANA", isOnline: false)), "ana offline again"),
            Self.event(receipt("ANA", 5), "ana read 5"),
        ], in: .events)
        runner.release("busy")
        try await runner.waitUntil("every handler finished") { runner.finished.count == 6 }
        #expect(runner.started == ["busy", "ana online", "ana read 3", "ana offline again", "bob read 2", "ana read 5"])
        dispatcher.cancelAll()
    }

    @Test func eventsThatMustEachReachTheBotAreNeverReplaced() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        try await Self.busyEventsLane(dispatcher, runner)
        dispatcher.enqueue([
            Self.event(.friendRemoved("ANA", isRecorded: false), "removed"),
            Self.event(.friendRemoved("ANA", isRecorded: false), "removed again"),
            Self.event(.friendRequestCancelled("R1"), "cancelled"),
            Self.event(.friendRequestCancelled("R1"), "cancelled again"),
        ], in: .events)
        runner.release("busy")
        try await runner.waitUntil("every handler finished") { runner.finished.count == 5 }
        #expect(runner.started == ["busy", "removed", "removed again", "cancelled", "cancelled again"])
        dispatcher.cancelAll()
    }

    @Test func aTypingEventTakenAlreadyIsNotReplacedAndTheNextOneQueues() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.block("ana typing")
        dispatcher.enqueue(Self.event(Self.typing("ANA", true), "ana typing"), in: .events)
        dispatcher.open(runner: runner)
        try await runner.waitUntil("ana's typing started") { runner.started == ["ana typing"] }
        dispatcher.enqueue(Self.event(Self.typing("ANA", false), "ana stopped"), in: .events)
        runner.release("ana typing")
        try await runner.waitUntil("both handlers finished") { runner.finished.count == 2 }
        #expect(runner.started == ["ana typing", "ana stopped"])
        dispatcher.cancelAll()
    }

    @Test func aLaterUpdateOfAMessageWhoseUpdateIsQueuedReplacesIt() async throws {
        let runner = RecordingRunner()
        let dispatcher = Self.dispatcher(maxConcurrent: 4, timeout: .seconds(30))
        runner.setStoreContiguous(2, in: "C1")
        guard case .message(let second) = Self.message(2) else { return }
        dispatcher.enqueue([
            .messageUpdated(second, trace: "first edit of 2"), Self.message(3),
            .messageUpdated(second, trace: "second edit of 2"),
        ], in: .conversation("C1"))
        dispatcher.open(runner: runner)
        try await runner.waitUntil("two handlers finished") { runner.finished.count == 2 }
        #expect(runner.started == ["second edit of 2", "C1#3"])
        dispatcher.cancelAll()
    }

    static func dispatcher(maxConcurrent: Int, timeout: Duration, clock: ManualClock = ManualClock()) -> HandlerDispatcher {
        HandlerDispatcher(maxConcurrent: maxConcurrent, timeout: timeout, clock: clock, timers: DeadlineScheduler(clock: clock))
    }
}

@Suite struct FriendRequestResolutionTests {
    static let request = FriendRequest(
        id: "R1", fromUser: User(id: "U1", username: "Cleo_P", displayName: "Cleo"),
        toUser: User(id: "BOT", username: "botty", displayName: "Botty"), createdAt: Timestamp(millisecondsSince1970: 0))

    @Test func theHandlersDecisionStands() {
        #expect(FriendRequestPolicy.everyone.resolve(.decline, for: Self.request) == .decline)
        #expect(FriendRequestPolicy.nobody.resolve(.accept, for: Self.request) == .accept)
        #expect(FriendRequestPolicy.everyone.resolve(.ignore, for: Self.request) == .ignore)
    }

    @Test func theConfiguredPolicyAcceptsOrLeavesPending() {
        #expect(FriendRequestPolicy.everyone.resolve(.useConfiguredPolicy, for: Self.request) == .accept)
        #expect(FriendRequestPolicy.nobody.resolve(.useConfiguredPolicy, for: Self.request) == .ignore)
        #expect(FriendRequestPolicy.allowlist(["cleo_p"]).resolve(.useConfiguredPolicy, for: Self.request) == .accept)
        #expect(FriendRequestPolicy.allowlist(["dan"]).resolve(.useConfiguredPolicy, for: Self.request) == .ignore)
    }
}

@Suite struct HandlerLatencySummaryTests {
    @Test func callsAreCountedInTheirBucketsAndCumulatively() {
        var summary = HandlerLatencySummary()
        summary.record(seconds: 0.0005)
        summary.record(seconds: 0.02)
        summary.record(seconds: 120)
        #expect(summary.count == 3)
        #expect(summary.maxSeconds == 120)
        #expect(summary.bucketCounts.first == 1)
        #expect(summary.bucketCounts.last == 1)
        #expect(summary.cumulativeCounts.last == 3)
        #expect(abs(summary.sumSeconds - 120.0205) < 1e-9)
    }
}
