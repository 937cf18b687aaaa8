@testable import ChatterBotsCLI
@testable import BotRuntime
import Testing

@Suite("ChatCredentialRetries")
struct ChatCredentialRetriesTests {
    @Test func aFirst4001ReconnectsAtOnceAndASecondBeforeReadyWaitsForTheBackoff() {
        var retries = ChatCredentialRetries()
        let waits = (0..<3).map { _ in retries.unauthorizedWaitsForBackoff() }
        #expect(waits == [false, true, true])
    }

    @Test func aSessionReadyMakesTheNext4001AFirstAgain() {
        var retries = ChatCredentialRetries()
        _ = retries.unauthorizedWaitsForBackoff()
        retries.ready()
        let waits = retries.unauthorizedWaitsForBackoff()
        #expect(!waits)
    }

    @Test func aSecond4003BeforeReadyStopsAndOneAfterReadySignsInAfresh() {
        var retries = ChatCredentialRetries()
        let first = retries.revokedMaySignInAfresh()
        let second = retries.revokedMaySignInAfresh()
        retries.ready()
        let afterReady = retries.revokedMaySignInAfresh()
        #expect(first && !second && afterReady)
    }
}
