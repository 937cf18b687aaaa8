import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// The server-to-client events of realtime-websocket.txt that REST changes cause, each received over a real
/// socket: message.updated, conversation.created/updated/removed, friend_request.accepted/cancelled,
/// friend.removed and user.updated.
@Suite("Realtime conformance: message, conversation, friend and profile events")
struct EventConformanceTests {
    @Test func editDeleteAndReactionsReachTheOtherMembersAsMessageUpdated() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let ana = fixture.rest(fixture.ana)
            let sent = try await ana.postMessage(.text("See you at 8?"), clientMessageId: .random(), in: chat)
            _ = try await ben.next { $0.isMessageNew }

            let edited = try await ana.editMessage(sent.id, in: chat, body: "See you at 9?")
            #expect(try await ben.next { $0.isMessageUpdated }.frame.event == .messageUpdated(edited))
            #expect(edited.body == "See you at 9?" && edited.editedAt != nil)

            let reacted = try await ana.addReaction("👍", to: sent.id, in: chat)
            #expect(try await ben.next { $0.isMessageUpdated }.frame.event == .messageUpdated(reacted))
            #expect(reacted.reactions == [Message.Reaction(emoji: "👍", userIds: [fixture.ana.user.id])])

            let deleted = try await ana.deleteMessage(sent.id, in: chat)
            #expect(try await ben.next { $0.isMessageUpdated }.frame.event == .messageUpdated(deleted))
            #expect(deleted.deletedAt != nil && deleted.body == nil)
            await ben.close()
        }
    }

    @Test func groupChangesReachMembersAsConversationCreatedUpdatedAndRemoved() async throws {
        try await SandboxFixture.run { fixture in
            let ben = try await fixture.connect(fixture.ben)
            let cleo = try await fixture.connect(fixture.cleo)
            let ana = fixture.rest(fixture.ana)

            let group = try await ana.createGroup(title: "Trip", memberIds: [fixture.ben.user.id])
            guard case .conversationCreated(let created) = try await ben.next(where: \.isConversationEvent).frame.event else {
                Issue.record("ben expected conversation.created")
                return
            }
            #expect(created.id == group.id && created.title == "Trip")

            _ = try await ana.updateConversation(group.id, title: "Road trip")
            guard case .conversationUpdated(let renamed) = try await ben.next(where: \.isConversationEvent).frame.event else {
                Issue.record("ben expected conversation.updated")
                return
            }
            #expect(renamed.title == "Road trip")

            _ = try await ana.addMembers([fixture.cleo.user.id], to: group.id)
            guard case .conversationCreated(let joined) = try await cleo.next(where: \.isConversationEvent).frame.event else {
                Issue.record("cleo expected conversation.created")
                return
            }
            #expect(joined.id == group.id)
            guard case .conversationUpdated(let grown) = try await ben.next(where: \.isConversationEvent).frame.event else {
                Issue.record("ben expected conversation.updated")
                return
            }
            #expect(Set(grown.members.map(\.userId)) == [fixture.ana.user.id, fixture.ben.user.id, fixture.cleo.user.id])

            try await ana.removeMember(fixture.ben.user.id, from: group.id)
            #expect(try await ben.next(where: \.isConversationEvent).frame.event == .conversationRemoved(conversationId: group.id))
            guard case .conversationUpdated(let shrunk) = try await cleo.next(where: \.isConversationEvent).frame.event else {
                Issue.record("cleo expected conversation.updated")
                return
            }
            #expect(!shrunk.members.contains { $0.userId == fixture.ben.user.id })
            await ben.close()
            await cleo.close()
        }
    }

    @Test func anAcceptedRequestReachesBothUsersEachWithTheOtherAsFriend() async throws {
        try await SandboxFixture.run { fixture in
            let ben = try await fixture.connect(fixture.ben)
            let dan = try await fixture.connect(fixture.dan)
            let request = try await fixture.rest(fixture.dan).sendFriendRequest(to: .userId(fixture.ben.user.id))
            #expect(try await ben.next(where: \.isFriendEvent).frame.event == .friendRequestReceived(request))

            let accepted = try await fixture.rest(fixture.ben).acceptFriendRequest(request.id)

            guard case .friendRequestAccepted(let forDan) = try await dan.next(where: \.isFriendEvent).frame.event,
                case .friendRequestAccepted(let forBen) = try await ben.next(where: \.isFriendEvent).frame.event
            else {
                Issue.record("both expected friend_request.accepted")
                return
            }
            #expect(forBen == accepted)
            #expect(forDan.requestId == request.id && forDan.friend.user.id == fixture.ben.user.id)
            #expect(forBen.friend.user.id == fixture.dan.user.id)
            await ben.close()
            await dan.close()
        }
    }

    @Test func aCancelledRequestReachesTheRecipient() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            let request = try await fixture.rest(fixture.dan).sendFriendRequest(to: .username("ana"))
            #expect(try await ana.next(where: \.isFriendEvent).frame.event == .friendRequestReceived(request))

            try await fixture.rest(fixture.dan).cancelFriendRequest(request.id)

            #expect(try await ana.next(where: \.isFriendEvent).frame.event == .friendRequestCancelled(requestId: request.id))
            await ana.close()
        }
    }

    @Test func removingAFriendReachesBothWithTheOthersId() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            let ben = try await fixture.connect(fixture.ben)

            try await fixture.rest(fixture.ana).removeFriend(fixture.ben.user.id)

            #expect(try await ana.next(where: \.isFriendEvent).frame.event == .friendRemoved(userId: fixture.ben.user.id))
            #expect(try await ben.next(where: \.isFriendEvent).frame.event == .friendRemoved(userId: fixture.ana.user.id))
            await ana.close()
            await ben.close()
        }
    }

    @Test func aProfileChangeReachesFriendsAsUserUpdatedAndNobodyElse() async throws {
        try await SandboxFixture.run { fixture in
            let ben = try await fixture.connect(fixture.ben)
            let dan = try await fixture.connect(fixture.dan)

            let updated = try await fixture.rest(fixture.ana).updateMe(displayName: "Ana S.")

            #expect(try await ben.next(where: \.isUserUpdated).frame.event == .userUpdated(updated))
            #expect(updated.displayName == "Ana S.")
            #expect(try await !dan.framesBeforePong().contains { $0.event.isUserUpdated }, "dan is not ana's friend")
            await ben.close()
            await dan.close()
        }
    }
}

extension ServerEvent {
    var isMessageUpdated: Bool { if case .messageUpdated = self { true } else { false } }
    var isUserUpdated: Bool { if case .userUpdated = self { true } else { false } }

    var isConversationEvent: Bool {
        switch self {
        case .conversationCreated, .conversationUpdated, .conversationRemoved: true
        default: false
        }
    }

    var isFriendEvent: Bool {
        switch self {
        case .friendRequestReceived, .friendRequestAccepted, .friendRequestCancelled, .friendRemoved: true
        default: false
        }
    }
}
