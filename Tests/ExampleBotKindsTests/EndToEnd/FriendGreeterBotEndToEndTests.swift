import BotRuntime
import ChatterBots
import ChatterBotsTesting
import Foundation
import Testing
@testable import ExampleBotKinds

/// The friend greeter as it runs, against the sandbox on a virtual clock: friend requests decided by policy,
/// a welcome in a new direct conversation, and a greeting when a friend comes online, at most once a day.
@Suite("FriendGreeterBot end to end")
struct FriendGreeterBotEndToEndTests {
    static func harness(accepting policy: JSONValue) async throws -> BotTestHarness {
        try await BotTestHarness.start(
            FriendGreeterBot.botKind, options: ["acceptFriendRequests": policy, "timeZone": "Europe/Lisbon"],
            configuration: BotTestConfiguration(start: Fixture.sunday, timeZone: Fixture.lisbon))
    }

    /// `person` asks the bot for friendship, and the bot answers (accepts or declines: either way the request
    /// is no longer pending).
    static func askFriendship(of person: TestUser, in harness: BotTestHarness) async throws {
        try await person.sendFriendRequest()
        try await harness.settle()
        #expect(try await person.rest.friendRequests().outgoing.isEmpty, "the bot answered \(person.username)'s request")
    }

    @Test func withPolicyEveryoneANewFriendIsWelcomedInANewDirectConversation() async throws {
        try await Self.harness(accepting: "everyone").run { harness in
            let carol = try await harness.user("carol", displayName: "Carol", befriended: false)
            try await Self.askFriendship(of: carol, in: harness)
            let welcome = try await carol.nextMessage()
            #expect(welcome.body == "Hi Carol, thanks for adding me!")
            #expect(try await carol.isFriendOfBot())
            let conversation = try await carol.rest.conversation(welcome.conversationId)
            #expect(conversation.kind == .direct)
            #expect(Set(conversation.members.map(\.userId)) == [carol.id, harness.botUser.id])
        }
    }

    @Test func withAnAllowlistOnlyTheListedAreAccepted() async throws {
        try await Self.harness(accepting: ["allowlist": ["alice"]]).run { harness in
            let alice = try await harness.user("alice", displayName: "Alice", befriended: false)
            let mallory = try await harness.user("mallory", befriended: false)
            try await Self.askFriendship(of: alice, in: harness)
            try await Self.askFriendship(of: mallory, in: harness)
            #expect(try await alice.nextText() == "Hi Alice, thanks for adding me!")
            #expect(try await alice.isFriendOfBot())
            #expect(try await mallory.isFriendOfBot() == false)
            #expect(try await mallory.remainingMessages().isEmpty)
        }
    }

    @Test func aFriendComingOnlineIsGreetedAtMostOnceADay() async throws {
        try await Self.harness(accepting: "everyone").run { harness in
            let alice = try await harness.user("alice", displayName: "Alice", befriended: false)
            try await Self.askFriendship(of: alice, in: harness)
            #expect(try await alice.nextText() == "Hi Alice, thanks for adding me!")

            // Back the same day: the welcome was today's greeting.
            try await Self.reconnect(alice, in: harness)
            #expect(try await alice.remainingMessages().isEmpty)

            try await harness.advance(to: try harness.instant("2025-12-01 08:00"))
            try await Self.reconnect(alice, in: harness)
            #expect(try await alice.nextText() == "Good to see you, Alice!")
            try await Self.reconnect(alice, in: harness)
            #expect(try await alice.remainingMessages().isEmpty)

            try await harness.advance(by: .days(1))
            try await Self.reconnect(alice, in: harness)
            #expect(try await alice.nextText() == "Good to see you, Alice!")
        }
    }

    /// `person` goes offline (the bot sees it after the sandbox's 10 s presence grace), then online again.
    static func reconnect(_ person: TestUser, in harness: BotTestHarness) async throws {
        try await person.goOffline()
        try await person.goOnline()
    }
}
