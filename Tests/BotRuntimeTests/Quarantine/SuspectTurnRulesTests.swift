@testable import BotRuntime
import Foundation
import Testing

/// A crash suspect's turn alone as a value: returning clears it, a timeout starts a grace during which it keeps its
/// turn, the grace's end clears it whether or not its code returned, and a stop leaves it suspected.
@Suite("SuspectTurnRules")
struct SuspectTurnRulesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func codeThatReturnsInTimeEndsTheTurnAndPasses() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        #expect(rules.handle(.returned(cancelled: false), now: now) == [.endTurn, .pass(afterGrace: false)])
        #expect(!rules.hasTurn)
    }

    @Test func aTimeoutKeepsTheTurnAndSchedulesTheGracesEnd() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        #expect(rules.handle(.timedOut, now: now) == [.scheduleGraceEnd(now.addingTimeInterval(30))])
        #expect(rules.hasTurn)
        #expect(rules.phase == .inGrace(until: now.addingTimeInterval(30)))
    }

    @Test func codeThatReturnsDuringTheGracePassesAsIfInTime() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        _ = rules.handle(.timedOut, now: now)
        #expect(rules.handle(.returned(cancelled: true), now: now.addingTimeInterval(5)) == [.endTurn, .pass(afterGrace: false)])
        #expect(!rules.hasTurn)
    }

    @Test func theGracesEndPassesCodeThatNeverReturned() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        _ = rules.handle(.timedOut, now: now)
        #expect(rules.handle(.graceOver, now: now.addingTimeInterval(30)) == [.endTurn, .pass(afterGrace: true)])
        #expect(rules.phase == .passed)
    }

    @Test func aStopBeforeTheCodeReturnsEndsTheTurnAndLeavesTheSuspect() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        #expect(rules.handle(.stopped, now: now) == [.endTurn])
        #expect(rules.phase == .stopped)
        #expect(rules.handle(.returned(cancelled: true), now: now) == [.returnedAfterStop])
    }

    @Test func aStopDuringTheGraceLeavesTheSuspectAndItsGracesEndDoesNothing() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        _ = rules.handle(.timedOut, now: now)
        #expect(rules.handle(.stopped, now: now.addingTimeInterval(1)) == [.endTurn])
        #expect(rules.handle(.graceOver, now: now.addingTimeInterval(30)).isEmpty)
        #expect(rules.phase == .stopped)
    }

    /// Nothing is left to protect once the session stops: its drain does not wait for the grace.
    @Test func theSessionBeginningToStopEndsTheGraceAtOnceAndLeavesTheSuspect() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        _ = rules.handle(.timedOut, now: now)
        #expect(rules.handle(.stopping, now: now.addingTimeInterval(1)) == [.endTurn])
        #expect(rules.phase == .stopped)
        #expect(rules.handle(.returned(cancelled: true), now: now.addingTimeInterval(2)) == [.returnedAfterStop])
    }

    /// The drain lets code in its time finish: it keeps its turn, and passes if it returns.
    @Test func codeInItsTimeKeepsItsTurnAsTheSessionBeginsToStop() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        #expect(rules.handle(.stopping, now: now).isEmpty)
        #expect(rules.hasTurn)
        #expect(rules.handle(.returned(cancelled: false), now: now) == [.endTurn, .pass(afterGrace: false)])
    }

    @Test func aTimeoutAfterTheSessionBeganToStopStartsNoGrace() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        _ = rules.handle(.stopping, now: now)
        #expect(rules.handle(.timedOut, now: now.addingTimeInterval(30)) == [.endTurn])
        #expect(rules.phase == .stopped)
    }

    /// The stop cancels the code, which then returns: that is the stop's doing, not a pass.
    @Test func codeReturningCancelledBeforeItsTimeoutIsAStopNotAPass() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        #expect(rules.handle(.returned(cancelled: true), now: now) == [.endTurn])
        #expect(rules.phase == .stopped)
    }

    @Test func eventsAfterThePassChangeNothing() {
        var rules = SuspectTurnRules(grace: .seconds(30))
        _ = rules.handle(.returned(cancelled: false), now: now)
        for event in [SuspectTurnRules.Event.timedOut, .graceOver, .stopped, .returned(cancelled: false)] {
            #expect(rules.handle(event, now: now).isEmpty)
        }
        #expect(rules.phase == .passed)
    }

    @Test func theGraceIsAsLongAgainAsTheHandlerTimeout() {
        #expect(SuspectTurnRules.grace(after: .seconds(30)) == .seconds(30))
    }
}
