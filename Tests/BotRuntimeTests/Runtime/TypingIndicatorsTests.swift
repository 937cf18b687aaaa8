@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Typing repeats are deadlines on the session's one timer: due every 3 s while shown, gone once hidden.
@Suite("TypingIndicators")
struct TypingIndicatorsTests {
    let clock = ManualClock()
    let conversation = Conversation.ID(rawValue: "01KDVDNA02V7Y0YYWZX2K82PEX")

    func indicators() -> (TypingIndicators, DeadlineScheduler<SessionDeadline>) {
        let timers = DeadlineScheduler<SessionDeadline>(clock: clock, executor: nil)
        return (TypingIndicators(clock: clock, timers: timers), timers)
    }

    @Test func showingTypingSchedulesItsRepeatThreeSecondsLater() {
        let (typing, timers) = indicators()
        typing.show(in: conversation, owner: ObjectIdentifier(TypingIndicatorsTests.self))
        #expect(typing.isShown(in: conversation))
        #expect(timers.deadline(of: .typing(conversation)) == clock.now.addingTimeInterval(3))
        timers.stop()
    }

    @Test func hidingTypingDropsItsRepeat() {
        let (typing, timers) = indicators()
        typing.show(in: conversation, owner: ObjectIdentifier(TypingIndicatorsTests.self))
        typing.hide(in: conversation)
        #expect(!typing.isShown(in: conversation))
        #expect(timers.deadline(of: .typing(conversation)) == nil)
        timers.stop()
    }

    @Test func theRepeatComesBackEveryThreeSecondsWhileShown() async throws {
        let (typing, timers) = indicators()
        typing.show(in: conversation, owner: ObjectIdentifier(TypingIndicatorsTests.self))
        let start = clock.now
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(3))
        #expect(timers.deadline(of: .typing(conversation)) == start.addingTimeInterval(6))
        typing.hideAll(of: ObjectIdentifier(TypingIndicatorsTests.self))
        #expect(timers.deadline(of: .typing(conversation)) == nil)
        timers.stop()
    }
}
