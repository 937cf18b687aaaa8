import ChatterBots
import ChatterSandbox
import Testing

@Suite("Friends and friend requests")
struct FriendTests {
    @Test func aFriendRequestReachesTheRecipientAsAnEventOrAPush() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben_tan", displayName: "Ben Tan")

        let outcome = try await harness.service.sendFriendRequest(ana.caller, .username("ben_tan"))

        #expect(outcome.value.fromUser == ana.user)
        #expect(outcome.value.toUser == ben.user)
        #expect(outcome.deliveries == [
            SandboxDelivery(
                event: .friendRequestReceived(outcome.value), recipients: [ben.id],
                pushTrigger: .friendRequestReceived(outcome.value))
        ])
        let lists = try await harness.service.friendRequests(ben.caller)
        #expect(lists.incoming == [outcome.value])
        #expect(lists.outgoing.isEmpty)
        #expect(try await harness.service.friendRequests(ana.caller).outgoing == [outcome.value])
    }

    @Test func acceptingTellsBothUsersEachWithTheOtherUserAsFriend() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let request = try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)).value

        let outcome = try await harness.service.acceptFriendRequest(ben.caller, request.id)

        #expect(outcome.value.requestId == request.id)
        #expect(outcome.value.friend.user == ana.user, "the accepter's response names the sender")
        #expect(outcome.deliveries.count == 2)
        let toAna = try #require(outcome.deliveries.first { $0.recipients == [ana.id] })
        let toBen = try #require(outcome.deliveries.first { $0.recipients == [ben.id] })
        guard case .friendRequestAccepted(let forAna) = toAna.event, case .friendRequestAccepted(let forBen) = toBen.event else {
            Issue.record("expected friend_request.accepted events")
            return
        }
        #expect(forAna.friend.user == ben.user)
        #expect(forBen.friend.user == ana.user)
        #expect(toAna.pushTrigger == .friendRequestAccepted(requestId: request.id, sender: ana.user, accepter: ben.user))
        #expect(toBen.pushTrigger == nil, "only the sender is pushed")
        #expect(try await harness.service.friends(ana.caller).friends.map(\.user) == [ben.user])
        #expect(try await harness.service.friends(ben.caller).friends.map(\.user) == [ana.user])
        #expect(try await harness.service.friendRequests(ben.caller).incoming.isEmpty)
    }

    @Test func decliningTellsNoOne() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let request = try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)).value

        let response = await harness.call(.post, "/friend-requests/\(request.id)/decline", as: ben)

        #expect(response.status == .noContent)
        #expect(await harness.sink.take().isEmpty)
        #expect(try await harness.service.friendRequests(ana.caller).outgoing.isEmpty)
        #expect(try await harness.service.friends(ana.caller).friends.isEmpty)
    }

    @Test func cancellingTellsTheRecipient() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let request = try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)).value

        let outcome = try await harness.service.cancelFriendRequest(ana.caller, request.id)

        #expect(outcome.deliveries == [SandboxDelivery(event: .friendRequestCancelled(requestId: request.id), recipients: [ben.id])])
        #expect(try await harness.service.friendRequests(ben.caller).incoming.isEmpty)
    }

    @Test func onlyTheRecipientAcceptsOrDeclinesAndOnlyTheSenderCancels() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let eve = try await harness.signUp("eve")
        let request = try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)).value

        await expectAPIError(.forbidden) { try await harness.service.acceptFriendRequest(ana.caller, request.id) }
        await expectAPIError(.forbidden) { try await harness.service.declineFriendRequest(ana.caller, request.id) }
        await expectAPIError(.forbidden) { try await harness.service.cancelFriendRequest(ben.caller, request.id) }
        await expectAPIError(.notFound) { try await harness.service.acceptFriendRequest(eve.caller, request.id) }
        await expectAPIError(.notFound) { try await harness.service.cancelFriendRequest(eve.caller, request.id) }
        #expect(try await harness.service.friendRequests(ben.caller).incoming == [request])
    }

    @Test func aRequestToAFriendIsAlreadyFriends() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        try await harness.befriend(ana, ben)
        await expectAPIError(.alreadyFriends) { try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)) }
    }

    @Test func aSecondPendingRequestEitherWayIsRequestExists() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        _ = try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id))
        await expectAPIError(.requestExists) { try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)) }
        await expectAPIError(.requestExists) { try await harness.service.sendFriendRequest(ben.caller, .userId(ana.id)) }
    }

    @Test func aRequestToOneselfOrToNobodyFails() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        await expectAPIError(.validationFailed, field: "userId") { try await harness.service.sendFriendRequest(ana.caller, .userId(ana.id)) }
        await expectAPIError(.notFound) { try await harness.service.sendFriendRequest(ana.caller, .username("ghost")) }
    }

    @Test func removingAFriendTellsBothWithTheOthersId() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        try await harness.befriend(ana, ben)

        let outcome = try await harness.service.removeFriend(ana.caller, ben.id)

        #expect(Set(outcome.deliveries) == [
            SandboxDelivery(event: .friendRemoved(userId: ben.id), recipients: [ana.id]),
            SandboxDelivery(event: .friendRemoved(userId: ana.id), recipients: [ben.id]),
        ])
        #expect(try await harness.service.friends(ben.caller).friends.isEmpty)
        await expectAPIError(.notFound) { try await harness.service.removeFriend(ana.caller, ben.id) }
    }

    @Test func aProfileChangeReachesFriendsOnly() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        _ = try await harness.signUp("eve")
        try await harness.befriend(ana, ben)

        let outcome = try await harness.service.updateMe(ana.caller, ProfileUpdateBody(displayName: "Ana Souza"))

        #expect(outcome.value.displayName == "Ana Souza")
        #expect(outcome.deliveries == [SandboxDelivery(event: .userUpdated(outcome.value), recipients: [ben.id])])
        #expect(try await harness.service.me(ana.caller).displayName == "Ana Souza")
    }

    @Test func privacyDecidesWhoSeesPresence() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        _ = try await harness.signUp("eve")
        try await harness.befriend(ana, ben)

        #expect(try await harness.service.presenceAudience(of: ana.id) == [ben.id], "everyone still means friends only")
        _ = try await harness.service.updateMe(ana.caller, ProfileUpdateBody(privacy: PrivacySettings(lastSeen: .friends)))
        #expect(try await harness.service.presenceAudience(of: ana.id) == [ben.id])
        #expect(try await harness.service.visibleFriendIDs(for: ben.id) == [ana.id])
        let hidden = try await harness.service.updateMe(ana.caller, ProfileUpdateBody(privacy: PrivacySettings(lastSeen: .nobody)))
        #expect(hidden.deliveries.isEmpty, "privacy is not part of the public profile")
        #expect(try await harness.service.presenceAudience(of: ana.id).isEmpty)
        #expect(try await harness.service.visibleFriendIDs(for: ben.id).isEmpty)
        #expect(try await harness.service.me(ana.caller).privacy.lastSeen == .nobody)
    }

    @Test func lastSeenIsRecordedPerUser() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        #expect(try await harness.service.lastSeen(of: ana.id) == nil)
        let time = Timestamp(millisecondsSince1970: 1_767_225_612_345)
        try await harness.service.setLastSeen(ana.id, at: time)
        #expect(try await harness.service.lastSeen(of: ana.id) == time)
    }
}
