@testable import BotRuntime
import Foundation
import Testing
import TestSupport
import WebSocket

/// Drives a `SessionLifecycle` the way the session actor will: events at a moving "now", a seeded generator.
struct LifecycleHarness {
    typealias Action = SessionLifecycle.Action
    var lifecycle: SessionLifecycle
    var random = SeededGenerator(seed: 1)
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    var now: Date

    /// Without jitter unless asked, so reconnect instants are exact.
    init(jitter: Double = 0) {
        lifecycle = SessionLifecycle(reconnectPolicy: ReconnectPolicy(jitter: jitter))
        now = start
    }

    var state: SessionLifecycle.State { lifecycle.state }

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    mutating func handle(_ event: SessionLifecycle.Event) -> [Action] {
        lifecycle.handle(event, now: now, random: &random)
    }

    mutating func advance(by seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }

    /// Advances to the lifecycle's deadline and reports the timer.
    mutating func fireTimer() -> [Action] {
        if let deadline = lifecycle.nextDeadline { now = max(now, deadline) }
        return handle(.timerFired)
    }

    /// Start → signed in → connected → ready → synchronized; returns the live connection's generation.
    mutating func goLive() -> UInt64 {
        _ = handle(.start(hasRefreshToken: true))
        guard case .signingIn(_, let signIn) = state else { Issue.record("not signing in: \(state)"); return 0 }
        return connectAndSync(afterSignIn: signIn)
    }

    mutating func connectAndSync(afterSignIn generation: UInt64) -> UInt64 {
        let actions = handle(.signedIn(generation: generation))
        guard case .connect(let connection)? = actions.first else { Issue.record("no connect: \(actions)"); return 0 }
        return openAndSync(connection)
    }

    /// Start → signed in → connected → ready, then the sync fails; returns the dropped connection's generation.
    mutating func failFirstSync(retryAfter: Duration? = nil) -> UInt64 {
        _ = handle(.start(hasRefreshToken: true))
        _ = handle(.signedIn(generation: 1))
        _ = handle(.connected(generation: 2))
        _ = handle(.ready(generation: 2))
        _ = handle(.syncFailed(generation: 2, retryAfter: retryAfter))
        return 2
    }

    mutating func openAndSync(_ connection: UInt64) -> UInt64 {
        _ = handle(.connected(generation: connection))
        _ = handle(.ready(generation: connection))
        _ = handle(.syncFinished(generation: connection))
        #expect(state == .live(generation: connection))
        return connection
    }
}

@Suite("SessionLifecycle: sign-in and connection")
struct SessionLifecycleConnectionTests {
    @Test func startWithAStoredRefreshTokenSignsInByRefresh() {
        var session = LifecycleHarness()
        #expect(session.handle(.start(hasRefreshToken: true)) == [.signIn(.refreshToken, generation: 1)])
        #expect(session.state == .signingIn(.refreshToken, generation: 1))
    }

    @Test func startWithoutARefreshTokenLogsInWithThePassword() {
        var session = LifecycleHarness()
        #expect(session.handle(.start(hasRefreshToken: false)) == [.signIn(.freshLogin, generation: 1)])
    }

    @Test func signingInOpensOneConnectionBoundedByTheConnectTimeout() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        #expect(session.handle(.signedIn(generation: 1)) == [.connect(generation: 2)])
        #expect(session.state == .connecting(generation: 2, deadline: session.at(15)))
        #expect(session.lifecycle.nextDeadline == session.at(15))
    }

    @Test func readyStartsSynchronizationAndSyncFinishedGoesLive() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        #expect(session.handle(.connected(generation: 2)) == [])
        #expect(session.state == .awaitingReady(generation: 2, deadline: session.at(10)))
        #expect(session.handle(.ready(generation: 2)) == [.synchronize(generation: 2)])
        #expect(session.state == .synchronizing(generation: 2))
        #expect(session.handle(.syncFinished(generation: 2)) == [])
        #expect(session.state == .live(generation: 2))
        #expect(session.lifecycle.nextDeadline == nil)
    }

    @Test func aRefusedRefreshFallsBackToAPasswordLogin() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        #expect(session.handle(.signInFailed(generation: 1, .invalidRefreshToken)) == [.signIn(.freshLogin, generation: 2)])
    }

    @Test func wrongCredentialsOnLoginStopTheBotWithAConfigurationError() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: false))
        #expect(session.handle(.signInFailed(generation: 1, .invalidCredentials)) == [.stop(.invalidCredentials)])
        #expect(session.state == .stopped(.invalidCredentials))
        #expect(SessionStopReason.invalidCredentials.isConfigurationError)
        #expect(SessionStopReason.invalidCredentials.message.contains("check the bot's username and password"))
    }

    /// A shard signing in to the sandbox another shard embeds may come before that shard made the account.
    @Test func wrongCredentialsOnLoginAreRetriedWithBackoffWhenTheAccountMayAppear() {
        var session = LifecycleHarness()
        session.lifecycle = SessionLifecycle(
            reconnectPolicy: ReconnectPolicy(jitter: 0), connectTimeout: .seconds(15), readyTimeout: .seconds(10),
            accountMayAppear: true)
        _ = session.handle(.start(hasRefreshToken: false))
        #expect(session.handle(.signInFailed(generation: 1, .invalidCredentials))
            == [.scheduleReconnect(at: session.at(1), .signInFailed(.invalidCredentials))])
        #expect(session.fireTimer() == [.signIn(.freshLogin, generation: 2)])
    }

    @Test func anUnreachableServerRetriesTheSameSignInWithBackoff() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        let failure = SignInFailure.unavailable("connection refused")
        #expect(session.handle(.signInFailed(generation: 1, failure))
            == [.scheduleReconnect(at: session.at(1), .signInFailed(failure))])
        #expect(session.state == .waitingToReconnect(until: session.at(1), then: .signIn(.refreshToken)))
        #expect(session.fireTimer() == [.signIn(.refreshToken, generation: 2)])
        #expect(session.handle(.signInFailed(generation: 2, failure))
            == [.scheduleReconnect(at: session.at(3), .signInFailed(failure))])
    }

    @Test func aRateLimitedSignInWaitsAsLongAsTheServerSays() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: false))
        let failure = SignInFailure.rateLimited(RateLimitDelay(serverValue: "45"))
        #expect(session.handle(.signInFailed(generation: 1, failure))
            == [.scheduleReconnect(at: session.at(45), .signInFailed(failure))])
        #expect(session.fireTimer() == [.signIn(.freshLogin, generation: 2)])
    }

    @Test func anInvalidClientKeyAtSignInStopsTheBot() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        #expect(session.handle(.signInFailed(generation: 1, .invalidClientKey)) == [.stop(.clientKeyInvalid)])
    }

    @Test func anotherRefusalOfTheLoginStopsWithTheServersCode() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: false))
        let refusal = SignInFailure.rejected(code: "VALIDATION_FAILED", message: "username is too long")
        #expect(session.handle(.signInFailed(generation: 1, refusal))
            == [.stop(.signInRejected(code: "VALIDATION_FAILED", message: "username is too long"))])
    }

    @Test func aConnectionThatDoesNotOpenInTimeIsAbandonedAndRetried() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        session.now = session.at(15)
        #expect(session.handle(.timerFired) == [
            .closeConnection(generation: 2, .connectTimedOut),
            .scheduleReconnect(at: session.at(16), .dropped(.connectTimedOut)),
        ])
    }

    /// The connect timeout is the one bound of a connect: the socket's own, in real time, never end one first.
    @Test func theSocketsOwnConnectTimeoutsAreRaisedToTheSessions() {
        let lifecycle = SessionLifecycle(connectTimeout: .seconds(15))
        let shorter = lifecycle.socketConfiguration(
            from: WebSocketClientConfiguration(connectTimeout: .seconds(10), handshakeTimeout: .seconds(5)))
        #expect(shorter.connectTimeout == .seconds(15))
        #expect(shorter.handshakeTimeout == .seconds(15))
        let longer = lifecycle.socketConfiguration(
            from: WebSocketClientConfiguration(connectTimeout: .seconds(120), handshakeTimeout: .seconds(90)))
        #expect(longer.connectTimeout == .seconds(120))
        #expect(longer.handshakeTimeout == .seconds(90))
    }

    @Test func readinessIsAwaitedForTenSecondsThenTheConnectionIsDroppedAndRetried() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        session.advance(by: 1)
        _ = session.handle(.connected(generation: 2))
        session.now = session.at(10.9)
        #expect(session.handle(.timerFired) == [])
        session.now = session.at(11)
        #expect(session.handle(.timerFired) == [
            .closeConnection(generation: 2, .readyTimedOut),
            .scheduleReconnect(at: session.at(12), .dropped(.readyTimedOut)),
        ])
        #expect(session.handle(.closed(generation: 2, code: 1006, reason: "")) == [])
        #expect(session.state == .waitingToReconnect(until: session.at(12), then: .connect))
        #expect(session.fireTimer() == [.connect(generation: 3)])
    }

    @Test func aFailedSynchronizationDropsTheConnectionAndRetries() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        _ = session.handle(.connected(generation: 2))
        _ = session.handle(.ready(generation: 2))
        #expect(session.handle(.syncFailed(generation: 2)) == [
            .closeConnection(generation: 2, .syncFailed),
            .scheduleReconnect(at: session.at(1), .dropped(.syncFailed)),
        ])
    }

    @Test func aServiceCloseCodeThatArrivesAfterTheSyncFailedDecidesTheReconnect() {
        var session = LifecycleHarness()
        let dropped = session.failFirstSync()
        #expect(session.handle(.closed(generation: dropped, code: 4008, reason: "45"))
            == [.scheduleReconnect(at: session.at(45), .closed(code: 4008, reason: "45"))])
        session.now = session.at(1)
        #expect(session.handle(.timerFired) == [])
    }

    @Test func aRateLimitCloseAfterALongerRetryAfterWaitsForTheLonger() {
        var session = LifecycleHarness()
        let dropped = session.failFirstSync(retryAfter: .seconds(120))
        #expect(session.handle(.closed(generation: dropped, code: 4008, reason: "30"))
            == [.scheduleReconnect(at: session.at(120), .closed(code: 4008, reason: "30"))])
    }

    @Test func anOrdinaryCloseAfterADropKeepsTheDropsReconnect() {
        var session = LifecycleHarness()
        let dropped = session.failFirstSync()
        #expect(session.handle(.closed(generation: dropped, code: 1000, reason: "")) == [])
        session.now = session.at(1)
        #expect(session.handle(.timerFired) == [.connect(generation: dropped + 1)])
    }

    @Test func aTimerBeforeItsDeadlineChangesNothing() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        _ = session.handle(.signedIn(generation: 1))
        session.now = session.at(14)
        #expect(session.handle(.timerFired) == [])
        #expect(session.state == .connecting(generation: 2, deadline: session.at(15)))
    }
}

@Suite("SessionLifecycle: close codes")
struct SessionLifecycleCloseCodeTests {
    @Test func aNormalCloseByTheServerReconnectsWithBackoffBecauseABotStaysOnline() {
        var session = LifecycleHarness(jitter: 0.2)
        let live = session.goLive()
        let actions = session.handle(.closed(generation: live, code: 1000, reason: "bye"))
        guard case .scheduleReconnect(let at, let reason)? = actions.first, actions.count == 1 else {
            Issue.record("expected one scheduleReconnect, got \(actions)")
            return
        }
        #expect(at >= session.at(0.8) && at <= session.at(1.2))
        #expect(reason == .closed(code: 1000, reason: "bye"))
        #expect(reason.description.contains("stays online"))
        #expect(session.fireTimer() == [.connect(generation: live + 1)])
    }

    @Test(arguments: [UInt16(1001), 1006, 1011, 1009, 4000, 4999])
    func otherCloseCodesReconnectWithBackoff(code: UInt16) {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.closed(generation: live, code: code, reason: ""))
            == [.scheduleReconnect(at: session.at(1), .closed(code: code, reason: ""))])
        #expect(session.state == .waitingToReconnect(until: session.at(1), then: .connect))
        #expect(session.fireTimer() == [.connect(generation: live + 1)])
    }

    @Test func repeatedFailuresBackOff1248163030Seconds() {
        var session = LifecycleHarness()
        var connection = session.goLive()
        var waits: [TimeInterval] = []
        for _ in 0..<7 {
            let closedAt = session.now
            let actions = session.handle(.closed(generation: connection, code: 1006, reason: ""))
            guard case .scheduleReconnect(let at, _)? = actions.first else { Issue.record("\(actions)"); return }
            waits.append(at.timeIntervalSince(closedAt))
            guard case .connect(let next)? = session.fireTimer().first else { Issue.record("no connect"); return }
            connection = next
        }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30])
    }

    @Test func theBackoffStartsOverAfterSessionReady() {
        var session = LifecycleHarness()
        let live = session.goLive()
        for code: UInt16 in [1006, 1006, 1006] {
            _ = session.handle(.closed(generation: session.lifecycle.connectionGeneration ?? live, code: code, reason: ""))
            _ = session.fireTimer()
        }
        #expect(session.lifecycle.reconnectPolicy.attempts == 3)
        guard let connection = session.lifecycle.connectionGeneration else { Issue.record("not connecting"); return }
        _ = session.openAndSync(connection)
        #expect(session.lifecycle.reconnectPolicy.attempts == 0)
        let closedAt = session.now
        #expect(session.handle(.closed(generation: connection, code: 1006, reason: ""))
            == [.scheduleReconnect(at: closedAt.addingTimeInterval(1), .closed(code: 1006, reason: ""))])
    }

    @Test func anExpiredTokenRefreshesThenReconnectsAtOnce() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.closed(generation: live, code: 4001, reason: "token expired"))
            == [.scheduleReconnect(at: session.now, .closed(code: 4001, reason: "token expired"))])
        #expect(session.state == .waitingToReconnect(until: session.now, then: .signIn(.refreshToken)))
        #expect(session.handle(.timerFired) == [.signIn(.refreshToken, generation: live + 1)])
        #expect(session.handle(.signedIn(generation: live + 1)) == [.connect(generation: live + 2)])
    }

    /// The actor admits every attempt that leaves `.waitingToReconnect` through its startup gate, so a server that
    /// closes all its bots at once (a key rotation: 4001; a mass logout: 4003) gets them back at the gate's pace.
    @Test(arguments: [UInt16(1001), 1006, 4001, 4003, 4008])
    func everyAttemptAfterACloseStartsFromAWait(code: UInt16) {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: code, reason: "5"))
        guard case .waitingToReconnect = session.state else {
            Issue.record("\(code) left the session \(session.state), not waiting for its next attempt")
            return
        }
    }


    @Test func aRefusedRefreshAfter4001LogsInAndWrongCredentialsThenStop() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: 4001, reason: ""))
        _ = session.fireTimer()
        #expect(session.handle(.signInFailed(generation: live + 1, .invalidRefreshToken))
            == [.signIn(.freshLogin, generation: live + 2)])
        #expect(session.handle(.signInFailed(generation: live + 2, .invalidCredentials)) == [.stop(.invalidCredentials)])
    }

    @Test func a4001AgainBeforeReadyRefreshesOnlyAfterBackoff() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: 4001, reason: ""))
        _ = session.fireTimer()
        _ = session.handle(.signedIn(generation: live + 1))
        _ = session.handle(.connected(generation: live + 2))
        #expect(session.handle(.closed(generation: live + 2, code: 4001, reason: ""))
            == [.scheduleReconnect(at: session.at(1), .unauthorizedAgain)])
        #expect(session.fireTimer() == [.signIn(.refreshToken, generation: live + 3)])
    }

    @Test func tokensRefusedOverRESTCloseTheOpenConnectionAndLogInAtOnce() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.refreshRefused) == [
            .closeConnection(generation: live, .refreshRefused),
            .scheduleReconnect(at: session.now, .dropped(.refreshRefused)),
        ])
        #expect(session.handle(.closed(generation: live, code: 1000, reason: "")) == [])
        #expect(session.state == .waitingToReconnect(until: session.now, then: .signIn(.freshLogin)))
        #expect(session.handle(.timerFired) == [.signIn(.freshLogin, generation: live + 1)])
        #expect(session.handle(.signedIn(generation: live + 1)) == [.connect(generation: live + 2)])
    }

    @Test func tokensRefusedAgainBeforeReadySignInOnlyAfterBackoff() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.refreshRefused)
        _ = session.handle(.closed(generation: live, code: 1000, reason: ""))
        _ = session.fireTimer()
        _ = session.handle(.signedIn(generation: live + 1))
        _ = session.handle(.connected(generation: live + 2))
        #expect(session.handle(.refreshRefused) == [
            .closeConnection(generation: live + 2, .refreshRefused),
            .scheduleReconnect(at: session.at(1), .dropped(.refreshRefused)),
        ])
    }

    @Test func tokensRefusedWithoutAnOpenConnectionChangeNothing() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        #expect(session.handle(.refreshRefused) == [])
        #expect(session.state == .signingIn(.refreshToken, generation: 1))
        _ = session.handle(.signedIn(generation: 1))
        #expect(session.handle(.refreshRefused) == [])
        #expect(session.lifecycle.connectionGeneration == 2, "the connection being opened is kept")
    }

    @Test func anInvalidClientKeyStopsTheBotWithAConfigurationError() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.closed(generation: live, code: 4002, reason: "")) == [.stop(.clientKeyInvalid)])
        #expect(session.state == .stopped(.clientKeyInvalid))
        #expect(session.lifecycle.nextDeadline == nil)
        #expect(SessionStopReason.clientKeyInvalid.message.hasPrefix("configuration error: check the client key"))
    }

    @Test func aRevokedSessionClearsSessionDataAndSignsInAfresh() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.closed(generation: live, code: 4003, reason: "logged out"))
            == [.clearSessionData, .scheduleReconnect(at: session.now, .closed(code: 4003, reason: "logged out"))])
        #expect(session.fireTimer() == [.signIn(.freshLogin, generation: live + 1)])
        let next = session.connectAndSync(afterSignIn: live + 1)
        #expect(session.state == .live(generation: next))
    }

    @Test func aSessionThatDoesNotSignInAgainClearsItsDataAndStopsWhenRevoked() {
        var session = LifecycleHarness()
        session.lifecycle = SessionLifecycle(
            reconnectPolicy: ReconnectPolicy(jitter: 0), connectTimeout: .seconds(15), readyTimeout: .seconds(10),
            accountMayAppear: false, signsInAgainWhenRevoked: false)
        let live = session.goLive()
        #expect(session.handle(.closed(generation: live, code: 4003, reason: "logged out"))
            == [.clearSessionData, .stop(.sessionRevoked(failure: nil))])
        #expect(session.state == .stopped(.sessionRevoked(failure: nil)))
    }

    @Test func aRevokedSessionWhoseFreshSignInFailsStopsTheBot() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: 4003, reason: ""))
        _ = session.fireTimer()
        #expect(session.handle(.signInFailed(generation: live + 1, .invalidCredentials))
            == [.stop(.sessionRevoked(failure: .invalidCredentials))])
        #expect(SessionStopReason.sessionRevoked(failure: .invalidCredentials).message.contains("4003"))
    }

    @Test func aRevokedSessionRevokedAgainBeforeReadyStopsTheBot() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: 4003, reason: ""))
        _ = session.fireTimer()
        _ = session.handle(.signedIn(generation: live + 1))
        #expect(session.handle(.closed(generation: live + 2, code: 4003, reason: ""))
            == [.stop(.sessionRevoked(failure: nil))])
    }

    @Test func aSecondRevocationLongAfterARecoveryIsRecoveredAgain() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: 4003, reason: ""))
        _ = session.fireTimer()
        let next = session.connectAndSync(afterSignIn: live + 1)
        #expect(session.handle(.closed(generation: next, code: 4003, reason: ""))
            == [.clearSessionData, .scheduleReconnect(at: session.now, .closed(code: 4003, reason: ""))])
        #expect(session.fireTimer() == [.signIn(.freshLogin, generation: next + 1)])
    }

    @Test func rateLimitingWaitsTheSecondsOfTheCloseReason() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.closed(generation: live, code: 4008, reason: "30"))
            == [.scheduleReconnect(at: session.at(30), .closed(code: 4008, reason: "30"))])
        session.now = session.at(29.9)
        #expect(session.handle(.timerFired) == [])
        session.now = session.at(30)
        #expect(session.handle(.timerFired) == [.connect(generation: live + 1)])
    }

    @Test func rateLimitingWithAnUnreadableReasonWaitsSixtySeconds() {
        var session = LifecycleHarness()
        let live = session.goLive()
        let actions = session.handle(.closed(generation: live, code: 4008, reason: "slow down"))
        #expect(actions == [.scheduleReconnect(at: session.at(60), .closed(code: 4008, reason: "slow down"))])
        if case .scheduleReconnect(_, let reason)? = actions.first {
            #expect(reason.description.contains("not a number of seconds"))
        }
    }

    @Test func everyCloseCodeMapsToTheSeedsReaction() {
        #expect(CloseCodeReaction(code: 1000, reason: "") == .reconnectWithBackoff)
        #expect(CloseCodeReaction(code: 1001, reason: "") == .reconnectWithBackoff)
        #expect(CloseCodeReaction(code: 1006, reason: "") == .reconnectWithBackoff)
        #expect(CloseCodeReaction(code: 4001, reason: "") == .refreshTokenThenReconnect)
        #expect(CloseCodeReaction(code: 4002, reason: "") == .stop(.clientKeyInvalid))
        #expect(CloseCodeReaction(code: 4003, reason: "") == .clearSessionAndSignInAfresh)
        #expect(CloseCodeReaction(code: 4008, reason: "12") == .reconnectAfter(RateLimitDelay(serverValue: "12")))
    }
}

@Suite("SessionLifecycle: one connection, stale events, stopping")
struct SessionLifecycleSafetyTests {
    @Test func aDeadHeartbeatClosesTheConnectionAndReconnectsOnlyAfterItsClose() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.heartbeatDead(generation: live)) == [
            .closeConnection(generation: live, .heartbeatDead),
            .scheduleReconnect(at: session.at(1), .dropped(.heartbeatDead)),
        ])
        // The backoff has passed but the old socket has not reported its close yet: no second connection.
        session.now = session.at(5)
        #expect(session.handle(.timerFired) == [])
        #expect(session.lifecycle.connectionGeneration == live)
        // Its close comes after the backoff: the next attempt still leaves from a wait, for the actor to admit it.
        #expect(session.handle(.closed(generation: live, code: 1006, reason: "")) == [])
        #expect(session.state == .waitingToReconnect(until: session.at(1), then: .connect))
        #expect(session.handle(.timerFired) == [.connect(generation: live + 1)])
    }

    @Test func eventsOfAnEarlierConnectionAreIgnored() {
        var session = LifecycleHarness()
        let old = session.goLive()
        _ = session.handle(.closed(generation: old, code: 1006, reason: ""))
        guard case .connect(let current)? = session.fireTimer().first else { Issue.record("no connect"); return }
        _ = session.handle(.connected(generation: current))
        for stale: SessionLifecycle.Event in [
            .ready(generation: old), .syncFinished(generation: old), .heartbeatDead(generation: old),
            .closed(generation: old, code: 4002, reason: ""), .closed(generation: old, code: 1006, reason: ""),
            .connected(generation: old), .signedIn(generation: 1), .signInFailed(generation: 1, .invalidCredentials),
        ] {
            #expect(session.handle(stale) == [], "\(stale) was not ignored")
        }
        #expect(session.state == .awaitingReady(generation: current, deadline: session.now.addingTimeInterval(10)))
    }

    @Test func eventsTheStateDoesNotExpectAreIgnored() {
        var session = LifecycleHarness()
        _ = session.handle(.start(hasRefreshToken: true))
        #expect(session.handle(.start(hasRefreshToken: false)) == [])
        _ = session.handle(.signedIn(generation: 1))
        #expect(session.handle(.syncFinished(generation: 2)) == [])
        #expect(session.handle(.heartbeatDead(generation: 2)) == [])
        #expect(session.state == .connecting(generation: 2, deadline: session.at(15)))
    }

    @Test func stoppingALiveSessionClosesItsConnectionGracefully() {
        var session = LifecycleHarness()
        let live = session.goLive()
        #expect(session.handle(.stopRequested) == [.closeConnection(generation: live, .stopping), .stop(.requested)])
    }

    @Test func stoppingWhileWaitingToReconnectOnlyStops() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.closed(generation: live, code: 1006, reason: ""))
        #expect(session.handle(.stopRequested) == [.stop(.requested)])
    }

    @Test func stopIsFinal() {
        var session = LifecycleHarness()
        let live = session.goLive()
        _ = session.handle(.stopRequested)
        session.advance(by: 3_600)
        for event: SessionLifecycle.Event in [
            .closed(generation: live, code: 1006, reason: ""), .timerFired, .start(hasRefreshToken: true),
            .stopRequested, .signedIn(generation: live + 1), .ready(generation: live),
        ] {
            #expect(session.handle(event) == [], "\(event) acted after stop")
        }
        #expect(session.state == .stopped(.requested))
        #expect(session.lifecycle.nextDeadline == nil)
    }

    /// Random event sequences, with an actor model that honours the contract (every connection reports one
    /// close), never see a second connection opened while one is open, and never see a stale action.
    @Test(arguments: 0..<20)
    func randomEventSequencesNeverOpenTwoConnections(seed: Int) {
        var session = LifecycleHarness(jitter: 0.2)
        var random = SeededGenerator(seed: UInt64(seed) &+ 1_000)
        var open: Set<UInt64> = []
        var closing: Set<UInt64> = []
        var lastGeneration: UInt64 = 0
        var inFlightSignIn: UInt64?

        func apply(_ actions: [SessionLifecycle.Action]) {
            for action in actions {
                switch action {
                case .connect(let generation):
                    #expect(open.isEmpty, "connect \(generation) while \(open) open")
                    #expect(generation > lastGeneration)
                    lastGeneration = generation
                    open.insert(generation)
                case .signIn(_, let generation):
                    #expect(generation > lastGeneration)
                    lastGeneration = generation
                    inFlightSignIn = generation
                case .closeConnection(let generation, _):
                    closing.insert(generation)
                default:
                    break
                }
            }
        }

        apply(session.handle(.start(hasRefreshToken: Bool.random(using: &random))))
        for _ in 0..<400 {
            session.advance(by: Double.random(in: 0...20, using: &random))
            let anyOpen = open.randomElement(using: &random)
            let generation = Bool.random(using: &random) ? (anyOpen ?? lastGeneration) : UInt64.random(in: 0...lastGeneration + 1, using: &random)
            let codes: [UInt16] = [1000, 1001, 1006, 4001, 4003, 4008, 1011]
            let failures: [SignInFailure] = [.unavailable("x"), .invalidRefreshToken, .rateLimited(RateLimitDelay(serverValue: "3"))]
            let event: SessionLifecycle.Event
            switch Int.random(in: 0..<9, using: &random) {
            case 0: event = .signedIn(generation: inFlightSignIn ?? generation)
            case 1: event = .signInFailed(generation: inFlightSignIn ?? generation, failures.randomElement(using: &random) ?? .invalidRefreshToken)
            case 2: event = .connected(generation: generation)
            case 3: event = .ready(generation: generation)
            case 4: event = .syncFinished(generation: generation)
            case 5: event = .heartbeatDead(generation: generation)
            case 6, 7:
                // Only connections the actor holds can report a close (the contract).
                guard let closingOne = (closing.intersection(open).randomElement(using: &random) ?? anyOpen) else { continue }
                open.remove(closingOne)
                closing.remove(closingOne)
                event = .closed(generation: closingOne, code: codes.randomElement(using: &random) ?? 1006, reason: "2")
            default: event = .timerFired
            }
            apply(session.handle(event))
            if case .stopped = session.state { break }
            // The machine's belief matches the actor's: at most one connection, and it is the one held.
            #expect(open.count <= 1)
            if let held = session.lifecycle.connectionGeneration { #expect(open == [held]) } else { #expect(open.isEmpty) }
        }
    }
}
