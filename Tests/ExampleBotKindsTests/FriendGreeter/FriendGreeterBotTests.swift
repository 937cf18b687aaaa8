import BotRuntime
import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

/// The friend greeter: friend requests by policy, a welcome in a new direct conversation, at most one online
/// greeting a day per friend in the bot's time zone, and none for the presence snapshot after a reconnect.
@Suite("FriendGreeterBot")
struct FriendGreeterBotTests {
    /// Sunday 30 November 2025, 14:30 UTC.
    static let sunday = Chat.instant("2025-11-30T14:30:00Z")
    static let newcomer = User(id: "U-CARA", username: "Cara_Lee", displayName: "Cara Lee")

    func bot(_ json: String = "{}") throws -> FriendGreeterBot {
        try FriendGreeterBot(options: botOptions(json))
    }

    func request(from user: User) -> FriendRequest {
        FriendRequest(
            id: FriendRequest.ID("R-\(user.username)"), fromUser: user, toUser: User(id: Chat.botId, username: "greeter", displayName: "Greeter"),
            createdAt: Timestamp(Self.sunday))
    }

    func online(_ user: User) -> Presence { Presence(userId: user.id, isOnline: true) }

    // MARK: Friend requests

    @Test func everyoneAcceptsEveryRequest() async throws {
        let context = Chat.context(now: Self.sunday)
        let decision = try await context.deliver(request(from: Self.newcomer), to: try bot(#"{"acceptFriendRequests": "everyone"}"#))
        #expect(decision == .accept)
        #expect(context.friendActions == [.accepted("R-Cara_Lee")])
    }

    @Test func nobodyDeclinesEveryRequest() async throws {
        let context = Chat.context(now: Self.sunday)
        let decision = try await context.deliver(request(from: Self.newcomer), to: try bot(#"{"acceptFriendRequests": "nobody"}"#))
        #expect(decision == .decline)
        #expect(context.friendActions == [.declined("R-Cara_Lee")])
    }

    @Test func anAllowlistAcceptsItsUsernamesIgnoringCaseAndDeclinesTheRest() async throws {
        let bot = try bot(#"{"acceptFriendRequests": {"allowlist": ["cara_lee", "dan"]}}"#)
        let context = Chat.context(now: Self.sunday, friends: [])
        #expect(try await context.deliver(request(from: Self.newcomer), to: bot) == .accept)
        #expect(try await context.deliver(request(from: Chat.stranger), to: bot) == .decline)
    }

    @Test func withoutAPolicyTheBotsConfiguredPolicyDecides() async throws {
        let context = Chat.context(now: Self.sunday)
        #expect(try await context.deliver(request(from: Self.newcomer), to: try bot()) == .useConfiguredPolicy)
        #expect(context.friendActions.isEmpty)
    }

    // MARK: Welcome

    @Test func aNewFriendIsWelcomedInANewDirectConversation() async throws {
        let context = Chat.context(now: Self.sunday)
        let bot = try bot(#"{"acceptFriendRequests": "everyone", "welcome": "Welcome, {name} (@{username})!"}"#)
        try await context.deliver(request(from: Self.newcomer), to: bot)
        let friend = try #require(try await context.service.friends().first { $0.user.id == Self.newcomer.id })
        try await bot.onFriendAdded(friend, context: context)
        let conversation = try await context.service.directConversation(with: Self.newcomer.id)
        #expect(conversation.kind == .direct)
        #expect(context.sentMessages.map(\.conversationId) == [conversation.id])
        #expect(context.sentTexts == ["Welcome, Cara Lee (@Cara_Lee)!"])
    }

    @Test func theDefaultWelcomeUsesTheFriendsName() async throws {
        let context = Chat.context(now: Self.sunday)
        try await bot().onFriendAdded(Friend(user: Chat.alice, since: Timestamp(Self.sunday)), context: context)
        #expect(context.sentTexts == ["Hi Alice Moreau, thanks for adding me!"])
        #expect(context.sentMessages.map(\.conversationId) == [Chat.aliceChat])
    }

    // MARK: Online greetings

    @Test func aFriendComingOnlineIsGreetedOnceADay() async throws {
        let bot = try bot(#"{"onlineGreeting": "Morning, {name}!", "timeZone": "Europe/Lisbon"}"#)
        let context = Chat.context(now: Chat.instant("2025-11-30T08:00:00Z"))
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        context.advance(to: Chat.instant("2025-11-30T12:00:00Z"))
        try await bot.onPresenceChanged(Presence(userId: Chat.alice.id, isOnline: false), context: context)
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        try await bot.onPresenceChanged(online(Chat.ben), context: context)
        context.advance(to: Chat.instant("2025-12-01T00:00:00Z"))
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        #expect(context.sentTexts == ["Morning, Alice Moreau!", "Morning, Ben Tan!", "Morning, Alice Moreau!"])
        #expect(context.sentMessages.map(\.conversationId) == [Chat.aliceChat, Chat.benChat, Chat.aliceChat])
    }

    @Test func theDayIsCountedOnTheWallClockOfTheBotsTimeZone() async throws {
        // 18:00 and 20:00 in New York on 30 November, though the second is already 1 December in UTC.
        let bot = try bot(#"{"timeZone": "America/New_York"}"#)
        let context = Chat.context(now: Chat.instant("2025-11-30T23:00:00Z"))
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        context.advance(to: Chat.instant("2025-12-01T01:00:00Z"))
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        context.advance(to: Chat.instant("2025-12-01T05:00:00Z"))
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        #expect(context.sentTexts == ["Good to see you, Alice Moreau!", "Good to see you, Alice Moreau!"])
    }

    @Test func thePresenceSnapshotAfterAReconnectGreetsNobody() async throws {
        let bot = try bot()
        let context = Chat.context(now: Self.sunday)
        try await bot.onPresenceSnapshot([online(Chat.alice), online(Chat.ben)], context: context)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func theWelcomeCountsAsThatDaysGreeting() async throws {
        let bot = try bot()
        let context = Chat.context(now: Self.sunday)
        try await bot.onFriendAdded(Friend(user: Chat.alice, since: Timestamp(Self.sunday)), context: context)
        context.advance(by: .seconds(60))
        try await bot.onPresenceChanged(online(Chat.alice), context: context)
        #expect(context.sentTexts == ["Hi Alice Moreau, thanks for adding me!"])
    }

    @Test func noOnlineGreetingWhenTheOptionIsNull() async throws {
        let context = Chat.context(now: Self.sunday)
        try await bot(#"{"onlineGreeting": null}"#).onPresenceChanged(online(Chat.alice), context: context)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func someoneWhoIsNoFriendIsNotGreeted() async throws {
        let context = Chat.context(now: Self.sunday)
        try await bot().onPresenceChanged(online(Chat.stranger), context: context)
        #expect(context.sentMessages.isEmpty)
    }

    // MARK: Options

    @Test func theDocumentedExampleReadsAsMeant() throws {
        let options = try bot(#"""
            {"acceptFriendRequests": {"allowlist": ["alice", "ben_tan"]},
             "welcome": "Hi {name}, thanks for adding me!", "onlineGreeting": "Good to see you, {name}!",
             "timeZone": "Europe/Lisbon"}
            """#).options
        #expect(options.acceptFriendRequests == .allowlist(["alice", "ben_tan"]))
        #expect(options.welcome.source == "Hi {name}, thanks for adding me!")
        #expect(options.onlineGreeting?.source == "Good to see you, {name}!")
        #expect(options.timeZone.identifier == "Europe/Lisbon")
        #expect(FriendGreeterBot.kind == "friend-greeter")
    }

    @Test(arguments: [
        (#"{"acceptFriendRequests": "friends"}"#, "acceptFriendRequests", "\"friends\" is not a policy"),
        (#"{"acceptFriendRequests": ["alice"]}"#, "acceptFriendRequests", "{\"allowlist\""),
        (#"{"acceptFriendRequests": {"allowlist": ["alice"], "mode": "strict"}}"#, "acceptFriendRequests.mode", "is not an option here"),
        (#"{"acceptFriendRequests": {"allowlist": ["al ice"]}}"#, "acceptFriendRequests.allowlist", "not a username"),
        (#"{"welcome": "You said {text}"}"#, "welcome", "{text} has no value here"),
        (#"{"onlineGreeting": "Hi {name"}"#, "onlineGreeting", "without its }"),
        (#"{"timeZone": "Moon/Base"}"#, "timeZone", "unknown time zone"),
        (#"{"greeting": "Hi"}"#, "greeting", "is not an option here"),
    ])
    func aMistakeInTheOptionsNamesTheOptionAtFault(json: String, option: String, message: String) throws {
        let error = try #require(try optionsError(json) { (options) throws(BotOptionsError) in try FriendGreeterBot(options: options) })
        #expect(error.kind == "friend-greeter")
        #expect(error.option == option)
        #expect(error.message.contains(message), "\(error.message)")
    }
}
