import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// A user who is not a member of a conversation can neither read nor affect it: every conversation endpoint
/// answers NOT_FOUND (as if it did not exist) and changes nothing.
@Suite("A non-member never reads or affects a conversation")
struct MembershipSecurityTests {
    enum ConversationCall: String, CaseIterable, Sendable {
        case get, patch, addMembers, removeMember, leave, settings, listMessages, listHistory, postMessage
        case editMessage, deleteMessage, addReaction, removeReaction
    }

    struct Scene {
        let harness: ServiceHarness
        let ana: TestAccount
        let ben: TestAccount
        let eve: TestAccount
        let group: Conversation
        let message: Message
    }

    /// Ana's group with Ben and one message with a reaction; Eve is everyone's friend but not in the group.
    private func scene() async throws -> Scene {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "eve")
        let group = try await harness.group(accounts[0], "Private", [accounts[1]])
        let message = try await harness.send(accounts[0], "secret", in: group.id)
        _ = try await harness.service.addReaction(accounts[1].caller, group.id, message.id, emoji: "👍")
        return Scene(harness: harness, ana: accounts[0], ben: accounts[1], eve: accounts[2], group: group, message: try await harness.service.messages(accounts[0].caller, group.id, .latest, limit: 1).messages[0])
    }

    private func request(_ call: ConversationCall, _ scene: Scene) async -> HTTPResponse {
        let base = "/conversations/\(scene.group.id)"
        let message = "\(base)/messages/\(scene.message.id)"
        let harness = scene.harness, eve = scene.eve
        switch call {
        case .get: return await harness.call(.get, base, as: eve)
        case .patch: return await harness.call(.patch, base, as: eve, json: ConversationUpdateBody(title: "Hacked"))
        case .addMembers: return await harness.call(.post, "\(base)/members", as: eve, json: MembersBody(userIds: [eve.id]))
        case .removeMember: return await harness.call(.delete, "\(base)/members/\(scene.ben.id)", as: eve)
        case .leave: return await harness.call(.delete, "\(base)/members/\(eve.id)", as: eve)
        case .settings: return await harness.call(.put, "\(base)/settings", as: eve, json: ConversationSettingsBody(muted: true))
        case .listMessages: return await harness.call(.get, "\(base)/messages?afterSeq=0", as: eve)
        case .listHistory: return await harness.call(.get, "\(base)/messages?beforeSeq=99", as: eve)
        case .postMessage:
            return await harness.call(.post, "\(base)/messages", as: eve, json: MessagePostBody(clientMessageId: "x", content: .text("hi")))
        case .editMessage: return await harness.call(.patch, message, as: eve, json: MessageEditBody(body: "edited"))
        case .deleteMessage: return await harness.call(.delete, message, as: eve)
        case .addReaction: return await harness.call(.put, "\(message)/reactions/%F0%9F%98%80", as: eve)
        case .removeReaction: return await harness.call(.delete, "\(message)/reactions/%F0%9F%91%8D", as: eve)
        }
    }

    @Test(arguments: ConversationCall.allCases)
    func aNonMemberGetsNotFoundAndChangesNothing(_ call: ConversationCall) async throws {
        let scene = try await scene()
        let before = try await scene.harness.service.conversation(scene.ana.caller, scene.group.id)

        let response = await request(call, scene)

        expectErrorResponse(response, .notFound)
        #expect(try apiError(response).message.contains("secret") == false)
        #expect(await scene.harness.sink.take().isEmpty, "no event leaves the conversation")
        #expect(try await scene.harness.service.conversation(scene.ana.caller, scene.group.id) == before)
        let messages = try await scene.harness.service.messages(scene.ana.caller, scene.group.id, .latest, limit: nil).messages
        #expect(messages == [scene.message])
    }

    @Test func theRealtimeOperationsRefuseOrIgnoreANonMember() async throws {
        let scene = try await scene()
        let service = scene.harness.service, eve = scene.eve
        await expectAPIError(.notFound) {
            try await service.sendMessage(eve.caller, MessageSend(conversationId: scene.group.id, clientMessageId: "x", content: .text("hi")))
        }
        await expectAPIError(.notFound) { try await service.markRead(eve.caller, conversationId: scene.group.id, seq: 1) }
        await expectAPIError(.notFound) { try await service.markDelivered(eve.caller, conversationId: scene.group.id, seq: 1) }
        #expect(try await service.sync(eve.caller, SyncRequest(conversations: [scene.group.id: 0])).conversations.isEmpty)
        #expect(try await service.conversations(eve.caller, updatedSince: nil).conversations.isEmpty)
        #expect(try await !service.isMember(eve.id, of: scene.group.id))
        #expect(try await service.conversation(scene.ana.caller, scene.group.id).members.allSatisfy { $0.lastReadSeq == 0 })
    }

    @Test func aMessageIdFromAnotherConversationIsNotFoundEvenForAMember() async throws {
        let scene = try await scene()
        let own = try await scene.harness.direct(scene.eve, scene.ana)
        let response = await scene.harness.call(
            .patch, "/conversations/\(own.id)/messages/\(scene.message.id)", as: scene.ana, json: MessageEditBody(body: "moved"))
        expectErrorResponse(response, .notFound)
        let reaction = await scene.harness.call(.put, "/conversations/\(own.id)/messages/\(scene.message.id)/reactions/%F0%9F%98%80", as: scene.eve)
        expectErrorResponse(reaction, .notFound)
    }

    @Test func aFormerMemberCannotReadTheConversationThroughAnOldClientMessageId() async throws {
        let scene = try await scene()
        let key: ClientMessageID = "k-1"
        _ = try await scene.harness.send(scene.ben, "hello", in: scene.group.id, key: key.rawValue)
        _ = try await scene.harness.service.removeMember(scene.ana.caller, scene.group.id, scene.ben.id)
        let hello = try #require(try await scene.harness.service.messages(scene.ana.caller, scene.group.id, .latest, limit: 1).messages.first)
        _ = try await scene.harness.service.addReaction(scene.ana.caller, scene.group.id, hello.id, emoji: "🤫")
        _ = await scene.harness.sink.take()

        let response = await scene.harness.call(
            .post, "/conversations/\(scene.group.id)/messages", as: scene.ben, json: MessagePostBody(clientMessageId: key, content: .text("hello")))

        expectErrorResponse(response, .notFound)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("🤫"), "the reaction added after the removal leaked")
        #expect(await scene.harness.sink.take().isEmpty)
    }

    @Test func aFormerMemberStillGetsTheAckOfTheirOwnMessageOnARealtimeResend() async throws {
        let scene = try await scene()
        let service = scene.harness.service
        let send = MessageSend(conversationId: scene.group.id, clientMessageId: "k-1", content: .text("hello"))
        let first = try await service.sendMessage(scene.ben.caller, send).value
        _ = try await service.removeMember(scene.ana.caller, scene.group.id, scene.ben.id)

        let resent = try await service.sendMessage(scene.ben.caller, send)

        #expect(resent.value == first)
        #expect(resent.deliveries.isEmpty, "a resend tells nobody anything")
        let messages = try await service.messages(scene.ana.caller, scene.group.id, .after(seq: 0), limit: nil).messages
        #expect(messages.map(\.body) == ["secret", "hello"], "the resend stored nothing")
    }

    @Test func aFormerMemberSendingANewMessageIsRefused() async throws {
        let scene = try await scene()
        let service = scene.harness.service
        _ = try await service.sendMessage(
            scene.ben.caller, MessageSend(conversationId: scene.group.id, clientMessageId: "k-1", content: .text("hello")))
        _ = try await service.removeMember(scene.ana.caller, scene.group.id, scene.ben.id)

        await expectAPIError(.notFound) {
            try await service.sendMessage(
                scene.ben.caller, MessageSend(conversationId: scene.group.id, clientMessageId: "k-2", content: .text("again")))
        }
    }

    @Test func aClientMessageIdUsedElsewhereDoesNotOpenAConversationOfOthers() async throws {
        let scene = try await scene()
        let own = try await scene.harness.direct(scene.eve, scene.ana)
        _ = try await scene.harness.send(scene.eve, "mine", in: own.id, key: "k-1")

        await expectAPIError(.notFound) {
            try await scene.harness.service.sendMessage(
                scene.eve.caller, MessageSend(conversationId: scene.group.id, clientMessageId: "k-1", content: .text("x")))
        }
        let messages = try await scene.harness.service.messages(scene.ana.caller, scene.group.id, .latest, limit: nil).messages
        #expect(messages == [scene.message])
    }

    @Test func aFormerMemberLosesAccess() async throws {
        let scene = try await scene()
        _ = try await scene.harness.service.removeMember(scene.ben.caller, scene.group.id, scene.ben.id)
        expectErrorResponse(await scene.harness.call(.get, "/conversations/\(scene.group.id)/messages", as: scene.ben), .notFound)
    }
}
