@testable import BotRuntime
import ChatterBots
import Foundation
import Testing
import TestSupport

@Suite("ReconnectPolicy")
struct ReconnectPolicyTests {
    @Test func delaysFollowTheSeedScheduleAndStayAt30Seconds() {
        var policy = ReconnectPolicy(jitter: 0)
        var random = SeededGenerator(seed: 1)
        let delays = (0..<9).map { _ in policy.nextDelay(using: &random) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test func jitterStaysWithinTwentyPercentAndUsesTheWholeRange() {
        var random = SeededGenerator(seed: 42)
        for attempt in 1...6 {
            let base = ReconnectPolicy().baseDelay(forAttempt: attempt).timeInterval
            var draws: [TimeInterval] = []
            for _ in 0..<2_000 {
                var policy = ReconnectPolicy()
                for _ in 1..<attempt { _ = policy.nextDelay(using: &random) }
                draws.append(policy.nextDelay(using: &random).timeInterval)
            }
            let low = draws.min() ?? 0, high = draws.max() ?? 0
            #expect(low >= base * 0.8 - 1e-9 && high <= base * 1.2 + 1e-9, "attempt \(attempt): \(low)...\(high)")
            #expect(low < base * 0.82 && high > base * 1.18, "attempt \(attempt) barely jitters: \(low)...\(high)")
        }
    }

    @Test func theSameSeedGivesTheSameDelays() {
        func delays(seed: UInt64) -> [Duration] {
            var policy = ReconnectPolicy()
            var random = SeededGenerator(seed: seed)
            return (0..<6).map { _ in policy.nextDelay(using: &random) }
        }
        #expect(delays(seed: 7) == delays(seed: 7))
        #expect(delays(seed: 7) != delays(seed: 8))
    }

    @Test func resetStartsTheScheduleOverAtOneSecond() {
        var policy = ReconnectPolicy(jitter: 0)
        var random = SeededGenerator(seed: 1)
        for _ in 0..<4 { _ = policy.nextDelay(using: &random) }
        policy.reset()
        #expect(policy.attempts == 0)
        #expect(policy.nextDelay(using: &random) == .seconds(1))
    }
}

@Suite("RateLimitDelay")
struct RateLimitDelayTests {
    @Test func theCloseReasonGivesTheSeconds() {
        #expect(RateLimitDelay(serverValue: "30").delay == .seconds(30))
        #expect(RateLimitDelay(serverValue: " 12.5\n").delay == .seconds(12.5))
        #expect(RateLimitDelay(serverValue: "30").unreadableValue == nil)
    }

    @Test(arguments: ["", "soon", "30s", "-5", "nan", "inf"])
    func anUnreadableReasonWaitsTheSixtySecondFallback(reason: String) {
        let delay = RateLimitDelay(serverValue: reason)
        #expect(delay.delay == .seconds(60))
        #expect(delay.unreadableValue == reason)
        #expect(delay.description.contains("not a number of seconds"))
    }

    @Test(arguments: [" 30 ", "12.5", "\n12\n", "1e99", "0x10", "soon", ""])
    func theSessionReadsA4008ReasonAsTheConnectionDoes(reason: String) {
        guard case .reconnectAfter(let delay) = CloseCodeReaction(code: 4008, reason: reason),
            case .rateLimited(let seconds) = RealtimeCloseReason(code: 4008, reason: reason)
        else {
            Issue.record("4008 is not a rate limit")
            return
        }
        #expect((delay.unreadableValue == nil) == (seconds != nil), "one parser: readable for both or for neither")
    }

    /// A `sync.request` answered with a `RATE_LIMITED` error frame waits what the frame asks, as a 429 does.
    @Test func aRateLimitedAnswerAsksItsWaitOverRESTOrInAnErrorFrame() {
        let frame = ChatterAPIError(code: .rateLimited, message: "slow down", details: ["retryAfter": 45])
        #expect(RateLimitDelay.asked(by: RealtimeError.api(frame)) == .seconds(45))
        #expect(RateLimitDelay.asked(by: ChatterAPIError(code: .rateLimited, message: "", retryAfter: .seconds(7))) == .seconds(7))
        #expect(RateLimitDelay.asked(by: RealtimeError.api(ChatterAPIError(code: .rateLimited, message: ""))) == .seconds(60))
        #expect(RateLimitDelay.asked(by: RealtimeError.api(ChatterAPIError(code: .internalError, message: ""))) == nil)
        #expect(RateLimitDelay.asked(by: CancellationError()) == nil)
    }

    @Test func delaysAreClampedToOneSecondAndOneDay() {
        #expect(RateLimitDelay(serverValue: "0").delay == .seconds(1))
        #expect(RateLimitDelay(serverValue: "1e12").delay == .seconds(86_400))
        #expect(RateLimitDelay(delay: .milliseconds(10)).delay == .seconds(1))
    }
}
