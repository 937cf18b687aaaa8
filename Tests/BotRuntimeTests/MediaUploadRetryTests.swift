import ChatterBots
import Testing

@testable import BotRuntime

/// When a handler's media upload goes again after a failed try, apart from its I/O.
@Suite struct MediaUploadRetryTests {
    static let noAnswer = ChatterClientError.transport(.uploadMedia, description: "the connection closed before the response was complete")

    @Test func anUploadWithoutAnAnswerIsTriedThreeTimesInAllAfterHalfASecondThenASecond() {
        let delays = (1...3).map { MediaUploadRetry.delay(after: Self.noAnswer, attempts: $0) }
        #expect(delays == [.milliseconds(500), .seconds(1), nil])
    }

    static let answers: [any Error & Sendable] = [
        ChatterAPIError(ChatterErrorBody(code: .payloadTooLarge, message: "too big")),
        ChatterAPIError(ChatterErrorBody(code: .rateLimited, message: "slow down")),
        ChatterAPIError(ChatterErrorBody(code: .internalError, message: "oops")),
        CancellationError(),
    ]

    @Test(arguments: answers)
    func anAnswerOfTheServiceOrACancellationIsTheHandlers(error: any Error & Sendable) {
        #expect(MediaUploadRetry.delay(after: error, attempts: 1) == nil)
    }
}
