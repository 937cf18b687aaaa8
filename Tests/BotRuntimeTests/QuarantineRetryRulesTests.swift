@testable import BotRuntime
import Foundation
import Testing

/// How an operator's retry lets a bot stopped as crashing start again (`QuarantineRules.crashingReason`).
@Suite("quarantine rules: retries")
struct QuarantineRetryRulesTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)
    let rules = QuarantineRules(suspects: [], maxAttempts: 2, maxQuarantinesPerHour: 1)

    func entry(_ id: Int64, key: String, retryRequested: Bool = false) -> QuarantineEntry {
        QuarantineEntry(
            id: id, key: key, handler: key.hasPrefix("on") ? key : "onMessage", trace: "t\(id)", summary: "",
            attempts: 2, lastStartedAt: now.addingTimeInterval(-120), quarantinedAt: now.addingTimeInterval(-60),
            work: nil, retryRequested: retryRequested)
    }

    @Test func aQuarantinedOnStartStopsTheBotNamingTheIDToRetry() {
        let reason = rules.crashingReason(bot: "poison", quarantine: [entry(3, key: "onStart")], now: now)
        #expect(reason == "onStart crashed the process 2 times (last at trace t3); "
            + "fix the bot, then run `quarantine retry poison/3` and reload (or restart the process) to start it again")
    }

    @Test func aQuarantinedOnStartWhoseRetryWasAskedForLetsTheBotStart() {
        #expect(rules.crashingReason(bot: "poison", quarantine: [entry(3, key: "onStart", retryRequested: true)], now: now) == nil)
    }

    @Test func entriesWhoseRetryWasAskedForDoNotCountTowardsTooManyInAnHour() {
        let entries = [entry(1, key: "message:a"), entry(2, key: "message:b")]
        #expect(rules.crashingReason(bot: "poison", quarantine: entries, now: now) != nil)
        var retried = entries
        retried[1].retryRequested = true
        #expect(rules.crashingReason(bot: "poison", quarantine: retried, now: now) == nil)
    }
}
