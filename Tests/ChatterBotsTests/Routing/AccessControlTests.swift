import Testing

@testable import ChatterBots

@Suite("Access control middleware")
struct AccessControlTests {
    let ana = User(id: "U1", username: "ana", displayName: "Ana")
    let ben = User(id: "U2", username: "ben_tan", displayName: "Ben")
    let eve = User(id: "U3", username: "eve", displayName: "Eve")

    private func makeContext() -> RecordingBotContext {
        RecordingBotContext(friends: [ana, ben, eve].map { Friend(user: $0, since: Timestamp(millisecondsSince1970: 0)) })
    }

    private func makeRouter(_ access: AccessControlMiddleware) -> MessageRouter {
        MessageRouter { router in
            router.use(access)
            router.fallback { try await $0.reply("welcome") }
        }
    }

    @Test func listedUserIdsGetThrough() async throws {
        let context = makeContext()
        let router = makeRouter(AccessControlMiddleware(allowing: [.userId("U1")]))
        #expect(try await context.say("hi", from: "U1", to: router) == .fallback)
        #expect(context.replies == ["welcome"])
    }

    @Test func listedUsernamesGetThroughWhateverTheirCase() async throws {
        let context = makeContext()
        let router = makeRouter(AccessControlMiddleware(allowing: [.username("Ben_Tan")]))
        #expect(try await context.say("hi", from: "U2", to: router) == .fallback)
    }

    @Test func othersGetAPoliteRefusalByDefault() async throws {
        let context = makeContext()
        let router = makeRouter(AccessControlMiddleware(allowing: [.userId("U1"), .username("ben_tan")]))
        #expect(try await context.say("hi", from: "U3", to: router) == .stopped("access refused"))
        #expect(context.replies == ["Sorry, I only talk with people on my list. Ask my owner to add you."])
    }

    @Test func theRefusalCanBeSilence() async throws {
        let context = makeContext()
        let router = makeRouter(AccessControlMiddleware(allowing: [.username("ana")], refusal: .silence))
        #expect(try await context.say("hi", from: "U3", to: router) == .stopped("access refused"))
        #expect(context.sentMessages.isEmpty)
        #expect(context.logRecords.map(\.message) == ["access refused"])
    }

    @Test func aSenderWhoIsNotAFriendHasNoKnownUsernameAndIsRefused() async throws {
        let context = makeContext()
        let router = makeRouter(AccessControlMiddleware(allowing: [.username("mallory")], refusal: .reply("no")))
        #expect(try await context.say("hi", from: "U99", to: router) == .stopped("access refused"))
        #expect(context.replies == ["no"])
    }

    @Test func refusedMessagesNeverReachRoutesOrDialogs() async throws {
        let context = makeContext()
        let reached = HandlerLog<String>()
        let router = MessageRouter { router in
            router.use(AccessControlMiddleware(allowing: [.userId("U1")], refusal: .silence))
            router.command("ping") { _ in reached.append("ping") }
        }
        try await context.say("/ping", from: "U2", to: router)
        try await context.say("/help", from: "U2", to: router)
        #expect(reached.all.isEmpty)
        #expect(context.sentMessages.isEmpty)
    }
}
