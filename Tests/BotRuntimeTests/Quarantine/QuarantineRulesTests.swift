@testable import BotRuntime
import Foundation
import Testing

/// The quarantine's rules as a value: suspects run alone until they pass or reach the limit, and a bot whose work
/// keeps crashing the process stops as crashing.
@Suite("QuarantineRules")
struct QuarantineRulesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func suspect(_ key: String, attempts: Int, handler: String = "onMessage") -> CrashSuspect {
        CrashSuspect(key: key, handler: handler, trace: "t-\(key)", summary: key, attempts: attempts, lastStartedAt: now)
    }

    func entry(_ key: String, handler: String = "onMessage", at date: Date) -> QuarantineEntry {
        QuarantineEntry(
            id: 1, key: key, handler: handler, trace: "t", summary: "", attempts: 2, lastStartedAt: date,
            quarantinedAt: date, work: nil, retryRequested: false)
    }

    @Test func workThatIsNoSuspectRunsAsUsual() {
        var rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 5)
        #expect(!rules.isOnProbation)
        #expect(rules.verdict(for: "message:1") == .run)
    }

    @Test func aSuspectBelowTheLimitRunsAloneAndKeepsTheBotOnProbation() {
        var rules = QuarantineRules(suspects: [suspect("message:1", attempts: 1)], maxAttempts: 2, maxQuarantinesPerHour: 5)
        #expect(rules.isOnProbation)
        #expect(rules.verdict(for: "message:1") == .runAsSuspect(suspect("message:1", attempts: 1)))
        #expect(rules.verdict(for: "message:2") == .run)
        #expect(rules.isOnProbation)
    }

    @Test func aSuspectAtTheLimitIsQuarantinedOnceAndPassedOverWhenItComesAgain() {
        var rules = QuarantineRules(suspects: [suspect("message:1", attempts: 2)], maxAttempts: 2, maxQuarantinesPerHour: 5)
        #expect(rules.verdict(for: "message:1") == .quarantine(suspect("message:1", attempts: 2)))
        #expect(rules.verdict(for: "message:1") == .passOver)
        #expect(!rules.isOnProbation)
    }

    @Test func workOfAStandingEntryIsPassedOverAndOtherWorkRuns() {
        var rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 5)
        rules.quarantineChanged([entry("presence-snapshot", handler: "onPresenceSnapshot", at: now)])
        #expect(rules.watchesWork)
        #expect(rules.verdict(for: "presence-snapshot") == .passOver)
        #expect(rules.verdict(for: "message:1") == .run)
    }

    @Test func entriesAskedToBeRetriedOrOfLifecycleHandlersPassNothingOver() {
        var rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 5)
        var retried = entry("friend-request:1", handler: "onFriendRequest", at: now)
        retried.retryRequested = true
        rules.quarantineChanged([retried, entry("onStart", handler: "onStart", at: now)])
        #expect(!rules.watchesWork)
        #expect(rules.verdict(for: "friend-request:1") == .run)
        #expect(rules.verdict(for: "onStart") == .run)
    }

    @Test func theLastSuspectToPassEndsTheProbation() throws {
        var rules = QuarantineRules(
            suspects: [suspect("a", attempts: 1), suspect("b", attempts: 1)], maxAttempts: 2, maxQuarantinesPerHour: 5)
        let first = rules.passed("a")
        #expect(first?.probationEnded == false)
        #expect(rules.passed("a") == nil)
        let last = rules.passed("b")
        #expect(last?.probationEnded == true)
        #expect(!rules.isOnProbation)
    }

    @Test func endingTheProbationForgetsTheSuspectsThatDidNotComeBack() {
        var rules = QuarantineRules(
            suspects: [suspect("b", attempts: 1), suspect("a", attempts: 2)], maxAttempts: 2, maxQuarantinesPerHour: 5)
        #expect(rules.endProbation() == ["a", "b"])
        #expect(!rules.isOnProbation)
        #expect(rules.verdict(for: "a") == .run)
    }

    @Test func endingTheProbationKeepsTheSuspectsWhoseCodeStillRunsUntilItReturns() {
        var rules = QuarantineRules(
            suspects: [suspect("b", attempts: 1), suspect("a", attempts: 1)], maxAttempts: 2, maxQuarantinesPerHour: 5)
        #expect(rules.endProbation(keeping: ["b"]) == ["a"])
        #expect(!rules.isOnProbation)
        #expect(rules.verdict(for: "a") == .run)
        let passed = rules.passed("b")
        #expect(passed?.suspect == suspect("b", attempts: 1))
        #expect(passed?.probationEnded == false, "it had ended already")
    }

    @Test func lifecycleSuspectsAtTheLimitAreTakenAtOnceAndOthersWait() {
        var rules = QuarantineRules(
            suspects: [
                suspect("onStart", attempts: 2, handler: "onStart"), suspect("onReady", attempts: 1, handler: "onReady"),
                suspect("message:1", attempts: 2),
            ],
            maxAttempts: 2, maxQuarantinesPerHour: 5)
        #expect(rules.takeLifecycleSuspectsAtLimit().map(\.key) == ["onStart"])
        #expect(rules.verdict(for: "onReady") == .runAsSuspect(suspect("onReady", attempts: 1, handler: "onReady")))
        #expect(rules.verdict(for: "message:1") == .quarantine(suspect("message:1", attempts: 2)))
    }

    @Test func aLifecycleHandlerInTheQuarantineMakesTheBotCrashing() throws {
        let rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 5)
        let reason = try #require(rules.crashingReason(bot: "botty", quarantine: [entry("onStart", handler: "onStart", at: now)], now: now))
        #expect(reason.contains("onStart crashed the process 2 times"))
        #expect(reason.contains("quarantine retry"))
    }

    @Test func moreQuarantinesWithinTheHourThanAllowedMakeTheBotCrashing() {
        let rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 2)
        let recent = (1...3).map { entry("message:\($0)", at: now.addingTimeInterval(-Double($0) * 60)) }
        #expect(rules.crashingReason(bot: "botty", quarantine: Array(recent.prefix(2)), now: now) == nil)
        #expect(rules.crashingReason(bot: "botty", quarantine: recent, now: now)?.contains("3 pieces of work") == true)
    }

    @Test func quarantinesOlderThanAnHourDoNotCount() {
        let rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 2)
        let old = (1...3).map { entry("message:\($0)", at: now.addingTimeInterval(-3600 - Double($0))) }
        #expect(rules.crashingReason(bot: "botty", quarantine: old, now: now) == nil)
    }
}
