@testable import BotRuntime
import Foundation
import Testing

/// A session that reaches `session.ready` and then fails its synchronization every time: it must back off more
/// and more (the reconnect backoff resets at every ready, so it cannot be that one), and obey `Retry-After`.
@Suite("SessionLifecycle: failed synchronizations")
struct SessionLifecycleSyncFailureTests {
    /// Connects generation `connection` up to ready; returns the reconnect instant of the sync failure.
    private func failSync(_ session: inout LifecycleHarness, _ connection: UInt64, retryAfter: Duration? = nil) -> Date? {
        _ = session.handle(.connected(generation: connection))
        _ = session.handle(.ready(generation: connection))
        let actions = session.handle(.syncFailed(generation: connection, retryAfter: retryAfter))
        _ = session.handle(.closed(generation: connection, code: 1006, reason: ""))
        for case .scheduleReconnect(let date, .dropped(.syncFailed)) in actions { return date }
        Issue.record("no reconnect planned: \(actions)")
        return nil
    }

    @Test func repeatedSyncFailuresBackOffFurtherDespiteEachReady() throws {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        var connection: UInt64 = 2
        var waits: [TimeInterval] = []
        for _ in 0..<4 {
            let start = session.now
            let reconnect = try #require(failSync(&session, connection))
            waits.append(reconnect.timeIntervalSince(start))
            #expect(session.fireTimer() == [.connect(generation: connection + 1)])
            connection += 1
        }
        #expect(waits == [1, 2, 4, 8])
    }

    @Test func aSuccessfulSyncResetsTheSyncBackoff() throws {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        _ = try #require(failSync(&session, 2))
        _ = session.fireTimer()
        _ = try #require(failSync(&session, 3))
        _ = session.fireTimer()
        _ = session.openAndSync(4)
        _ = session.handle(.closed(generation: 4, code: 1006, reason: ""))
        _ = session.fireTimer()
        let start = session.now
        let reconnect = try #require(failSync(&session, 5))
        #expect(reconnect.timeIntervalSince(start) == 1)
    }

    @Test func aRateLimitedSyncWaitsForRetryAfter() throws {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        let start = session.now
        let reconnect = try #require(failSync(&session, 2, retryAfter: .seconds(42)))
        #expect(reconnect.timeIntervalSince(start) == 42)
        session.now = session.at(41)
        #expect(session.handle(.timerFired) == [])
        #expect(session.fireTimer() == [.connect(generation: 3)])
    }
}
