import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// The endpoints of chatter-api.md through the router: statuses, shapes and the events handed to the sink.
@Suite("REST endpoints")
struct RESTEndpointTests {
    @Test func registerAnswers201WithASessionAndLoginAndRefresh200() async throws {
        let harness = try await ServiceHarness.make()
        let registered = await harness.call(
            .post, "/auth/register", json: RegisterBody(username: "ana_souza", password: ServiceHarness.password, displayName: "Ana Souza"))
        #expect(registered.status == .created)
        let session = try decode(AuthSession.self, registered)
        let object = try decode(JSONValue.self, registered)
        #expect(object["expiresIn"] == 3600)
        #expect(object["user"]?["avatarUrl"] == .null, "absent optionals are written as null")

        let login = await harness.call(.post, "/auth/login", json: LoginBody(
            username: "ana_souza", password: ServiceHarness.password, deviceId: session.deviceId,
            device: DeviceDescription(name: "bot", platform: "linux")))
        #expect(login.status == .ok)
        #expect(try decode(AuthSession.self, login).deviceId == session.deviceId)

        let refresh = await harness.call(.post, "/auth/refresh", json: RefreshBody(refreshToken: try decode(AuthSession.self, login).refreshToken))
        #expect(refresh.status == .ok)
        #expect(try decode(AuthSession.self, refresh).user == session.user)
    }

    @Test func meShowsPrivacyAndPatchMeChangesOnlyWhatItNames() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana", displayName: "Ana")
        let me = try decode(JSONValue.self, await harness.call(.get, "/me", as: ana))
        #expect(me["privacy"] == ["lastSeen": "everyone"])

        let patched = await harness.call(.patch, "/me", as: ana, body: Array(#"{"privacy":{"lastSeen":"nobody"}}"#.utf8))
        #expect(patched.status == .ok)
        #expect(try decode(User.self, patched).displayName == "Ana")
        #expect(try decode(CurrentUser.self, await harness.call(.get, "/me", as: ana)).privacy.lastSeen == .nobody)
        let invalid = await harness.call(.patch, "/me", as: ana, body: Array(#"{"privacy":{"lastSeen":"aliens"}}"#.utf8))
        expectErrorResponse(invalid, .validationFailed, field: "privacy.lastSeen")
    }

    @Test func usersAreFoundByIdOrExactUsername() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben_tan", displayName: "Ben Tan")
        #expect(try decode(User.self, await harness.call(.get, "/users/\(ben.id)", as: ana)) == ben.user)
        #expect(try decode(UserList.self, await harness.call(.get, "/users?username=BEN_TAN", as: ana)).users == [ben.user])
        #expect(try decode(UserList.self, await harness.call(.get, "/users?username=ben", as: ana)).users.isEmpty)
    }

    @Test func theFriendRequestFlowAnswersWithTheDocumentedStatusesAndEvents() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")

        let sent = await harness.call(.post, "/friend-requests", as: ana, json: FriendRequestBody.userId(ben.id))
        #expect(sent.status == .created)
        let request = try decode(FriendRequest.self, sent)
        #expect(await harness.sink.take().map(\.event) == [.friendRequestReceived(request)])
        #expect(try decode(FriendRequestList.self, await harness.call(.get, "/friend-requests", as: ben)).incoming == [request])

        let accepted = await harness.call(.post, "/friend-requests/\(request.id)/accept", as: ben)
        #expect(accepted.status == .ok)
        let body = try decode(FriendRequestAccepted.self, accepted)
        #expect(body.requestId == request.id)
        #expect(body.friend.user == ana.user)
        #expect(await harness.sink.take().count == 2)
        #expect(try decode(FriendList.self, await harness.call(.get, "/friends", as: ana)).friends.map(\.user) == [ben.user])

        #expect(await harness.call(.delete, "/friends/\(ben.id)", as: ana).status == .noContent)
        #expect(await harness.sink.take().map(\.event.type) == ["friend.removed", "friend.removed"])

        let again = try decode(FriendRequest.self, await harness.call(.post, "/friend-requests", as: ana, json: FriendRequestBody.username("ben")))
        #expect(await harness.call(.delete, "/friend-requests/\(again.id)", as: ana).status == .noContent)
        _ = await harness.sink.take()
        let third = try decode(FriendRequest.self, await harness.call(.post, "/friend-requests", as: ana, json: FriendRequestBody.username("ben")))
        _ = await harness.sink.take()
        #expect(await harness.call(.post, "/friend-requests/\(third.id)/decline", as: ben).status == .noContent)
        #expect(await harness.sink.take().isEmpty)
    }

    @Test func aDirectConversationAnswers201ThenTheSameOneWith200() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let body = NewConversationBody.direct(userId: accounts[1].id)

        let first = await harness.call(.post, "/conversations", as: accounts[0], json: body)
        let second = await harness.call(.post, "/conversations", as: accounts[0], json: body)

        #expect(first.status == .created)
        #expect(second.status == .ok)
        #expect(try decode(Conversation.self, second) == decode(Conversation.self, first))
        #expect(await harness.sink.take().map(\.recipients) == [[accounts[1].id]])
        let object = try decode(JSONValue.self, first)
        #expect(object["type"] == "direct")
        #expect(object["title"] == .null)
        #expect(object["lastMessage"] == .null)
        #expect(object["muted"] == false)
    }

    @Test func groupsAreCreatedChangedAndManagedThroughREST() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])

        let created = await harness.call(.post, "/conversations", as: ana, json: NewConversationBody.group(title: "Trip", memberIds: [ben.id]))
        #expect(created.status == .created)
        let group = try decode(Conversation.self, created)
        let patched = await harness.call(.patch, "/conversations/\(group.id)", as: ana, json: ConversationUpdateBody(title: "Lisbon"))
        #expect(try decode(Conversation.self, patched).title == "Lisbon")
        let added = await harness.call(.post, "/conversations/\(group.id)/members", as: ana, json: MembersBody(userIds: [cai.id]))
        #expect(added.status == .ok)
        #expect(try decode(Conversation.self, added).members.map(\.userId) == [ana.id, ben.id, cai.id])
        #expect(await harness.call(.delete, "/conversations/\(group.id)/members/\(ben.id)", as: ben).status == .noContent)
        #expect(await harness.call(.put, "/conversations/\(group.id)/settings", as: cai, json: ConversationSettingsBody(muted: true)).status == .noContent)
        #expect(try decode(Conversation.self, await harness.call(.get, "/conversations/\(group.id)", as: cai)).muted)
        let listed = try decode(ConversationList.self, await harness.call(.get, "/conversations?updatedSince=2000-01-01T00:00:00.000Z", as: cai))
        #expect(listed.conversations.map(\.id) == [group.id])
        let events = await harness.sink.take().map { ($0.recipients, $0.event.type) }
        #expect(events.contains { $0 == ([cai.id], "conversation.created") })
        #expect(events.contains { $0 == ([ben.id], "conversation.removed") })
    }

    @Test func aRepeatedClientMessageIdAnswers200WithTheSameMessage() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])
        let body = Array(#"{"clientMessageId":"c-42","type":"text","body":"See you at 8?","mediaId":null,"replyToId":null}"#.utf8)

        let first = await harness.call(.post, "/conversations/\(direct.id)/messages", as: accounts[0], body: body)
        let second = await harness.call(.post, "/conversations/\(direct.id)/messages", as: accounts[0], body: body)

        #expect(first.status == .created)
        #expect(second.status == .ok)
        #expect(second.body == first.body)
        let message = try decode(JSONValue.self, first)
        let keys: Set<String> = [
            "id", "conversationId", "seq", "senderId", "clientMessageId", "type", "body", "mediaId", "replyToId",
            "reactions", "createdAt", "editedAt", "deletedAt",
        ]
        if case .object(let fields) = message { #expect(Set(fields.keys) == keys) }
        #expect(message["seq"] == 1)
        #expect(message["editedAt"] == .null)
        let delivered = await harness.sink.take()
        #expect(delivered.count == 1)
        #expect(delivered.first?.excludedDevice == accounts[0].session.deviceId)
    }

    @Test func messagesArePagedWithAfterSeqBeforeSeqAndLimit() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])
        for index in 1...5 { try await harness.send(accounts[0], "m\(index)", in: direct.id) }
        let path = "/conversations/\(direct.id)/messages"

        let after = try decode(MessagePage.self, await harness.call(.get, "\(path)?afterSeq=1&limit=2", as: accounts[1]))
        #expect(after.messages.map(\.seq) == [2, 3])
        #expect(after.hasMore)
        let before = try decode(MessagePage.self, await harness.call(.get, "\(path)?beforeSeq=3&limit=100", as: accounts[1]))
        #expect(before.messages.map(\.seq) == [2, 1])
        #expect(!before.hasMore)
        #expect(await harness.call(.get, "\(path)?afterSeq=0&limit=500", as: accounts[1]).status == .ok)
        expectErrorResponse(await harness.call(.get, "\(path)?afterSeq=0&limit=501", as: accounts[1]), .validationFailed, field: "limit")
        expectErrorResponse(await harness.call(.get, "\(path)?afterSeq=x", as: accounts[1]), .validationFailed, field: "afterSeq")
        expectErrorResponse(await harness.call(.get, "\(path)?afterSeq=1&beforeSeq=3", as: accounts[1]), .validationFailed, field: "beforeSeq")
    }

    @Test func messagesAreEditedDeletedAndReactedToThroughREST() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])
        let message = try await harness.send(accounts[0], "hello", in: direct.id)
        let path = "/conversations/\(direct.id)/messages/\(message.id)"
        _ = await harness.sink.take()

        let edited = await harness.call(.patch, path, as: accounts[0], json: MessageEditBody(body: "hello!"))
        #expect(try decode(Message.self, edited).body == "hello!")
        expectErrorResponse(await harness.call(.patch, path, as: accounts[1], json: MessageEditBody(body: "mine")), .forbidden)
        let reacted = await harness.call(.put, "\(path)/reactions/%F0%9F%91%8D", as: accounts[1])
        #expect(try decode(Message.self, reacted).reactions == [Message.Reaction(emoji: "👍", userIds: [accounts[1].id])])
        let unreacted = await harness.call(.delete, "\(path)/reactions/%F0%9F%91%8D", as: accounts[1])
        #expect(try decode(Message.self, unreacted).reactions.isEmpty)
        let deleted = await harness.call(.delete, path, as: accounts[0])
        #expect(deleted.status == .ok)
        let object = try decode(JSONValue.self, deleted)
        #expect(object["body"] == .null)
        #expect(object["mediaId"] == .null)
        #expect(object["deletedAt"]?.stringValue != nil)
        #expect(await harness.sink.take().map(\.event.type) == Array(repeating: "message.updated", count: 4))
    }

    @Test func pushTokensAreSetAndRemovedWith204() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let set = await harness.call(
            .put, "/me/devices/current/push-token", as: ana, json: PushTokenBody(token: deviceToken("a"), environment: .production))
        #expect(set.status == .noContent)
        #expect(try await harness.service.devices(ofUsers: [ana.id]).first?.pushToken == deviceToken("a"))
        #expect(await harness.call(.delete, "/me/devices/current/push-token", as: ana).status == .noContent)
        #expect(try await harness.service.devices(ofUsers: [ana.id]).first?.pushToken == nil)
    }
}
