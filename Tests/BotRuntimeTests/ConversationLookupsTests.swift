import ChatterBots
import Foundation
import Testing

@testable import BotRuntime

/// The messages of a conversation the bot does not know while its look-up is tried again: held, tried again with
/// backoff or after `Retry-After`, dropped when the look-up is refused for good.
@Suite struct ConversationLookupsTests {
    private let now = Fixture.start
    private let conversation = Fixture.group
    private let unavailable = ChatterAPIError(code: .internalError, message: "Try again.", httpStatus: 500)

    private func message(_ seq: Int) -> Message { Fixture.message(Fixture.group, seq: seq) }

    @Test func aLookupThatFailedForNowHoldsItsMessagesAndIsTriedAgainAfterASecond() {
        var lookups = ConversationLookups(limit: 10)
        let (outcome, dropped) = lookups.failed(conversation, messages: [message(1)], error: unavailable, now: now)
        #expect(outcome == .retry(at: now.adding(.seconds(1))))
        #expect(dropped == 0)
        #expect(lookups.retryDue(conversation) == [message(1)])
    }

    @Test func messagesArrivingWhileTheLookupWaitsJoinIt() {
        var lookups = ConversationLookups(limit: 10)
        #expect(lookups.hold([message(1)], of: conversation) == (false, 0), "no look-up waits yet")
        _ = lookups.failed(conversation, messages: [message(1)], error: unavailable, now: now)
        #expect(lookups.hold([message(2)], of: conversation) == (true, 0))
        #expect(lookups.retryDue(conversation) == [message(1), message(2)])
        #expect(lookups.hold([message(3)], of: conversation) == (false, 0), "the retry looks it up now")
    }

    @Test func aLookupFailingAgainWaitsTwiceAsLong() {
        var lookups = ConversationLookups(limit: 10)
        _ = lookups.failed(conversation, messages: [message(1)], error: unavailable, now: now)
        let messages = lookups.retryDue(conversation)
        #expect(lookups.failed(conversation, messages: messages, error: unavailable, now: now).outcome
            == .retry(at: now.adding(.seconds(2))))
    }

    @Test func aRateLimitedLookupWaitsTheRetryAfter() {
        var lookups = ConversationLookups(limit: 10)
        let limited = ChatterAPIError(code: .rateLimited, message: "Slow down.", httpStatus: 429, retryAfter: .seconds(7))
        #expect(lookups.failed(conversation, messages: [message(1)], error: limited, now: now).outcome
            == .retry(at: now.adding(.seconds(7))))
    }

    @Test func aLookupRefusedForGoodDropsItsMessages() {
        var lookups = ConversationLookups(limit: 10)
        let notFound = ChatterAPIError(code: .notFound, message: "No such conversation.", httpStatus: 404)
        guard case .dropped = lookups.failed(conversation, messages: [message(1)], error: notFound, now: now).outcome else {
            Issue.record("a NOT_FOUND look-up was not dropped")
            return
        }
        #expect(lookups.retryDue(conversation).isEmpty)
        #expect(lookups.hold([message(2)], of: conversation) == (false, 0))
    }

    @Test func atMostTheLimitIsHeldAndTheNewestBeyondAreDropped() {
        var lookups = ConversationLookups(limit: 2)
        #expect(lookups.failed(conversation, messages: [message(1)], error: unavailable, now: now).dropped == 0)
        #expect(lookups.hold([message(2), message(3)], of: conversation) == (true, 1))
        #expect(lookups.retryDue(conversation) == [message(1), message(2)])
    }

    @Test func aLookupThatSucceededStartsItsBackoffOver() {
        var lookups = ConversationLookups(limit: 10)
        _ = lookups.failed(conversation, messages: [message(1)], error: unavailable, now: now)
        _ = lookups.retryDue(conversation)
        lookups.found(conversation)
        #expect(lookups.failed(conversation, messages: [message(2)], error: unavailable, now: now).outcome
            == .retry(at: now.adding(.seconds(1))))
    }

    @Test func aConversationKnownAnotherWayReleasesItsHeldMessagesAndIsNotLookedUpAgain() {
        var lookups = ConversationLookups(limit: 10)
        _ = lookups.failed(conversation, messages: [message(1)], error: unavailable, now: now)
        #expect(lookups.release(conversation) == [message(1)])
        #expect(lookups.retryDue(conversation).isEmpty)
        #expect(lookups.hold([message(2)], of: conversation) == (false, 0))
    }
}
