import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// Receipts and typing of others: `onReadStateChanged`, `onTyping`, and the read state a handler asks for.
@Suite struct ReadStateAndTypingTests {
    @Test func anotherMembersReadReceiptReachesTheBotWhichThenKnowsItsLastMessageWasRead() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ReceiptWatchingBot(events: events))
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntil("the echo is stored") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
            try await bot.waitUntilIdle()
            #expect(events.entries.contains("message hello, ana has read the echo: false"))

            let ana = try await ChatterRealtimeConnection.connect(
                configuration: harness.sandbox.serverConfiguration, accessToken: harness.ana.session.accessToken, options: .patient)
            try await ana.send(.receiptRead(ReceiptPosition(conversationId: conversation.id, seq: 2)))
            try await harness.waitUntil("the receipt is handled") { events.entries.contains { $0.hasPrefix("receipt") } }
            #expect(events.entries.filter { $0.hasPrefix("receipt") } == ["receipt \(harness.ana.user.id) read 2, last message read: true"])
            await ana.close()
            await bot.stop()
        }
    }

    /// Starts the receipt-watching bot, has ana say hello and the bot echo it (seq 2), drops the bot's socket and,
    /// while the bot is away, has ana send `receipt` until the service has it; returns once the bot is live again.
    static func receiptWhileTheBotIsAway(
        _ receipt: (Conversation.ID) -> ClientRequest, until stored: @escaping @Sendable (Member) -> Bool,
        in harness: RuntimeHarness, events: EventRecorder
    ) async throws -> RunningBot {
        let bot = try await harness.startAny(ReceiptWatchingBot(events: events))
        let conversation = try await harness.direct(harness.ana)
        try await harness.say("hello", as: harness.ana, in: conversation)
        try await harness.waitUntil("the echo is stored") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
        try await harness.inject(.dropSocket)
        try await bot.waitUntil(.reconnecting)
        let ana = try await ChatterRealtimeConnection.connect(
            configuration: harness.sandbox.serverConfiguration, accessToken: harness.ana.session.accessToken, options: .patient)
        try await ana.send(receipt(conversation.id))
        try await harness.waitUntil("the service has ana's receipt") {
            try await harness.rest(harness.ana).conversation(conversation.id).members
                .contains { $0.userId == harness.ana.user.id && stored($0) }
        }
        await ana.close()
        await harness.clock.advance(by: .milliseconds(1300))
        try await bot.waitUntil(.live)
        return bot
    }

    @Test func aReadWhileTheBotWasDisconnectedReachesTheBotWithTheSyncAfterTheReconnect() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await Self.receiptWhileTheBotIsAway(
                { .receiptRead(ReceiptPosition(conversationId: $0, seq: 2)) }, until: { $0.lastReadSeq == 2 },
                in: harness, events: events)
            try await harness.waitUntil("the read is handled") { events.entries.contains { $0.hasPrefix("receipt") } }
            #expect(events.entries.filter { $0.hasPrefix("receipt") } == ["receipt \(harness.ana.user.id) read 2, last message read: true"])
            await bot.stop()
        }
    }

    @Test func aDeliveredWatermarkMovedWhileTheBotWasDisconnectedReachesNoHandler() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await Self.receiptWhileTheBotIsAway(
                { .receiptDelivered(ReceiptPosition(conversationId: $0, seq: 2)) }, until: { $0.lastDeliveredSeq == 2 },
                in: harness, events: events)
            try await bot.waitUntilIdle()
            #expect(!events.entries.contains { $0.hasPrefix("receipt") })
            await bot.stop()
        }
    }

    @Test func theWatermarksOfTheFirstSyncAreNoMovesAndReachNoHandler() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("read before the bot starts", as: harness.ana, in: conversation)
            let ana = try await ChatterRealtimeConnection.connect(
                configuration: harness.sandbox.serverConfiguration, accessToken: harness.ana.session.accessToken, options: .patient)
            try await ana.send(.receiptRead(ReceiptPosition(conversationId: conversation.id, seq: 1)))
            try await harness.waitUntil("the service has the read") {
                try await harness.rest(harness.ana).conversation(conversation.id).members
                    .contains { $0.userId == harness.ana.user.id && $0.lastReadSeq == 1 }
            }
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ReceiptWatchingBot(events: events))
            try await harness.waitUntil("the message is handled") { events.entries.contains { $0.hasPrefix("message") } }
            try await bot.waitUntilIdle()
            #expect(!events.entries.contains { $0.hasPrefix("receipt") })
            await ana.close()
            await bot.stop()
        }
    }

    @Test func aRepeatedReceiptAndTheBotsOwnReceiptsReachNoHandler() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ReceiptWatchingBot(events: events))
            try await harness.inject(.duplicateEvents(types: ["receipt.updated"], copies: 2))
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntil("the echo is stored") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
            let ana = try await ChatterRealtimeConnection.connect(
                configuration: harness.sandbox.serverConfiguration, accessToken: harness.ana.session.accessToken, options: .patient)
            try await ana.send(.receiptRead(ReceiptPosition(conversationId: conversation.id, seq: 2)))
            // Typing comes after the receipt's copies on the bot's socket: once it is handled, they were read.
            try await ana.send(.typingStart(conversationId: conversation.id))
            try await harness.waitUntil("the typing is handled") { events.entries.contains { $0.hasPrefix("typing") } }
            try await bot.waitUntilIdle()
            #expect(events.entries.filter { $0.hasPrefix("receipt") } == ["receipt \(harness.ana.user.id) read 2, last message read: true"])
            await ana.close()
            await bot.stop()
        }
    }

    @Test func typingOfAnotherMemberReachesOnTypingAsItStartsAndStops() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ReceiptWatchingBot(events: events))
            let conversation = try await harness.direct(harness.ana)
            let ana = try await ChatterRealtimeConnection.connect(
                configuration: harness.sandbox.serverConfiguration, accessToken: harness.ana.session.accessToken, options: .patient)
            try await ana.send(.typingStart(conversationId: conversation.id))
            try await ana.send(.typingStop(conversationId: conversation.id))
            try await harness.waitUntil("both typing events are handled") { events.entries.filter { $0.hasPrefix("typing") }.count == 2 }
            #expect(events.entries.filter { $0.hasPrefix("typing") } == [
                "typing \(harness.ana.user.id) in \(conversation.id): true", "typing \(harness.ana.user.id) in \(conversation.id): false",
            ])
            await ana.close()
            await bot.stop()
        }
    }

    /// Ana says hello, the bot echoes it (seq 2) and stops.
    static func echoedHelloThenStopped(_ harness: RuntimeHarness, events: EventRecorder) async throws -> Conversation {
        let bot = try await harness.startAny(ReceiptWatchingBot(events: events))
        let conversation = try await harness.direct(harness.ana)
        try await harness.say("hello", as: harness.ana, in: conversation)
        try await harness.waitUntil("the echo is stored") { try await harness.texts(in: conversation, from: harness.botty).count == 1 }
        try await bot.waitUntilIdle()
        await bot.stop()
        return conversation
    }

    @Test func theBotsLastMessageIsKnownAfterARestartWhoseRefreshDoesNotListTheConversation() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let conversation = try await Self.echoedHelloThenStopped(harness, events: events)
            // A start in between refreshes the conversations: the next one lists none of them.
            var bot = try await harness.startAny(ReceiptWatchingBot(events: events))
            try await bot.waitUntilIdle()
            await bot.stop()

            _ = try await harness.sandbox.service.markRead(harness.ana.caller, conversationId: conversation.id, seq: 2)
            bot = try await harness.startAny(ReadyReadStateBot(events: events, reader: harness.ana.user.id, conversation: conversation.id))
            try await harness.waitUntil("onReady ran") { events.entries.contains { $0.hasPrefix("ready") } }
            #expect(events.entries.filter { $0.hasPrefix("ready") }.last?.hasSuffix("read my last: true") == true)
            await bot.stop()
        }
    }

    @Test func afterARestartTheSyncGivesTheWatermarksReadWhileTheBotWasDown() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let conversation = try await Self.echoedHelloThenStopped(harness, events: events)

            _ = try await harness.sandbox.service.markRead(harness.ana.caller, conversationId: conversation.id, seq: 2)
            let watcher = ReadyReadStateBot(events: events, reader: harness.ana.user.id, conversation: conversation.id)
            let bot = try await harness.startAny(watcher)
            try await harness.waitUntil("onReady ran") { events.entries.contains { $0.hasPrefix("ready") } }
            #expect(events.entries.filter { $0.hasPrefix("ready") } == ["ready: read up to 2: true, last read 2, read my last: true"])
            #expect(!events.entries.contains { $0.hasPrefix("receipt") })
            await bot.stop()
        }
    }
}

/// What a test bot saw, as lines, in order; signals the harness on each.
final class EventRecorder: Sendable {
    private let lines = Mutex<[String]>([])
    private let changes: ChangeSignal

    init(changes: ChangeSignal) {
        self.changes = changes
    }

    var entries: [String] { lines.withLock { $0 } }

    func record(_ line: String) {
        lines.withLock { $0.append(line) }
        changes.signal()
    }
}

/// Echoes messages and records receipts and typing of others, with what `hasRead` says about its own last message.
private struct ReceiptWatchingBot: Bot {
    let events: EventRecorder

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        _ = try await context.reply(to: message, "echo: \(message.text)").acknowledged()
        let read = await context.presence.hasRead(message.senderId, lastMessageSentIn: message.conversationId)
        events.record("message \(message.text), ana has read the echo: \(read)")
    }

    func onReadStateChanged(_ receipt: ReceiptUpdate, context: any BotContext) async throws {
        let read = await context.presence.hasRead(receipt.userId, lastMessageSentIn: receipt.conversationId)
        events.record("receipt \(receipt.userId) read \(receipt.lastReadSeq), last message read: \(read)")
    }

    func onTyping(_ typing: TypingIndicator, context: any BotContext) async throws {
        events.record("typing \(typing.userId) in \(typing.conversationId): \(typing.isTyping)")
    }
}

/// Records, in `onReady`, what the bot knows of one member's reading of one conversation.
private struct ReadyReadStateBot: Bot {
    let events: EventRecorder
    let reader: User.ID
    let conversation: Conversation.ID

    func onReady(_ session: SessionReady, context: any BotContext) async throws {
        let upTo = await context.presence.hasRead(reader, upTo: 2, in: conversation)
        let last = await context.presence.readState(of: conversation)?.members[reader]?.lastReadSeq
        let readMine = await context.presence.hasRead(reader, lastMessageSentIn: conversation)
        events.record("ready: read up to 2: \(upTo), last read \(last.map(String.init) ?? "unknown"), read my last: \(readMine)")
    }

    func onReadStateChanged(_ receipt: ReceiptUpdate, context: any BotContext) async throws {
        events.record("receipt \(receipt.userId)")
    }
}
