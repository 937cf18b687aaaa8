@testable import BotRuntime
import Foundation
import Testing

/// The threads of the kinds' makes as a value: makes run a width at a time, a make given up is replaced within the
/// spares, a kind whose make was given up is not called again until it returns, and with no thread left a make is
/// refused.
@Suite("MakeThreadRules")
struct MakeThreadRulesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let timeout = Duration.seconds(30)

    func request(_ kind: String, bot: String = "bot", at now: Date? = nil, of rules: inout MakeThreadRules) -> MakeThreadRules.Decision {
        rules.request(kind: kind, bot: bot, timeout: timeout, now: now ?? self.now)
    }

    @Test func aMakeWithinTheWidthStartsWithItsTimeout() {
        var rules = MakeThreadRules(width: 2, spares: 2)
        guard case .start(_, let deadline) = request("echo", of: &rules) else {
            Issue.record("not started")
            return
        }
        #expect(deadline == now.addingTimeInterval(30))
        #expect(rules.threads == 1)
    }

    @Test func aMakeBeyondTheWidthWaitsUntilTheFirstRunningOneIsGivenUp() {
        var rules = MakeThreadRules(width: 1, spares: 1)
        _ = request("echo", of: &rules)
        let decision = request("echo", at: now.addingTimeInterval(10), of: &rules)
        #expect(decision == .wait(until: now.addingTimeInterval(30)))
        #expect(rules.threads == 1)
    }

    @Test func aMakeThatReturnedGivesItsThreadToTheNext() {
        var rules = MakeThreadRules(width: 1, spares: 0)
        guard case .start(let id, _) = request("echo", of: &rules) else {
            Issue.record("not started")
            return
        }
        let wasRunning = rules.returned(id, now: now).wasRunning
        #expect(wasRunning)
        guard case .start = request("echo", of: &rules) else {
            Issue.record("the next make waits")
            return
        }
        #expect(rules.threads == 1)
    }

    @Test func aMakeGivenUpWithinTheSparesIsReplacedByANewThread() {
        var rules = MakeThreadRules(width: 1, spares: 1)
        _ = request("stuck", of: &rules)
        let later = now.addingTimeInterval(30)
        guard case .start = request("echo", at: later, of: &rules) else {
            Issue.record("the make waits")
            return
        }
        #expect(rules.threads == 2)
        #expect(rules.givenUp(at: later) == 1)
    }

    @Test func aKindWhoseMakeWasGivenUpIsNotCalledAgainUntilItReturns() {
        var rules = MakeThreadRules(width: 4, spares: 4)
        guard case .start(let id, _) = request("stuck", bot: "first", of: &rules) else {
            Issue.record("not started")
            return
        }
        let later = now.addingTimeInterval(30)
        let decision = request("stuck", bot: "second", at: later, of: &rules)
        #expect(decision == .refuse(.kindStillRunning(kind: "stuck", bot: "first")))
        #expect(rules.threads == 1)

        rules.returned(id, now: later)
        guard case .start = request("stuck", bot: "second", at: later, of: &rules) else {
            Issue.record("the kind is still refused once its make returned")
            return
        }
    }

    @Test func aKindsMakeWithinItsTimeDoesNotHoldBackItsOtherBots() {
        var rules = MakeThreadRules(width: 4, spares: 4)
        _ = request("slow", bot: "first", of: &rules)
        guard case .start = request("slow", bot: "second", at: now.addingTimeInterval(29), of: &rules) else {
            Issue.record("the second bot of the kind is held back")
            return
        }
        #expect(rules.threads == 2)
    }

    @Test func makesGivenUpBeyondTheSparesTakeThreadsFromTheWidth() {
        var rules = MakeThreadRules(width: 2, spares: 0)
        _ = request("stuck", of: &rules)
        let later = now.addingTimeInterval(30)
        #expect(rules.capacity(at: later) == 1)
        _ = request("echo", at: later, of: &rules)
        let decision = request("other", at: later, of: &rules)
        #expect(decision == .wait(until: later.addingTimeInterval(30)))
    }

    @Test func withEveryThreadHeldByMakesGivenUpAMakeIsRefusedAtOnce() {
        var rules = MakeThreadRules(width: 1, spares: 1)
        _ = request("a", of: &rules)
        _ = request("b", at: now.addingTimeInterval(30), of: &rules)
        let later = now.addingTimeInterval(60)
        let decision = request("c", at: later, of: &rules)
        #expect(decision == .refuse(.noThreadLeft(givenUp: 2)))
        #expect(rules.threads == 2)
    }

    /// However many kinds hang, one after the other, the makes never hold more than the width and the spares.
    @Test func makesThatNeverReturnHoldAtMostTheWidthAndTheSpares() {
        var rules = MakeThreadRules(width: 3, spares: 2)
        for attempt in 0..<50 {
            _ = request("kind\(attempt % 7)", at: now.addingTimeInterval(Double(attempt) * 10), of: &rules)
            #expect(rules.threads <= 5)
        }
        #expect(rules.threads == 5)
    }

    /// A make of `kind` given up: started at `now`, it is past its timeout at `later`.
    func hang(_ kind: String, bot: String = "first", of rules: inout MakeThreadRules) -> MakeThreadRules.CallID? {
        guard case .start(let id, _) = request(kind, bot: bot, of: &rules) else { return nil }
        return id
    }

    @Test func aRequestHeldBackForAKindWhoseMakeHungIsReadmittedOnceThatMakeReturns() throws {
        var rules = MakeThreadRules(width: 4, spares: 4)
        let hung = try #require(hang("stuck", of: &rules))
        let later = now.addingTimeInterval(30)
        #expect(request("stuck", bot: "second", at: later, of: &rules) == .refuse(.kindStillRunning(kind: "stuck", bot: "first")))
        let heldBack = rules.holdBack(kind: "stuck")

        #expect(rules.returned(hung, now: later) == .init(wasRunning: true, readmitted: [heldBack]))
        #expect(rules.heldBack.isEmpty)
    }

    @Test func aRequestHeldBackIsNotReadmittedWhileAnotherMakeOfItsKindGivenUpStillRuns() throws {
        var rules = MakeThreadRules(width: 4, spares: 4)
        let first = try #require(hang("stuck", bot: "first", of: &rules))
        let second = try #require(hang("stuck", bot: "second", of: &rules))
        let later = now.addingTimeInterval(30)
        let heldBack = rules.holdBack(kind: "stuck")

        #expect(rules.returned(first, now: later).readmitted.isEmpty)
        #expect(rules.returned(second, now: later).readmitted == [heldBack])
    }

    @Test func aRequestHeldBackIsNotReadmittedWhenAnotherKindsMakeReturns() throws {
        var rules = MakeThreadRules(width: 4, spares: 4)
        _ = try #require(hang("stuck", of: &rules))
        let other = try #require(hang("slow", of: &rules))
        let later = now.addingTimeInterval(30)
        _ = rules.holdBack(kind: "stuck")

        #expect(rules.returned(other, now: later).readmitted.isEmpty)
    }

    @Test func aRequestHeldBackAndForgottenIsNotReadmitted() throws {
        var rules = MakeThreadRules(width: 4, spares: 4)
        let hung = try #require(hang("stuck", of: &rules))
        let heldBack = rules.holdBack(kind: "stuck")
        rules.forget(heldBack: heldBack)

        #expect(rules.returned(hung, now: now.addingTimeInterval(30)).readmitted.isEmpty)
    }
}
