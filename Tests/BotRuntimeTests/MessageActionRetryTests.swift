import ChatterBots
import Foundation
import Testing

@testable import BotRuntime

/// What the message action performer does after a failure, apart from its I/O.
@Suite struct MessageActionRetryTests {
    static func apiError(_ code: ChatterErrorCode, retryAfter: Duration? = nil) -> ChatterAPIError {
        ChatterAPIError(ChatterErrorBody(code: code, message: "\(code.rawValue)"), retryAfter: retryAfter)
    }

    @Test func aDeletionOfAMessageAlreadyGoneIsDone() {
        #expect(MessageActionRetry.after(Self.apiError(.notFound), of: .delete, attempts: 1) == .done)
    }

    @Test func anEditOfAMessageNotFoundIsRefusedForGood() {
        guard case .refused = MessageActionRetry.after(Self.apiError(.notFound), of: .edit(body: "x"), attempts: 1) else {
            Issue.record("expected a refusal")
            return
        }
    }

    @Test func anEditOfSomeoneElsesMessageIsRefusedForGood() {
        guard case .refused(let reason) = MessageActionRetry.after(Self.apiError(.forbidden), of: .edit(body: "x"), attempts: 1)
        else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.hasPrefix("FORBIDDEN"))
    }

    @Test func aServerErrorIsRetriedAfterADelayThatDoublesUpToAMinute() {
        let delays = (1...9).map { MessageActionRetry.after(Self.apiError(.internalError), of: .addReaction("👍"), attempts: $0) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { .retry(after: .seconds($0)) })
    }

    @Test func aRateLimitWaitsAtLeastItsRetryAfter() {
        let outcome = MessageActionRetry.after(Self.apiError(.rateLimited, retryAfter: .seconds(7)), of: .delete, attempts: 1)
        #expect(outcome == .retry(after: .seconds(7)))
    }

    @Test(arguments: ["99999999999", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func aRateLimitWaitsNoLongerThanADayHoweverLongTheServerAsks(header: String) throws {
        let retryAfter = try #require(RetryAfter.delay(inHeader: header, now: Date(timeIntervalSince1970: 1_800_000_000)))
        let outcome = MessageActionRetry.after(Self.apiError(.rateLimited, retryAfter: retryAfter), of: .edit(body: "x"), attempts: 1)
        #expect(outcome == .retry(after: RateLimitDelay.maximum))
    }

    @Test func aRateLimitWithoutRetryAfterWaitsTheFallback() {
        let outcome = MessageActionRetry.after(Self.apiError(.rateLimited), of: .addReaction("👍"), attempts: 1)
        #expect(outcome == .retry(after: RateLimitDelay.fallback))
    }

    static let unreadable: [any Error & Sendable] = [
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not JSON")),
        ChatterClientError.invalidResponse(.editMessage, httpStatus: 200, field: "seq", description: "missing"),
        ChatterClientError.invalidRequest(.addReaction, description: "the path parameter 'emoji' is '.'"),
    ]

    @Test(arguments: unreadable)
    func aRequestThatCannotBeMadeOrAnAnswerThatCannotBeReadIsRefusedInsteadOfHoldingUpTheRest(error: any Error & Sendable) {
        guard case .refused = MessageActionRetry.after(error, of: .edit(body: "x"), attempts: 1) else {
            Issue.record("expected a refusal of \(error)")
            return
        }
    }

    @Test func aTransportFailureIsRetried() {
        struct ConnectionRefused: Error {}
        #expect(MessageActionRetry.after(ConnectionRefused(), of: .removeReaction("👍"), attempts: 2) == .retry(after: .seconds(2)))
        let transport = ChatterClientError.transport(.removeReaction, description: "connection refused")
        #expect(MessageActionRetry.after(transport, of: .removeReaction("👍"), attempts: 1) == .retry(after: .seconds(1)))
    }

    @Test(arguments: [ChatterErrorCode.unauthorized, .invalidRefreshToken])
    func aRejectedTokenWaitsForTheSessionToSignInAgain(code: ChatterErrorCode) {
        #expect(MessageActionRetry.after(Self.apiError(code), of: .delete, attempts: 3) == .retry(after: .seconds(4)))
    }
}

/// What the runtime checks of a message change when the handler asks for it.
@Suite struct MessageChangeInputTests {
    @Test(arguments: [MessageChange.edit(body: ""), .edit(body: String(repeating: "a", count: 4_097)), .addReaction(""), .removeReaction(""), .addReaction("."), .removeReaction("..")])
    func aChangeTheServiceWouldRefuseIsRefusedAtOnce(change: MessageChange) {
        let error = #expect(throws: ChatterAPIError.self) { try MessageSizeLimit.check(change) }
        #expect(error?.code == .validationFailed)
    }

    @Test(arguments: [MessageChange.edit(body: "fixed"), .delete, .addReaction("👍"), .removeReaction("👍")])
    func aChangeWithinTheLimitsPasses(change: MessageChange) throws {
        try MessageSizeLimit.check(change)
    }

    @Test func aCaptionOverTheBodyLimitIsRefusedBeforeTheUpload() {
        let error = #expect(throws: ChatterAPIError.self) { try MessageSizeLimit.checkCaption(String(repeating: "c", count: 4_097)) }
        #expect(error?.code == .validationFailed)
    }
}
