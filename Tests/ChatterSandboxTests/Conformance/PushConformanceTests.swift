import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// When pushes are recorded (push-notifications.txt): only for devices with a push token and no open socket,
/// never for a muted conversation, and a device never gets both the socket event and the push.
@Suite("Realtime conformance: push decision")
struct PushConformanceTests {
    @Test func aNewMessageIsPushedOnlyToTheOtherMembersSocketlessDevicesWithAToken() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            // ben: phone connected (with a token), tablet with a token and no socket, laptop with neither.
            try await fixture.rest(fixture.ben).setPushToken(SandboxFixture.pushToken(1), environment: .production)
            let tablet = try await fixture.signInNewDevice(fixture.ben, name: "tablet")
            try await fixture.rest(tablet).setPushToken(SandboxFixture.pushToken(2), environment: .sandbox)
            _ = try await fixture.signInNewDevice(fixture.ben, name: "laptop")
            // ana's own other device has a token and no socket: the sender's devices get no push.
            let anaTablet = try await fixture.signInNewDevice(fixture.ana, name: "tablet")
            try await fixture.rest(anaTablet).setPushToken(SandboxFixture.pushToken(3), environment: .production)

            let benPhone = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            let ack = try await fixture.send("See you at 8?", in: chat, over: ana)

            let pushes = try await fixture.sandbox.admin.pushes()
            #expect(pushes.map(\.deviceId) == [tablet.deviceId], "one push, to ben's socketless tablet only")
            let push = try #require(pushes.first)
            #expect(push.token == SandboxFixture.pushToken(2))
            #expect(push.payload.aps.alert == PushPayload.Alert(title: "Ana Souza", body: "See you at 8?"))
            #expect(push.payload.aps.threadId == chat.rawValue)
            #expect(push.payload.chatter == .messageNew(
                conversationId: chat, messageId: ack.messageId, seq: ack.seq, senderId: fixture.ana.user.id))
            let (event, _) = try await benPhone.next { $0.isMessageNew }
            #expect(event.event.message?.id == ack.messageId, "the connected phone gets the socket event instead")
            await ana.close()
            await benPhone.close()
        }
    }

    @Test func aDeviceWithAnOpenSocketGetsTheEventAndNoPush() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            try await fixture.rest(fixture.ben).setPushToken(SandboxFixture.pushToken(1), environment: .production)
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.send("one", in: chat, over: ana)
            _ = try await ben.next { $0.isMessageNew }
            #expect(try await fixture.sandbox.admin.pushes().isEmpty)

            await ben.close()
            try await fixture.waitUntilDisconnected(fixture.ben.session.deviceId)
            try await fixture.send("two", in: chat, over: ana)
            let pushes = try await fixture.sandbox.admin.pushes()
            #expect(pushes.map(\.deviceId) == [fixture.ben.session.deviceId], "once the socket is gone, the push comes")
            #expect(pushes.first?.payload.aps.alert.body == "two")
            await ana.close()
        }
    }

    @Test func aMutedConversationIsNotPushed() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            try await fixture.rest(fixture.ben).setPushToken(SandboxFixture.pushToken(1), environment: .production)
            try await fixture.rest(fixture.ben).setMuted(true, conversation: chat)
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.send("shh", in: chat, over: ana)
            #expect(try await fixture.sandbox.admin.pushes().isEmpty)

            try await fixture.rest(fixture.ben).setMuted(false, conversation: chat)
            try await fixture.send("hello again", in: chat, over: ana)
            #expect(try await fixture.sandbox.admin.pushes().map(\.payload.aps.alert.body) == ["hello again"])
            await ana.close()
        }
    }

    @Test func friendRequestsArePushedToTheRecipientAndAcceptanceToTheSender() async throws {
        try await SandboxFixture.run { fixture in
            try await fixture.rest(fixture.ben).setPushToken(SandboxFixture.pushToken(1), environment: .production)
            try await fixture.rest(fixture.dan).setPushToken(SandboxFixture.pushToken(4), environment: .production)
            let request = try await fixture.rest(fixture.dan).sendFriendRequest(to: .userId(fixture.ben.user.id))
            let received = try await fixture.sandbox.admin.pushes(to: fixture.ben.user.id)
            #expect(received.map(\.payload.chatter) == [.friendRequestReceived(requestId: request.id, fromUserId: fixture.dan.user.id)])

            _ = try await fixture.rest(fixture.ben).acceptFriendRequest(request.id)
            let accepted = try await fixture.sandbox.admin.pushes(to: fixture.dan.user.id)
            #expect(accepted.map(\.payload.chatter) == [.friendRequestAccepted(requestId: request.id, friendUserId: fixture.ben.user.id)])
            #expect(accepted.first?.payload.aps.alert == PushPayload.Alert(title: "Ben Tan", body: "accepted your friend request"))
        }
    }

    @Test func aConnectedRecipientGetsTheFriendRequestEventInsteadOfAPush() async throws {
        try await SandboxFixture.run { fixture in
            try await fixture.rest(fixture.ben).setPushToken(SandboxFixture.pushToken(1), environment: .production)
            let ben = try await fixture.connect(fixture.ben)
            let request = try await fixture.rest(fixture.dan).sendFriendRequest(to: .userId(fixture.ben.user.id))
            let (event, _) = try await ben.next { if case .friendRequestReceived = $0 { true } else { false } }
            #expect(event.event == .friendRequestReceived(request))
            #expect(try await fixture.sandbox.admin.pushes().isEmpty)
            await ben.close()
        }
    }
}
