import Foundation
import Synchronization
import Testing

@testable import ChatterBots

@Suite("Token store")
struct TokenStoreTests {
    @Test func staleTokenThatWasAlreadyReplacedNeedsNoRefresh() async throws {
        let calls = Mutex(0)
        let store = ChatterTokenStore(tokens: SessionTokens(accessToken: "at2", refreshToken: "rt2"))
        let tokens = try await store.refreshed(replacing: "at1") { _ in
            calls.withLock { $0 += 1 }
            return SessionTokens(accessToken: "at3", refreshToken: "rt3")
        }
        #expect(tokens == SessionTokens(accessToken: "at2", refreshToken: "rt2"))
        #expect(calls.withLock { $0 } == 0)
    }

    @Test func refreshUsesTheStoredRefreshTokenAndReportsTheNewPairBeforeReturning() async throws {
        let observed = Mutex<[SessionTokens?]>([])
        let store = ChatterTokenStore(tokens: SessionTokens(accessToken: "at1", refreshToken: "rt1")) { tokens in
            observed.withLock { $0.append(tokens) }
        }
        let tokens = try await store.refreshed(replacing: "at1") { refreshToken in
            SessionTokens(accessToken: "at-from-\(refreshToken)", refreshToken: "rt2")
        }
        #expect(tokens == SessionTokens(accessToken: "at-from-rt1", refreshToken: "rt2"))
        #expect(observed.withLock { $0 } == [tokens])
        #expect(await store.tokens == tokens)
    }

    @Test func signedOutStoreHasNothingToRefresh() async throws {
        let store = ChatterTokenStore()
        #expect(try await store.refreshed(replacing: nil) { _ in SessionTokens(accessToken: "a", refreshToken: "r") } == nil)
    }
}
