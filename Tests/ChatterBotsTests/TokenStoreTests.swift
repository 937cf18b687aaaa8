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

    /// A store holding the pair at1/rt1 that calls `reportRefusal` for each refused refresh it reports.
    private static func store(reporting reportRefusal: @escaping @Sendable () -> Void) -> ChatterTokenStore {
        ChatterTokenStore(
            tokens: SessionTokens(accessToken: "at1", refreshToken: "rt1"), onChange: { _ in },
            onRefreshRefused: reportRefusal)
    }

    private static let refused = ChatterAPIError(
        code: .invalidRefreshToken, message: "The refresh token is unknown, already used, or its device was signed out.",
        httpStatus: 401)

    @Test func aRefreshRefusedOnItsMeritsIsReportedOnceAndThrown() async throws {
        let refusals = Mutex(0)
        let store = Self.store { refusals.withLock { $0 += 1 } }
        await #expect(throws: ChatterAPIError.self) {
            try await store.refreshed(replacing: "at1") { _ in throw Self.refused }
        }
        #expect(refusals.withLock { $0 } == 1)
        #expect(await store.tokens == SessionTokens(accessToken: "at1", refreshToken: "rt1"))
    }

    @Test func aRefreshThatFailedForAnotherReasonIsNotReportedAsRefused() async throws {
        let refusals = Mutex(0)
        let store = Self.store { refusals.withLock { $0 += 1 } }
        await #expect(throws: ChatterAPIError.self) {
            try await store.refreshed(replacing: "at1") { _ in
                throw ChatterAPIError(code: .rateLimited, message: "Slow down.", httpStatus: 429, retryAfter: .seconds(5))
            }
        }
        #expect(refusals.withLock { $0 } == 0)
    }

    @Test func aRefusalOfTokensAlreadyReplacedIsNotReported() async throws {
        let refusals = Mutex(0)
        let store = Self.store { refusals.withLock { $0 += 1 } }
        await #expect(throws: ChatterAPIError.self) {
            try await store.refreshed(replacing: "at1") { _ in
                // A sign-in stored a new pair while this refresh of the old one was under way.
                await store.replace(with: SessionTokens(accessToken: "at9", refreshToken: "rt9"))
                throw Self.refused
            }
        }
        #expect(refusals.withLock { $0 } == 0)
    }
}
