import BotRuntime
import ChatterBots
@testable import ChatterBotsTesting
import Foundation
import Testing

/// A small bot to test the kit with: "later N" schedules a job N seconds ahead that says when it ran;
/// "quiet" gets no answer; anything else is echoed.
struct ClockBot: Bot {
    struct Later: Codable, Sendable {
        var conversation: Conversation.ID
    }

    static let later = JobKind<Later>("later")
    static let tick = JobKind<Later>("tick")

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        let words = message.text.split(separator: " ")
        if message.text == "quiet" { return }
        if words.first == "later", words.count == 2, let seconds = Int(words[1]) {
            let job = try await context.jobs.schedule(
                Self.later, after: .seconds(seconds), payload: Later(conversation: message.conversationId))
            try await context.reply(to: message, "scheduled for \(Timestamp(job.dueAt).iso8601)")
            return
        }
        if words.first == "every", words.count == 2, let seconds = Int(words[1]) {
            _ = try await context.jobs.schedule(
                Self.tick, at: context.now.addingTimeInterval(TimeInterval(seconds)), repeating: .every(.seconds(seconds)),
                payload: Later(conversation: message.conversationId))
            try await context.reply(to: message, "ticking every \(seconds) s")
            return
        }
        try await context.reply(to: message, "echo: \(message.text)")
    }

    func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws {
        if let tick = try job.payload(of: Self.tick) {
            try await context.send("tick \(job.occurrence)", to: tick.conversation)
            return
        }
        guard let later = try job.payload(of: Self.later) else { return }
        try await context.send("ran at \(Timestamp(context.now).iso8601)", to: later.conversation)
    }
}

/// A bot that tells a friend who comes online that it saw them.
struct PresenceBot: Bot {
    func onPresenceChanged(_ presence: Presence, context: any BotContext) async throws {
        guard presence.isOnline else { return }
        let conversation = try await context.service.directConversation(with: presence.userId)
        try await context.send("saw you come online at \(Timestamp(context.now).iso8601)", to: conversation.id)
    }
}

@Suite("BotTestHarness")
struct BotTestHarnessTests {
    @Test func aUserGetsTheBotsReplyInTheirDirectConversation() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("hello")
            let reply = try await alice.nextMessage()
            #expect(reply.body == "echo: hello")
            #expect(reply.conversationId == sent.conversationId)
            #expect(reply.senderId == harness.botUser.id)
        }
    }

    @Test func waitingForAReplyThatNeverComesFailsSayingWhatWasAwaited() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("quiet")
            let error = await #expect(throws: BotTestError.self) {
                try await alice.nextMessage(timeout: .milliseconds(300))
            }
            #expect(error?.description == "timed out after 0.3 seconds waiting for the bot's next message to alice in any conversation")
        }
    }

    @Test func remainingMessagesIsEmptyWhenTheBotStaysSilent() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("quiet")
            #expect(try await alice.remainingMessages().isEmpty)
            try await alice.send("once")
            #expect(try await alice.remainingMessages().map(\.body) == ["echo: once"])
        }
    }

    @Test func advanceRunsEachJobAtItsOwnInstant() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            let start = harness.now
            try await alice.send("later 60")
            try await alice.send("later 120")
            #expect(try await alice.nextText() == "scheduled for \(Timestamp(start.addingTimeInterval(60)).iso8601)")
            #expect(try await alice.nextText() == "scheduled for \(Timestamp(start.addingTimeInterval(120)).iso8601)")
            try await harness.advance(by: .seconds(300))
            #expect(harness.now == start.addingTimeInterval(300))
            #expect(try await alice.remainingMessages().map(\.body) == [
                "ran at \(Timestamp(start.addingTimeInterval(60)).iso8601)",
                "ran at \(Timestamp(start.addingTimeInterval(120)).iso8601)",
            ])
        }
    }

    /// A silent bot often is one whose handler threw: the harness keeps what it logged at error level.
    @Test func whatTheBotLoggedAtErrorLevelIsKeptForTheTest() async throws {
        struct Refusal: Error {}
        struct ThrowingBot: Bot {
            func onMessage(_ message: IncomingMessage, context: any BotContext) async throws { throw Refusal() }
        }
        try await BotTestHarness.start(bot: ThrowingBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("hello")
            #expect(try await alice.remainingMessages().isEmpty, "it waits until the bot handled the message")
            #expect(harness.errorsLogged.contains { $0.contains("onMessage threw") }, "\(harness.errorsLogged)")
        }
    }

    @Test func aWaitThatTimesOutQuotesTheBotsLastErrors() async throws {
        let (never, keptOpen) = AsyncStream.makeStream(of: Void.self)
        let error = await #expect(throws: BotTestError.self) {
            try await withRealTimeLimit(.milliseconds(10), awaiting: "a reply", meanwhile: { ["onMessage threw Refusal()"] }) {
                for await _ in never {}
                withExtendedLifetime(keptOpen) {}
            }
        }
        #expect(error?.description.hasSuffix("waiting for a reply; meanwhile the bot logged: onMessage threw Refusal()") == true)
    }

    @Test func aRepeatingJobSeesEachOccurrencesNumber() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("every 60")
            #expect(try await alice.nextText() == "ticking every 60 s")
            try await harness.advance(by: .seconds(180))
            #expect(try await alice.remainingMessages().map(\.body) == ["tick 1", "tick 2", "tick 3"])
        }
    }

    @Test func aJobScheduledBeforeARestartRunsAfterIt() async throws {
        try await BotTestHarness.start(kind: "clock") { _ in ClockBot() }.run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("later 60")
            _ = try await alice.nextMessage()
            try await harness.restartBot()
            try await harness.advance(by: .seconds(60))
            #expect(try await alice.nextText().hasPrefix("ran at "))
        }
    }

    @Test func theBotAnswersAgainAfterItsSocketIsDropped() async throws {
        try await BotTestHarness.start(bot: ClockBot()).run { harness in
            let alice = try await harness.user("alice")
            try await harness.inject(.dropSocket)
            try await harness.advance(by: .seconds(5))  // past the first reconnect backoff (1 s ± 20 %)
            try await harness.waitUntilBotIsLive()
            #expect(await harness.session?.status.reconnects == 1)
            try await alice.send("still there?")
            #expect(try await alice.nextText() == "echo: still there?")
        }
    }

    @Test func aBotKindThatRefusesItsOptionsFailsTheStart() async throws {
        struct Refusal: Error {}
        let kind = BotKind("picky") { _ in throw Refusal() }
        await #expect(throws: BotTestError.self) {
            try await BotTestHarness.start(kind, options: ["colour": "blue"])
        }
    }

    @Test func localTimesAreReadInTheTestsZoneAndASkippedHourIsRefused() async throws {
        let lisbon = try #require(TimeZone(identifier: "Europe/Lisbon"))
        try await BotTestHarness.start(bot: ClockBot(), timeZone: lisbon).run { harness in
            let nine = try harness.instant("2026-07-01 09:00")
            #expect(nine == Date(timeIntervalSince1970: 1_782_892_800))
            #expect(harness.localTime(of: Date(timeIntervalSince1970: 1_782_892_800)) == "2026-07-01 09:00")
            #expect(throws: BotTestError.self) { try harness.instant("2026-03-29 01:30") }
        }
    }

    @Test func goingOfflineAndOnlineAgainIsHeardAndHandledByTheBotBeforeTheCallReturns() async throws {
        try await BotTestHarness.start(bot: PresenceBot()).run { harness in
            let alice = try await harness.user("alice")
            #expect(await harness.session?.presence(of: alice.id)?.isOnline == true)
            let first = try await alice.remainingMessages()
            #expect(first.map(\.body) == ["saw you come online at \(Timestamp(harness.now).iso8601)"])
            let start = harness.now
            try await alice.goOffline()
            #expect(harness.now == start.addingTimeInterval(10), "the presence grace passed on the virtual clock")
            #expect(await harness.session?.presence(of: alice.id)?.isOnline == false)
            try await alice.goOnline()
            #expect(try await alice.remainingMessages().map(\.body) == ["saw you come online at \(Timestamp(harness.now).iso8601)"])
        }
    }

    @Test func aFriendRequestIsDecidedByTheConfiguredPolicy() async throws {
        let configuration = BotTestConfiguration(friendRequests: .allowlist(["alice"]))
        try await BotTestHarness.start(bot: ClockBot(), configuration: configuration).run { harness in
            let alice = try await harness.user("alice", befriended: false)
            let mallory = try await harness.user("mallory", befriended: false)
            try await alice.sendFriendRequest()
            try await mallory.sendFriendRequest()
            try await harness.settle()
            #expect(try await alice.isFriendOfBot())
            #expect(try await mallory.isFriendOfBot() == false)
            #expect(try await mallory.rest.friendRequests().outgoing.count == 1, "left pending: the policy does not allow mallory")
        }
    }
}
