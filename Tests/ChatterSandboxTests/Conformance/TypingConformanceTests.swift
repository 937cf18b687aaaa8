import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// Typing of realtime-websocket.txt: announced to the other members, ended by typing.stop or 5 s after the
/// last typing.start.
@Suite("Realtime conformance: typing")
struct TypingConformanceTests {
    @Test func typingStartReachesTheOtherMembersButNotTheTypistsOtherDevices() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let phone = try await fixture.connect(fixture.ana)
            let laptop = try await fixture.connect(try await fixture.signInNewDevice(fixture.ana, name: "laptop"))
            let ben = try await fixture.connect(fixture.ben)
            try await phone.send(.typingStart(conversationId: chat))
            let (typing, _) = try await ben.next { $0.isTyping }
            #expect(typing.event == .typing(TypingIndicator(conversationId: chat, userId: fixture.ana.user.id, isTyping: true)))

            try await fixture.send("done typing", in: chat, over: ben)
            let (_, skipped) = try await laptop.next { $0.isMessageNew }
            #expect(!skipped.contains { $0.event.isTyping }, "the typist's own devices are not told")
            for client in [phone, laptop, ben] { await client.close() }
        }
    }

    @Test func typingStopIsAnnounced() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            let ben = try await fixture.connect(fixture.ben)
            try await ana.send(.typingStart(conversationId: chat))
            _ = try await ben.next { $0.isTyping }
            try await ana.send(.typingStop(conversationId: chat))
            let (stop, _) = try await ben.next { $0.isTyping }
            #expect(stop.event == .typing(TypingIndicator(conversationId: chat, userId: fixture.ana.user.id, isTyping: false)))
            await ana.close()
            await ben.close()
        }
    }

    @Test func typingEndsByItselfFiveSecondsAfterTheLastTypingStart() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let group = try await fixture.rest(fixture.ana).createGroup(title: "Trip", memberIds: [fixture.ben.user.id]).id
            let ana = try await fixture.connect(fixture.ana)
            let ben = try await fixture.connect(fixture.ben)
            try await ana.send(.typingStart(conversationId: chat))
            _ = try await ben.next { $0.isTyping }
            await fixture.clock.advance(by: .seconds(3))
            try await ana.send(.typingStart(conversationId: chat))
            _ = try await ana.framesBeforePong()
            await fixture.clock.advance(by: .milliseconds(4_900))

            // 7.9 s after the first start but 4.9 s after the last: still typing. The group typing is the control.
            try await ana.send(.typingStart(conversationId: group))
            let (control, _) = try await ben.next { $0.isTyping }
            #expect(control.event == .typing(TypingIndicator(conversationId: group, userId: fixture.ana.user.id, isTyping: true)))

            await fixture.clock.advance(by: .milliseconds(100))
            let (stop, _) = try await ben.next { $0.isTyping }
            #expect(stop.event == .typing(TypingIndicator(conversationId: chat, userId: fixture.ana.user.id, isTyping: false)))
            await ana.close()
            await ben.close()
        }
    }

    @Test func typingInAConversationOfOthersIsNotFound() async throws {
        try await SandboxFixture.run { fixture in
            let theirs = try await fixture.direct(fixture.ben, fixture.nora).id
            let ana = try await fixture.connect(fixture.ana)
            try await ana.send(.typingStart(conversationId: theirs), id: "t-1")
            let reply = try await ana.next()
            #expect(reply.replyTo == "t-1")
            guard case .error(let error) = reply.event else {
                Issue.record("expected an error, got \(reply)")
                return
            }
            #expect(error.code == .notFound)
            try await ana.send(SandboxFixture.text("hi", in: theirs), id: "s-1")
            let sent = try await ana.next()
            #expect(sent.event == reply.event, "the same NOT_FOUND as every operation on a conversation of others")
            await ana.close()
        }
    }
}
