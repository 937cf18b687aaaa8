import Foundation
import Testing

@testable import ChatterBots

/// The recording context's groups and withdrawn requests behave as the service does, refusals included.
@Suite("Recording context: groups and withdrawn requests")
struct RecordingGroupTests {
    let identity = BotIdentity(name: "team", userId: "BOT")
    let ana = User(id: "U1", username: "ana", displayName: "Ana")
    let ben = User(id: "U2", username: "ben", displayName: "Ben")
    let eve = User(id: "U3", username: "eve", displayName: "Eve")

    func context() -> RecordingBotContext {
        let since = Timestamp(Date(timeIntervalSince1970: 1_792_677_791))
        return RecordingBotContext(
            bot: identity, friends: [Friend(user: ana, since: since), Friend(user: ben, since: since)], users: [ana, ben, eve])
    }

    @Test func aGroupIsOwnedByTheBotAndTakesOnlyFriends() async throws {
        let context = context()
        let refused = await #expect(throws: ChatterAPIError.self) { try await context.service.createGroup(title: "T", memberIds: ["U3"]) }
        #expect(refused?.code == .notFriends)
        let group = try await context.service.createGroup(title: "Team", memberIds: ["U1"])
        #expect(group.kind == .group && group.title == "Team")
        #expect(group.members.map(\.userId) == ["BOT", "U1"] && group.members.first?.role == .owner)
        #expect(try await context.service.addMembers(["U2"], to: group.id).members.map(\.userId) == ["BOT", "U1", "U2"])
        let stranger = await #expect(throws: ChatterAPIError.self) { try await context.service.addMembers(["U3"], to: group.id) }
        #expect(stranger?.code == .notFriends)
        try await context.service.removeMember("U2", from: group.id)
        #expect(try await context.service.conversation(group.id).members.map(\.userId) == ["BOT", "U1"])
    }

    @Test func mutingIsRecordedAndLeavingDropsTheGroup() async throws {
        let context = context()
        let group = try await context.service.createGroup(title: "Team", memberIds: ["U1"])
        try await context.service.setMuted(true, conversation: group.id)
        #expect(try await context.service.conversations(updatedSince: nil).map(\.muted) == [true])
        try await context.service.leaveConversation(group.id)
        #expect(try await context.service.conversations(updatedSince: nil).isEmpty)
        let gone = await #expect(throws: ChatterAPIError.self) { try await context.service.setMuted(false, conversation: group.id) }
        #expect(gone?.code == .notFound)
    }

    @Test func onlyAManagerOfTheGroupChangesItsMembers() async throws {
        let now = Timestamp(Date(timeIntervalSince1970: 1_792_677_791))
        let theirs = Conversation(
            id: "G1", kind: .group, title: "Theirs", members: [Member(userId: "U1", role: .owner), Member(userId: "BOT", role: .member)],
            lastSeq: 0, createdAt: now, updatedAt: now)
        let context = RecordingBotContext(bot: identity, friends: [Friend(user: ben, since: now)], conversations: [theirs])
        let refused = await #expect(throws: ChatterAPIError.self) { try await context.service.addMembers(["U2"], to: "G1") }
        #expect(refused?.code == .forbidden)
    }

    @Test func aWithdrawnRequestIsRecordedAndGone() async throws {
        let context = context()
        let request = try await context.service.sendFriendRequest(to: .username("eve"))
        try await context.service.cancelFriendRequest(request.id)
        #expect(try await context.service.friendRequests().outgoing.isEmpty)
        #expect(context.friendActions == [.requested(.username("eve")), .cancelled(request.id)])
        let again = await #expect(throws: ChatterAPIError.self) { try await context.service.cancelFriendRequest(request.id) }
        #expect(again?.code == .notFound)
    }
}
