@testable import BotRuntime
@testable import ChatterBotsCLI
import Testing

@Suite("ChatConnectionKeeper")
struct ChatConnectionKeeperTests {
    @Test func aStopTheClientAskedForIsNoError() {
        #expect(ChatConnectionKeeper.error(for: .requested, username: "alice") == nil)
    }

    @Test func refusedCredentialsNameTheUsernameToCheck() {
        let error = ChatConnectionKeeper.error(for: .invalidCredentials, username: "alice")
        guard case .invalidCredentials(let username)? = error else {
            Issue.record("expected invalidCredentials, got \(String(describing: error))")
            return
        }
        #expect(username == "alice")
    }

    @Test func aRevokedSessionSaysTheUserWasSignedOutAndHowToSignInAgain() {
        let error = ChatConnectionKeeper.error(for: .sessionRevoked(failure: nil), username: "alice")
        guard case .signedOut(let username)? = error else {
            Issue.record("expected signedOut, got \(String(describing: error))")
            return
        }
        #expect(username == "alice")
        #expect(error?.description.contains("sign in again to go on") == true)
    }

    @Test func aFailedFreshSignInAfterARevocationSaysWhyItFailed() {
        let error = ChatConnectionKeeper.error(for: .sessionRevoked(failure: .invalidCredentials), username: "alice")
        #expect(error?.description.contains("INVALID_CREDENTIALS") == true)
    }
}
