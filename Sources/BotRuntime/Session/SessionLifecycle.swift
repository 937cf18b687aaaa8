import Foundation
import WebSocket

/// The device session of one bot as a state machine: sign in, connect, wait for `session.ready`, synchronize,
/// live, and every way back (close codes, dead heartbeat, timeouts) to a new connection or to a final stop.
///
/// Events in, actions out, time passed in: it reads no clock and performs no I/O, so the session actor only
/// carries actions out, and every path is tested without sockets. Contract with the actor:
/// - Every `.signIn` and `.connect` action carries a new generation; the actor tags the events of that attempt
///   with it. Events of any other generation are stale and ignored, as is every event the state does not expect.
/// - Every `.connect(generation:)` is answered by exactly one `.closed` event of that generation, also when
///   the attempt fails before opening (report 1006) and when the actor closes the socket itself after
///   `.closeConnection`. A new `.connect` is only ever emitted after the previous connection's `.closed`, so
///   a bot never holds two connections.
/// - After every `handle`, the actor arranges to report `.timerFired` at `nextDeadline` (when not nil).
/// - Every attempt after the first (a reconnect, a token refresh after 4001, a fresh sign-in after 4003) starts
///   from `.waitingToReconnect`, with a wait of zero when the seed says to go at once, so that the actor admits
///   each one through the same gate as a first start before it signs in or connects.
package struct SessionLifecycle: Sendable {
    /// Where the session is.
    public enum State: Sendable, Equatable {
        /// Created, not started.
        case signedOut
        /// A sign-in request of this generation is in flight.
        case signingIn(SignInMethod, generation: UInt64)
        /// The connection of this generation is being opened; bounded by `deadline`.
        case connecting(generation: UInt64, deadline: Date)
        /// The socket is open and `session.ready` is awaited until `deadline`.
        case awaitingReady(generation: UInt64, deadline: Date)
        /// Ready; the REST refresh, `sync.request` paging and outbox resend are running.
        case synchronizing(generation: UInt64)
        /// Synchronized and receiving live events.
        case live(generation: UInt64)
        /// The actor was told to close this connection; waiting for its `.closed` before `then`, not before `notBefore`.
        case disconnecting(generation: UInt64, then: NextStep, notBefore: Date)
        /// No connection; `then` runs when the timer fires at or after `until`.
        case waitingToReconnect(until: Date, then: NextStep)
        /// Final: nothing more happens.
        case stopped(SessionStopReason)
    }

    /// What a wait leads to.
    public enum NextStep: Sendable, Equatable {
        /// Open a new connection with the current access token.
        case connect
        /// Sign in again with this method (a sign-in that failed for a transient reason).
        case signIn(SignInMethod)
    }

    /// What happened, reported by the session actor.
    public enum Event: Sendable, Equatable {
        /// Begin: sign in with the stored refresh token if there is one, else with a password login.
        case start(hasRefreshToken: Bool)
        /// The sign-in of this generation succeeded; new tokens (and the deviceId) are stored.
        case signedIn(generation: UInt64)
        /// The sign-in of this generation failed.
        case signInFailed(generation: UInt64, SignInFailure)
        /// The WebSocket handshake of this generation completed.
        case connected(generation: UInt64)
        /// `session.ready` arrived on this connection.
        case ready(generation: UInt64)
        /// Synchronization after ready finished.
        case syncFinished(generation: UInt64)
        /// Synchronization failed (a REST or sync error); the connection is dropped and retried with backoff,
        /// and not before `retryAfter` when the service said how long to wait (429 `Retry-After`).
        case syncFailed(generation: UInt64, retryAfter: Duration? = nil)
        /// The connection of this generation closed (or could not be opened: 1006) with `code` and `reason`.
        case closed(generation: UInt64, code: UInt16, reason: String)
        /// The heartbeat of this connection missed its pong deadline.
        case heartbeatDead(generation: UInt64)
        /// A REST request found the device's access token rejected and its refresh refused, while the current
        /// connection may still be open: the tokens no longer work, and only a new sign-in brings REST back.
        case refreshRefused
        /// Stop for good (shutdown).
        case stopRequested
        /// The actor woke at `nextDeadline`.
        case timerFired
    }

    /// What the actor must do, in order.
    public enum Action: Sendable, Equatable {
        /// Sign in with `method`; report `.signedIn` or `.signInFailed` with `generation`.
        case signIn(SignInMethod, generation: UInt64)
        /// Delete the stored tokens and deviceId: the server revoked this device (4003).
        case clearSessionData
        /// Open the realtime connection with the current access token; report its events with `generation`.
        case connect(generation: UInt64)
        /// Refresh conversations, friend requests and friends over REST, `sync.request` with `hasMore` paging,
        /// resend the outbox; report `.syncFinished` or `.syncFailed`.
        case synchronize(generation: UInt64)
        /// Close this connection (1000 for `.stopping` and `.refreshRefused`; otherwise abort it, the peer is not
        /// answering) and report its `.closed`.
        case closeConnection(generation: UInt64, DisconnectReason)
        /// A reconnect (or sign-in retry) is planned at `at`, for `reason`: log it. The wake-up is `nextDeadline`.
        case scheduleReconnect(at: Date, ReconnectReason)
        /// The session is over: release the bot's resources and report `reason` to the supervisor.
        case stop(SessionStopReason)
    }

    /// Why the session closes a connection itself.
    public enum DisconnectReason: Sendable, Equatable {
        /// The bot is stopping: close gracefully with 1000.
        case stopping
        /// No pong within the pong timeout.
        case heartbeatDead
        /// The connection did not open within the connect timeout.
        case connectTimedOut
        /// `session.ready` did not arrive within the ready timeout.
        case readyTimedOut
        /// Synchronization failed.
        case syncFailed
        /// The device's tokens were refused over REST: the connection works, but the session must sign in again.
        case refreshRefused
    }

    /// Why a reconnect or sign-in retry was scheduled, for the log.
    public enum ReconnectReason: Sendable, Equatable, CustomStringConvertible {
        /// The server closed the connection with this code and reason.
        case closed(code: UInt16, reason: String)
        /// A second 4001 without a `session.ready` in between: refresh again, but after backoff.
        case unauthorizedAgain
        /// The session dropped the connection itself.
        case dropped(DisconnectReason)
        /// Signing in failed for a reason worth retrying.
        case signInFailed(SignInFailure)

        public var description: String {
            switch self {
            case .closed(4008, let reason):
                "closed 4008: \(RateLimitDelay(serverValue: reason))"
            case .closed(let code, let reason):
                "closed \(code) (\(CloseCodeReaction.meaning(ofCode: code)))" + (reason.isEmpty ? "" : ": \(reason)")
            case .unauthorizedAgain:
                "closed 4001 again right after a token refresh; refreshing after backoff"
            case .dropped(let reason):
                "connection dropped: \(reason)"
            case .signInFailed(let failure):
                "sign-in failed: \(failure)"
            }
        }
    }

    /// Where the session is now.
    public private(set) var state: State = .signedOut
    /// The backoff schedule; reset on every `session.ready`.
    public private(set) var reconnectPolicy: ReconnectPolicy
    /// The backoff after failed synchronizations: reset only when one succeeds, so a session that reaches
    /// `session.ready` and then fails its sync every time still waits longer and longer.
    public private(set) var syncFailurePolicy: ReconnectPolicy
    /// The longest a connection may take to open (TCP, TLS and the upgrade together), on the session's clock: the one
    /// bound of a session's connect. The socket's own timeouts are raised to it (`socketConfiguration(from:)`).
    public let connectTimeout: Duration
    /// The longest `session.ready` may take after the connection opened.
    public let readyTimeout: Duration

    private var generation: UInt64 = 0
    /// Set by a 4003, cleared by the next `session.ready`: a failure in between stops the bot.
    private var recoveringFromRevocation = false
    /// Set by a 4001, cleared by the next `session.ready`: a second one refreshes only after backoff.
    private var unauthorizedSinceReady = false
    /// Whether the account may not exist yet: a refused password login is retried with backoff instead of
    /// stopping the bot (a shard signing in to the sandbox another shard embeds, before it made the account).
    private let accountMayAppear: Bool
    /// Whether a revoked session (4003) signs in afresh, as a bot does, or stops once its data is cleared, as the
    /// seed's app does ("Clear local data, go to the welcome screen").
    private let signsInAgainWhenRevoked: Bool

    /// Creates a session in `.signedOut`.
    public init(
        reconnectPolicy: ReconnectPolicy = ReconnectPolicy(),
        connectTimeout: Duration = .seconds(15),
        readyTimeout: Duration = .seconds(10)
    ) {
        self.init(reconnectPolicy: reconnectPolicy, connectTimeout: connectTimeout, readyTimeout: readyTimeout, accountMayAppear: false)
    }

    /// Creates a session in `.signedOut`; with `accountMayAppear`, `INVALID_CREDENTIALS` at a password login is
    /// retried with the reconnect backoff.
    /// Without `signsInAgainWhenRevoked`, a 4003 clears the session's data and stops with `.sessionRevoked(nil)`.
    package init(
        reconnectPolicy: ReconnectPolicy, connectTimeout: Duration, readyTimeout: Duration, accountMayAppear: Bool,
        signsInAgainWhenRevoked: Bool = true
    ) {
        self.reconnectPolicy = reconnectPolicy
        self.syncFailurePolicy = reconnectPolicy
        self.connectTimeout = connectTimeout
        self.readyTimeout = readyTimeout
        self.accountMayAppear = accountMayAppear
        self.signsInAgainWhenRevoked = signsInAgainWhenRevoked
    }

    /// The socket settings for a connect of this session: the socket's connect and handshake timeouts, which run in
    /// real time, are raised to `connectTimeout`, so that the session's deadline (which cancels the attempt) ends a
    /// connect that takes too long, and no socket timeout ends one the session still allows.
    package func socketConfiguration(from configuration: WebSocketClientConfiguration) -> WebSocketClientConfiguration {
        var configuration = configuration
        configuration.connectTimeout = max(configuration.connectTimeout, connectTimeout)
        configuration.handshakeTimeout = max(configuration.handshakeTimeout, connectTimeout)
        return configuration
    }

    /// When the actor must report `.timerFired`: the end of a wait, or the connect or ready deadline.
    public var nextDeadline: Date? {
        switch state {
        case .connecting(_, let deadline), .awaitingReady(_, let deadline): deadline
        case .waitingToReconnect(let until, _): until
        default: nil
        }
    }

    /// The generation of the connection the actor may hold (opening, open or closing), nil when there is none.
    public var connectionGeneration: UInt64? {
        switch state {
        case .connecting(let generation, _), .awaitingReady(let generation, _), .synchronizing(let generation),
            .live(let generation), .disconnecting(let generation, _, _):
            generation
        default:
            nil
        }
    }

    /// Applies `event`, which happened at `now`; `random` draws the backoff jitter.
    public mutating func handle(
        _ event: Event, now: Date, random: inout some RandomNumberGenerator
    ) -> [Action] {
        switch event {
        case .start(let hasRefreshToken):
            guard case .signedOut = state else { return [] }
            return signIn(hasRefreshToken ? .refreshToken : .freshLogin)

        case .signedIn(let attempt):
            guard case .signingIn(_, attempt) = state else { return [] }
            return connect(now: now)

        case .signInFailed(let attempt, let failure):
            guard case .signingIn(let method, attempt) = state else { return [] }
            return signInFailed(method, failure, now: now, random: &random)

        case .connected(let connection):
            guard case .connecting(connection, _) = state else { return [] }
            state = .awaitingReady(generation: connection, deadline: now.adding(readyTimeout))
            return []

        case .ready(let connection):
            switch state {
            case .connecting(connection, _), .awaitingReady(connection, _): break
            default: return []
            }
            reconnectPolicy.reset()
            recoveringFromRevocation = false
            unauthorizedSinceReady = false
            state = .synchronizing(generation: connection)
            return [.synchronize(generation: connection)]

        case .syncFinished(let connection):
            guard case .synchronizing(connection) = state else { return [] }
            state = .live(generation: connection)
            syncFailurePolicy.reset()
            return []

        case .syncFailed(let connection, let retryAfter):
            guard case .synchronizing(connection) = state else { return [] }
            let delay = max(syncFailurePolicy.nextDelay(using: &random), retryAfter ?? .zero)
            return drop(connection, because: .syncFailed, notBefore: now.adding(delay))

        case .heartbeatDead(let connection):
            switch state {
            case .awaitingReady(connection, _), .synchronizing(connection), .live(connection):
                return drop(connection, because: .heartbeatDead, now: now, random: &random)
            default:
                return []
            }

        case .closed(let connection, let code, let reason):
            switch state {
            case .disconnecting(connection, let next, let notBefore):
                // A code only the service sends (4001-4008: the bot never closes with one) says why the sync or
                // the heartbeat failed just before, and its reaction replaces the drop's plain reconnect.
                let reaction = CloseCodeReaction(code: code, reason: reason)
                if case .reconnectAfter(let delay) = reaction {
                    // Not sooner than the drop asked (a sync refused with a longer Retry-After).
                    let until = max(notBefore, now.adding(delay.delay))
                    return wait(until: until, then: .connect, because: .closed(code: code, reason: reason))
                }
                if reaction != .reconnectWithBackoff {
                    return react(to: reaction, code: code, reason: reason, now: now, random: &random)
                }
                return resume(next, notBefore: notBefore)
            case .connecting(connection, _), .awaitingReady(connection, _), .synchronizing(connection),
                .live(connection):
                return react(to: CloseCodeReaction(code: code, reason: reason), code: code, reason: reason,
                             now: now, random: &random)
            default:
                return []
            }

        case .refreshRefused:
            switch state {
            case .awaitingReady(let connection, _), .synchronizing(let connection), .live(let connection):
                return dropForSignIn(connection, now: now, random: &random)
            default:
                return []
            }

        case .stopRequested:
            switch state {
            case .stopped:
                return []
            case .disconnecting:
                return stop(.requested)
            default:
                let close = connectionGeneration.map { [Action.closeConnection(generation: $0, .stopping)] } ?? []
                return close + stop(.requested)
            }

        case .timerFired:
            switch state {
            case .waitingToReconnect(let until, let next) where now >= until:
                return perform(next, now: now)
            case .connecting(let connection, let deadline) where now >= deadline:
                return drop(connection, because: .connectTimedOut, now: now, random: &random)
            case .awaitingReady(let connection, let deadline) where now >= deadline:
                return drop(connection, because: .readyTimedOut, now: now, random: &random)
            default:
                return []
            }
        }
    }

    /// Applies `event` with the system's random generator for jitter.
    public mutating func handle(_ event: Event, now: Date) -> [Action] {
        var random = SystemRandomNumberGenerator()
        return handle(event, now: now, random: &random)
    }

    // MARK: - Transitions

    private mutating func signIn(_ method: SignInMethod) -> [Action] {
        generation += 1
        state = .signingIn(method, generation: generation)
        return [.signIn(method, generation: generation)]
    }

    /// The only place a connection is opened. Every caller is a state without a connection (signing in, waiting,
    /// or a disconnect whose `.closed` arrived), which is what keeps a bot to one connection at a time.
    private mutating func connect(now: Date) -> [Action] {
        generation += 1
        state = .connecting(generation: generation, deadline: now.adding(connectTimeout))
        return [.connect(generation: generation)]
    }

    private mutating func perform(_ next: NextStep, now: Date) -> [Action] {
        switch next {
        case .connect: connect(now: now)
        case .signIn(let method): signIn(method)
        }
    }

    private mutating func stop(_ reason: SessionStopReason) -> [Action] {
        state = .stopped(reason)
        return [.stop(reason)]
    }

    private mutating func wait(
        until: Date, then next: NextStep, because reason: ReconnectReason
    ) -> [Action] {
        state = .waitingToReconnect(until: until, then: next)
        return [.scheduleReconnect(at: until, reason)]
    }

    private mutating func backoff(
        then next: NextStep, because reason: ReconnectReason, now: Date, random: inout some RandomNumberGenerator
    ) -> [Action] {
        wait(until: now.adding(reconnectPolicy.nextDelay(using: &random)), then: next, because: reason)
    }

    /// Closes a connection the session gave up on and plans the reconnect once its `.closed` arrives.
    private mutating func drop(
        _ connection: UInt64, because reason: DisconnectReason, now: Date, random: inout some RandomNumberGenerator
    ) -> [Action] {
        drop(connection, because: reason, notBefore: now.adding(reconnectPolicy.nextDelay(using: &random)))
    }

    private mutating func drop(_ connection: UInt64, because reason: DisconnectReason, notBefore: Date) -> [Action] {
        state = .disconnecting(generation: connection, then: .connect, notBefore: notBefore)
        return [.closeConnection(generation: connection, reason), .scheduleReconnect(at: notBefore, .dropped(reason))]
    }

    /// Closes a connection whose tokens REST found refused and signs in again with the password, keeping the device
    /// (the refresh token was just refused on its merits, as after a 4001 whose refresh fails): at once the first time
    /// since the last `session.ready`, after backoff when it comes again, so that a service refusing every new pair is
    /// not asked in a loop.
    private mutating func dropForSignIn(
        _ connection: UInt64, now: Date, random: inout some RandomNumberGenerator
    ) -> [Action] {
        let notBefore = unauthorizedSinceReady ? now.adding(reconnectPolicy.nextDelay(using: &random)) : now
        unauthorizedSinceReady = true
        state = .disconnecting(generation: connection, then: .signIn(.freshLogin), notBefore: notBefore)
        return [
            .closeConnection(generation: connection, .refreshRefused),
            .scheduleReconnect(at: notBefore, .dropped(.refreshRefused)),
        ]
    }

    /// The dropped connection's close came: wait out what is left of the drop's backoff (possibly nothing) for
    /// the timer, which the actor reports once the attempt is admitted.
    private mutating func resume(_ next: NextStep, notBefore: Date) -> [Action] {
        state = .waitingToReconnect(until: notBefore, then: next)
        return []
    }

    private mutating func react(
        to reaction: CloseCodeReaction, code: UInt16, reason: String, now: Date,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        switch reaction {
        case .reconnectWithBackoff:
            return backoff(then: .connect, because: .closed(code: code, reason: reason), now: now, random: &random)
        case .refreshTokenThenReconnect:
            guard unauthorizedSinceReady else {
                unauthorizedSinceReady = true
                return wait(until: now, then: .signIn(.refreshToken), because: .closed(code: code, reason: reason))
            }
            return backoff(then: .signIn(.refreshToken), because: .unauthorizedAgain, now: now, random: &random)
        case .clearSessionAndSignInAfresh:
            guard signsInAgainWhenRevoked else { return [.clearSessionData] + stop(.sessionRevoked(failure: nil)) }
            guard !recoveringFromRevocation else { return stop(.sessionRevoked(failure: nil)) }
            recoveringFromRevocation = true
            return [.clearSessionData]
                + wait(until: now, then: .signIn(.freshLogin), because: .closed(code: code, reason: reason))
        case .reconnectAfter(let delay):
            return wait(until: now.adding(delay.delay), then: .connect, because: .closed(code: code, reason: reason))
        case .stop(let reason):
            return stop(reason)
        }
    }

    private mutating func signInFailed(
        _ method: SignInMethod, _ failure: SignInFailure, now: Date, random: inout some RandomNumberGenerator
    ) -> [Action] {
        switch (failure, method) {
        case (.invalidClientKey, _):
            return stop(.clientKeyInvalid)
        case (.rateLimited(let delay), _):
            return wait(until: now.adding(delay.delay), then: .signIn(method), because: .signInFailed(failure))
        case (.unavailable, _):
            return backoff(then: .signIn(method), because: .signInFailed(failure), now: now, random: &random)
        case (_, .refreshToken):
            // The refresh token was refused on its merits: fall back to a password login (same deviceId).
            return signIn(.freshLogin)
        case (_, .freshLogin) where recoveringFromRevocation:
            return stop(.sessionRevoked(failure: failure))
        case (.invalidCredentials, .freshLogin) where accountMayAppear:
            return backoff(then: .signIn(.freshLogin), because: .signInFailed(failure), now: now, random: &random)
        case (.invalidCredentials, .freshLogin):
            return stop(.invalidCredentials)
        case (.rejected(let code, let message), .freshLogin):
            return stop(.signInRejected(code: code, message: message))
        case (.invalidRefreshToken, .freshLogin):
            return stop(.signInRejected(
                code: "INVALID_REFRESH_TOKEN", message: "the server answered a password login with INVALID_REFRESH_TOKEN"))
        }
    }
}
