import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// Each admin fault does what it says, so a client's recovery can be tested against it.
@Suite("Sandbox faults")
struct FaultConformanceTests {
    @Test func dropSocketEndsTheConnectionWithoutACloseFrame() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.dropSocket, into: fixture.ana.session.deviceId)
            let info = try await ana.closeInfo()
            #expect(info.code == .abnormalClosure)
            #expect(info.initiator == .transport)
        }
    }

    @Test func failedRequestsAnswerInternalForTheirEndpointOnlyUntilUsedUpOrDisarmed() async throws {
        try await SandboxFixture.run { fixture in
            let rest = fixture.rest(fixture.ana)
            fixture.sandbox.admin.failRequests(to: .friends, count: 2)
            for _ in 0..<2 {
                await #expect { try await rest.friends() } throws: { error in
                    (error as? ChatterAPIError).map { $0.code == .internalError && $0.httpStatus == 500 } ?? false
                }
            }
            _ = try await rest.friends()
            fixture.sandbox.admin.failRequests(to: .friends, count: Int.max)
            _ = try await rest.me()
            await #expect(throws: ChatterAPIError.self) { try await rest.friends() }
            fixture.sandbox.admin.failRequests(to: .friends, count: 0)
            _ = try await rest.friends()
        }
    }

    @Test func aHeldRequestIsAnsweredOnceReleasedWhileOtherEndpointsAnswerMeanwhile() async throws {
        try await SandboxFixture.run { fixture in
            let rest = fixture.rest(fixture.ana)
            let hold = fixture.sandbox.admin.holdRequests(to: .friends)
            let held = Task { try await rest.friends() }
            await hold.waitUntilHeld()
            let me = try await rest.me()
            #expect(me.user.id == fixture.ana.user.id)
            hold.release()
            let answered = try await held.value
            #expect(answered.map(\.user.username) == ["ben", "cleo"])
            let later = try await rest.friends()
            #expect(later.map(\.user.username) == ["ben", "cleo"], "a released hold lets later requests through")
        }
    }

    @Test func aFailedSendAnswersARealtimeSendWithAnInternalErrorFrameAndStoresNothing() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            fixture.sandbox.admin.failRequests(to: .postMessage, count: 1)
            let key = ClientMessageID.random()
            try await ana.send(SandboxFixture.text("refused for now", in: chat, key: key), id: "c-1")
            let reply = try await ana.next { event in
                if case .error = event { return true }
                if case .messageAck = event { return true }
                return false
            }.0
            guard case .error(let error) = reply.event else {
                Issue.record("expected an error, got \(reply)")
                return
            }
            #expect(reply.replyTo == "c-1" && error.code == .internalError)
            #expect(try await fixture.rest(fixture.ana).messages(in: chat, afterSeq: 0).messages.isEmpty)
            let ack = try await fixture.send("refused for now", in: chat, over: ana, key: key, id: "c-2")
            #expect(ack.clientMessageId == key && ack.seq == 1)
            await ana.close()
        }
    }

    @Test func dropBeforeAckStoresTheMessageOnceAndTheResendGetsTheSameAck() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.dropBeforeNextAck, into: fixture.ana.session.deviceId)
            let key = ClientMessageID.random()
            try await ana.send(SandboxFixture.text("lost ack", in: chat, key: key), id: "c-1")
            #expect(try await ana.closeInfo().code == .abnormalClosure)
            let (delivered, _) = try await ben.next { $0.isMessageNew }
            let stored = try #require(delivered.event.message)

            let again = try await fixture.connect(fixture.ana)
            let ack = try await fixture.send("lost ack", in: chat, over: again, key: key, id: "c-1")
            #expect(ack.messageId == stored.id && ack.seq == stored.seq && ack.clientMessageId == key)
            let page = try await fixture.rest(fixture.ana).messages(in: chat, afterSeq: 0)
            #expect(page.messages.map(\.id) == [stored.id], "exactly one message stored")
            await again.close()
            await ben.close()
        }
    }

    @Test func dropBeforeAckIsOneShot() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            try await fixture.sandbox.admin.inject(.dropBeforeNextAck, into: fixture.ana.session.deviceId)
            let first = try await fixture.connect(fixture.ana)
            try await first.send(SandboxFixture.text("one", in: chat), id: "c-1")
            #expect(try await first.closeInfo().code == .abnormalClosure)
            let second = try await fixture.connect(fixture.ana)
            let ack = try await fixture.send("two", in: chat, over: second)
            #expect(ack.seq == 2)
            await second.close()
        }
    }

    @Test func duplicateSendsEachMessageNewAgain() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.duplicateMessageNew(copies: 2), into: fixture.ben.session.deviceId)
            let ack = try await fixture.send("echo", in: chat, over: ana)
            var copies: [Message.ID] = []
            for _ in 0..<3 {
                let (frame, _) = try await ben.next { $0.isMessageNew }
                if let message = frame.event.message { copies.append(message.id) }
            }
            #expect(copies == [ack.messageId, ack.messageId, ack.messageId])

            await fixture.sandbox.admin.clearFaults(of: fixture.ben.session.deviceId)
            let second = try await fixture.send("once", in: chat, over: ana)
            let (next, _) = try await ben.next { $0.isMessageNew }
            #expect(next.event.message?.id == second.messageId)
            let tail = try await ben.framesBeforePong()
            #expect(!tail.contains { $0.event.isMessageNew }, "after clearing, one copy only")
            await ana.close()
            await ben.close()
        }
    }

    @Test func duplicateEventsSendsEachEventOfTheNamedTypesAgain() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let duplicated: Set<String> = ["message.updated", "conversation.updated", "friend_request.received"]
            try await fixture.sandbox.admin.inject(.duplicateEvents(types: duplicated, copies: 1), into: fixture.ben.session.deviceId)
            let ana = fixture.rest(fixture.ana)

            let message = try await ana.postMessage(.text("draft"), clientMessageId: .random(), in: chat)
            _ = try await ana.editMessage(message.id, in: chat, body: "final")
            let group = try await ana.createGroup(title: "Trip", memberIds: [fixture.ben.user.id])
            _ = try await ana.updateConversation(group.id, title: "Trip to Porto")
            _ = try await fixture.rest(fixture.dan).sendFriendRequest(to: .username("ben"))

            let types = try await ben.framesBeforePong().map(\.event.type).filter { !$0.hasPrefix("presence") }
            #expect(types == [
                "message.new", "message.updated", "message.updated", "conversation.created",
                "conversation.updated", "conversation.updated", "friend_request.received", "friend_request.received",
            ])
            await ben.close()
        }
    }

    @Test func duplicateEventsOfAnEventTheServiceDoesNotPushIsRefused() async throws {
        try await SandboxFixture.run { fixture in
            await expectAPIError(.validationFailed, field: "types") {
                try await fixture.sandbox.admin.inject(
                    .duplicateEvents(types: ["message.ack"], copies: 1), into: fixture.ben.session.deviceId)
            }
        }
    }

    @Test func reorderSwapsConsecutiveMessageNewEvents() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.reorderMessageNew, into: fixture.ben.session.deviceId)
            try await fixture.send("first", in: chat, over: ana)
            try await fixture.send("second", in: chat, over: ana)
            var order: [Int] = []
            for _ in 0..<2 {
                let (frame, _) = try await ben.next { $0.isMessageNew }
                order.append(frame.event.message?.seq ?? 0)
            }
            #expect(order == [2, 1])
            await ana.close()
            await ben.close()
        }
    }

    @Test func delayedAcksArriveAfterTheDelayOnTheSandboxClock() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.delayAcks(.seconds(2)), into: fixture.ana.session.deviceId)
            try await ana.send(SandboxFixture.text("slow", in: chat), id: "c-1")
            let early = try await ana.framesBeforePong()
            #expect(early.isEmpty, "no ack before the delay: \(early)")
            await fixture.clock.advance(by: .seconds(2))
            let (ack, _) = try await ana.next { if case .messageAck = $0 { true } else { false } }
            #expect(ack.replyTo == "c-1")
            await ana.close()
        }
    }

    @Test func closeUsesTheChosenCodeAndReason() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.close(code: 1001, reason: "maintenance"), into: fixture.ana.session.deviceId)
            let info = try await ana.closeInfo()
            #expect(info.code == .goingAway)
            #expect(info.reason == "maintenance")
        }
    }

    @Test func expireTokenClosesWith4001AndTheClientMustRefresh() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.expireToken, into: fixture.ana.session.deviceId)
            #expect(try await ana.closeInfo().code == .chatterTokenInvalid)
            let stale = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken))
            #expect(try await stale.closeInfo().code == .chatterTokenInvalid)
            let fresh = try await fixture.rest(fixture.ana).refreshTokens()
            let (client, _, _) = try await RealtimeTestClient.signIn(accessToken: fresh.accessToken, to: fixture.sandbox)
            await client.close()
        }
    }

    @Test func revokeDeviceClosesWith4003AndTheDeviceCannotComeBack() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.sandbox.admin.inject(.revokeDevice, into: fixture.ana.session.deviceId)
            #expect(try await ana.closeInfo().code == .chatterSessionRevoked)
            let again = try await RealtimeTestClient.connect(to: fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken))
            #expect(try await again.closeInfo().code == .chatterSessionRevoked)
            await #expect(throws: ChatterAPIError.self) { try await fixture.rest(fixture.ana).refreshTokens() }
        }
    }

    static let everyFault: [SandboxFault] = [
        .dropSocket, .dropBeforeNextAck, .duplicateMessageNew(copies: 1), .loseMessageNew(count: 1), .reorderMessageNew,
        .duplicateEvents(types: ["typing"], copies: 1), .delayAcks(.seconds(1)), .close(code: 4000, reason: "test"), .expireToken, .revokeDevice,
        .delayPresenceSnapshot(.seconds(1)),
    ]

    @Test(arguments: everyFault)
    func aFaultOnAnUnknownDeviceIsNotFound(_ fault: SandboxFault) async throws {
        try await SandboxFixture.run { fixture in
            let error = await expectAPIError(.notFound, field: "deviceId") {
                try await fixture.sandbox.admin.inject(fault, into: "01JBNOSUCHDEVICE0000000000")
            }
            #expect(error?.message.isEmpty == false)
        }
    }
}
