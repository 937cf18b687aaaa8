@testable import ChatterBotsCLI
import ChatterBots
import Foundation
import Testing

/// The person's typing, as the seed asks of a client: `typing.start` when they type and again every 3 seconds
/// while they go on, `typing.stop` when the field is cleared or the message is sent.
@Suite("ChatScreen: the person's typing")
struct ChatScreenTypingTests {
    typealias F = ChatFixtures
    static let start = Date(timeIntervalSince1970: 1_792_677_791)

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test func typingStartsOnceAndAgainEveryThreeSecondsWhileItGoesOn() {
        var screen = F.screenWithBobOpen()
        #expect(screen.handle(.personTyping(true, at: Self.at(0))).actions == [.setTyping(true, in: F.withBob)])
        #expect(screen.handle(.personTyping(true, at: Self.at(1))).actions.isEmpty)
        #expect(screen.handle(.personTyping(true, at: Self.at(2.9))).actions.isEmpty)
        #expect(screen.handle(.personTyping(true, at: Self.at(3))).actions == [.setTyping(true, in: F.withBob)])
    }

    @Test func clearingTheFieldStopsTypingOnce() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.personTyping(true, at: Self.at(0)))
        #expect(screen.handle(.personTyping(false, at: Self.at(1))).actions == [.setTyping(false, in: F.withBob)])
        #expect(screen.handle(.personTyping(false, at: Self.at(2))).actions.isEmpty)
    }

    @Test func sendingTheMessageStopsTypingBeforeItGoes() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.personTyping(true, at: Self.at(0)))
        let sent = screen.handle(.line("hello"))
        #expect(sent.actions == [
            .setTyping(false, in: F.withBob),
            .send(MessageSend(conversationId: F.withBob, clientMessageId: "cm-1", content: .text("hello"))),
        ])
    }

    @Test func openingAnotherConversationStopsTypingInTheFirst() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.personTyping(true, at: Self.at(0)))
        #expect(screen.handle(.line("/open team")).actions.first == .setTyping(false, in: F.withBob))
    }

    @Test func withoutAConnectionOrAnOpenConversationNothingIsSent() {
        var closed = F.screen()
        #expect(closed.handle(.personTyping(true, at: Self.at(0))).actions.isEmpty, "no conversation open")
        var offline = F.screenWithBobOpen()
        _ = offline.handle(.personTyping(true, at: Self.at(0)))
        _ = offline.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(offline.handle(.personTyping(false, at: Self.at(1))).actions.isEmpty, "the service ended it with the socket")
        #expect(offline.handle(.personTyping(true, at: Self.at(2))).actions.isEmpty)
    }
}
