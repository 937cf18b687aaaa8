@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// How the outbox reacts to a transient `error` reply to `message.send`.
@Suite struct OutboxRetryTests {
    @Test func aRateLimitedReplyPausesEverySendForItsRetryHint() {
        let error = ChatterErrorBody(code: .rateLimited, message: "slow down", details: ["retryAfter": 7])
        let retry = OutboxStateMachine.retry(after: error, failures: 1)
        #expect(retry.pauseAllSends == .seconds(7))
        #expect(retry.delay == .seconds(7))
    }

    @Test func aRateLimitedReplyWithoutAHintPausesEverySendForTheBackoff() {
        let error = ChatterErrorBody(code: .rateLimited, message: "slow down")
        #expect(OutboxStateMachine.retry(after: error, failures: 3).pauseAllSends == .seconds(4))
    }

    @Test func anUnreadableHintIsClampedNotTrusted() {
        let huge = ChatterErrorBody(code: .rateLimited, message: "", details: ["retryAfter": 1e300])
        #expect(OutboxStateMachine.retry(after: huge, failures: 1).pauseAllSends == RateLimitDelay.maximum)
        let negative = ChatterErrorBody(code: .rateLimited, message: "", details: ["retryAfter": -5])
        #expect(OutboxStateMachine.retry(after: negative, failures: 1).pauseAllSends == RateLimitDelay.minimum)
    }

    @Test func anInternalErrorHoldsOnlyItsEntry() {
        let error = ChatterErrorBody(code: .internalError, message: "oops")
        let retry = OutboxStateMachine.retry(after: error, failures: 2)
        #expect(retry.pauseAllSends == nil)
        #expect(retry.delay == .seconds(2))
    }
}
