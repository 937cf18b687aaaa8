import ChatterBots
import Foundation
import Testing

@testable import ChatterSandbox

@Suite("Typing: reported on change, ends 5 s after the last typing.start")
struct TypingTrackerTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let ana: User.ID = "01JBANA0000000000000000000"
    let chat: Conversation.ID = "01JECHAT000000000000000000"
    let other: Conversation.ID = "01JEOTHER00000000000000000"

    @Test func startIsReportedOnceAndRepeatedStartsOnlyProlong() {
        var typing = TypingTracker(timeout: .seconds(5))
        #expect(typing.start(ana, in: chat, at: t0) == TypingIndicator(conversationId: chat, userId: ana, isTyping: true))
        #expect(typing.start(ana, in: chat, at: t0.addingTimeInterval(3)) == nil)
        #expect(typing.nextDeadline == t0.addingTimeInterval(8))
    }

    @Test func typingEndsByItselfFiveSecondsAfterTheLastStart() {
        var typing = TypingTracker(timeout: .seconds(5))
        _ = typing.start(ana, in: chat, at: t0)
        _ = typing.start(ana, in: chat, at: t0.addingTimeInterval(3))
        #expect(typing.expire(at: t0.addingTimeInterval(7.999)).isEmpty)
        #expect(typing.expire(at: t0.addingTimeInterval(8)) == [TypingIndicator(conversationId: chat, userId: ana, isTyping: false)])
        #expect(!typing.isTyping(ana, in: chat))
        #expect(typing.nextDeadline == nil)
    }

    @Test func stopEndsTypingAndIsReportedOnlyWhenTyping() {
        var typing = TypingTracker()
        #expect(typing.stop(ana, in: chat) == nil)
        _ = typing.start(ana, in: chat, at: t0)
        #expect(typing.stop(ana, in: chat) == TypingIndicator(conversationId: chat, userId: ana, isTyping: false))
        #expect(typing.expire(at: t0.addingTimeInterval(60)).isEmpty)
    }

    @Test func conversationsAreIndependent() {
        var typing = TypingTracker(timeout: .seconds(5))
        _ = typing.start(ana, in: chat, at: t0)
        #expect(typing.start(ana, in: other, at: t0.addingTimeInterval(2)) != nil)
        #expect(typing.expire(at: t0.addingTimeInterval(5)).map(\.conversationId) == [chat])
        #expect(typing.isTyping(ana, in: other))
    }
}
