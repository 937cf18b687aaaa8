import BotRuntime
import ChatterBots
import Foundation

/// Keeps the terminal client's realtime connection up as the bots keep theirs: it carries out `SessionLifecycle`
/// (the same close-code reactions, backoff and timeouts), runs each connection in a `ConnectionScope` with the
/// bots' heartbeat, and tells the client's loop when a connection opened, closed, or cannot come back.
///
/// The lifecycle decides; this type only performs its actions and reports their outcomes, tagged with the
/// lifecycle's generation, one at a time from its own loop.
struct ChatConnectionKeeper {
    let configuration: ChatClientConfiguration
    let rest: ChatterRESTClient
    /// Signs in with the password as the device of the device file (a new device when `forgettingDevice`).
    let signIn: @Sendable (_ forgettingDevice: Bool) async throws -> Void
    let events: AsyncStream<ChatShell.Event>.Continuation
    private let inputs: AsyncStream<Input>
    private let post: AsyncStream<Input>.Continuation

    init(
        configuration: ChatClientConfiguration, rest: ChatterRESTClient,
        signIn: @escaping @Sendable (_ forgettingDevice: Bool) async throws -> Void, events: AsyncStream<ChatShell.Event>.Continuation
    ) {
        self.configuration = configuration
        self.rest = rest
        self.signIn = signIn
        self.events = events
        (inputs, post) = AsyncStream.makeStream(of: Input.self)
    }

    /// The client's catch-up on the connection of `generation` is over: the connection is live, or, when it failed,
    /// dropped and tried again with the lifecycle's backoff for failed synchronizations (and the wait a 429 asked).
    func catchUpEnded(generation: UInt64, failure: (any Error)?) {
        post.yield(.lifecycle(failure.map { .syncFailed(generation: generation, retryAfter: RateLimitDelay.asked(by: $0)) }
            ?? .syncFinished(generation: generation)))
    }

    /// A REST request found the device's tokens refused while the connection may still be open: sign in again.
    func refreshRefused() {
        post.yield(.lifecycle(.refreshRefused))
    }

    /// What the loop reacts to, from the tasks it started.
    private enum Input: Sendable {
        case lifecycle(SessionLifecycle.Event)
        /// The connect of this generation succeeded; its scope waits for the loop to take it.
        case opened(UInt64, ChatterRealtimeConnection, ConnectionTasks)
        /// The connection (or connect attempt) of this generation ended; `description` says how, for the person.
        case ended(UInt64, SessionLifecycle.Event, description: String)
    }

    /// Runs until the calling task is cancelled or the lifecycle stops. The first sign-in is the one the client
    /// made before calling this.
    func run() async {
        let options = configuration.connectionOptions
        var state = LoopState(
            lifecycle: SessionLifecycle(
                reconnectPolicy: configuration.reconnectPolicy, connectTimeout: .seconds(15), readyTimeout: options.sessionReadyTimeout,
                accountMayAppear: false, signsInAgainWhenRevoked: false),
            timers: DeadlineScheduler(clock: options.clock, executor: nil))
        let post = post
        await apply(.start(hasRefreshToken: false), to: &state, post: post)
        for await input in inputs {
            switch input {
            case .lifecycle(let event):
                await apply(event, to: &state, post: post)
            case .opened(let generation, let connection, let tasks):
                await opened(generation, connection, tasks, in: &state, post: post)
            case .ended(let generation, let event, let description):
                await ended(generation, event, description: description, in: &state, post: post)
            }
            if case .stopped = state.lifecycle.state { break }
        }
        await state.end()
        post.finish()
    }

    /// What the loop holds between inputs.
    private struct LoopState {
        var lifecycle: SessionLifecycle
        var random = SystemRandomNumberGenerator()
        /// The sign-in `run()`'s caller made stands for the lifecycle's first.
        var isFirstSignIn = true
        /// A 4003 asked for the device's session to be forgotten: the next password sign-in is a new device.
        var forgetsDevice = false
        /// The access token of the last connect attempt: a 4001 refused it.
        var lastConnectToken: String?
        var signInTask: Task<Void, Never>?
        /// The task of the connection of this generation, from its connect to its end report.
        var connection: (generation: UInt64, task: Task<Void, Never>)?
        /// The connection taken, between its `.opened` and its end.
        var live: (generation: UInt64, connection: ChatterRealtimeConnection, tasks: ConnectionTasks)?
        /// The client's one timer: the lifecycle's deadline and the heartbeat of its connection.
        let timers: DeadlineScheduler<SessionDeadline>
        /// The lifecycle deadline scheduled on `timers`.
        var lifecycleDeadline: Date?

        /// Ends what is still running: the connection closes with 1000 and its scope is awaited.
        mutating func end() async {
            timers.stop()
            signInTask?.cancel()
            if let live {
                await live.connection.close()
            } else {
                connection?.task.cancel()
            }
            await connection?.task.value
            await signInTask?.value
        }
    }

    private func apply(
        _ event: SessionLifecycle.Event, to state: inout LoopState, post: AsyncStream<Input>.Continuation
    ) async {
        if event == .timerFired { state.lifecycleDeadline = nil }  // fired: a deadline still pending is scheduled again
        let actions = state.lifecycle.handle(event, now: configuration.connectionOptions.clock.now, random: &state.random)
        for action in actions { await perform(action, in: &state, post: post) }
        rearmTimer(&state, post: post)
    }

    private func perform(
        _ action: SessionLifecycle.Action, in state: inout LoopState, post: AsyncStream<Input>.Continuation
    ) async {
        switch action {
        case .signIn(let method, let generation):
            signIn(method, generation: generation, in: &state, post: post)
        case .clearSessionData:
            state.forgetsDevice = true
        case .connect(let generation):
            await connect(generation: generation, in: &state, post: post)
        case .synchronize(let generation):
            // The screen catches up itself once told the connection is there (`.connected`), and says when it is
            // done through `catchUpEnded(generation:failure:)`.
            guard let live = state.live, live.generation == generation else { return }
            events.yield(.opened(live.connection, generation: generation))
        case .closeConnection(let generation, let reason):
            if let live = state.live, live.generation == generation {
                if reason == .stopping || reason == .refreshRefused {
                    let connection = live.connection
                    live.tasks.add { await connection.close() }
                } else {
                    // A peer that stopped answering would only make a close handshake wait.
                    live.connection.abort()
                }
            } else if let connection = state.connection, connection.generation == generation {
                connection.task.cancel()
            }
        case .scheduleReconnect:
            break  // the wait is the lifecycle's deadline; the screen hears of it with the close
        case .stop(let reason):
            if let error = Self.error(for: reason, username: configuration.username) { events.yield(.stopped(error)) }
        }
    }

    // MARK: Signing in

    private func signIn(
        _ method: SignInMethod, generation: UInt64, in state: inout LoopState, post: AsyncStream<Input>.Continuation
    ) {
        if state.isFirstSignIn {
            state.isFirstSignIn = false
            post.yield(.lifecycle(.signedIn(generation: generation)))
            return
        }
        let rest = rest
        let signIn = signIn
        let forgettingDevice = state.forgetsDevice
        state.forgetsDevice = false
        let stale = state.lastConnectToken
        state.signInTask = Task {
            do {
                switch method {
                case .refreshToken: try await rest.refreshTokens(replacing: stale)
                case .freshLogin: try await signIn(forgettingDevice)
                }
                post.yield(.lifecycle(.signedIn(generation: generation)))
            } catch {
                post.yield(.lifecycle(.signInFailed(generation: generation, SignInFailure(signInError: error))))
            }
        }
    }

    // MARK: The connection

    private func connect(generation: UInt64, in state: inout LoopState, post: AsyncStream<Input>.Continuation) async {
        let accessToken = await rest.tokenStore.tokens?.accessToken ?? ""
        state.lastConnectToken = accessToken
        let server = configuration.server
        var options = configuration.connectionOptions
        options.webSocket = state.lifecycle.socketConfiguration(from: options.webSocket)
        let events = events
        let timers = state.timers
        let task = Task {
            let connection: ChatterRealtimeConnection
            do throws(RealtimeError) {
                // The lifecycle bounds the wait for `session.ready` (its ready timeout cancels this task).
                connection = try await ChatterRealtimeConnection.connect(
                    configuration: server, accessToken: accessToken, options: options
                ) {
                    post.yield(.lifecycle(.connected(generation: generation)))
                }
            } catch {
                post.yield(.ended(generation, .closed(generation: generation, connectFailure: error), description: error.description))
                return
            }
            let heartbeat = HeartbeatDriver(
                pongTimeout: HeartbeatMonitor.defaultPongTimeout, clock: options.clock,
                log: SessionLog(sink: .discarding, bot: "chat", clock: options.clock), timers: timers,
                generation: generation)
            await ConnectionScope.run(connection, heartbeat: heartbeat) {
                post.yield(.lifecycle(.heartbeatDead(generation: generation)))
            } opened: { tasks in
                post.yield(.opened(generation, connection, tasks))
            }
            let reason = await connection.closeReason
            events.yield(.closed(generation: generation))
            post.yield(.ended(generation, .closed(generation: generation, reason), description: reason.description))
        }
        state.connection = (generation, task)
    }

    private func opened(
        _ generation: UInt64, _ connection: ChatterRealtimeConnection, _ tasks: ConnectionTasks,
        in state: inout LoopState, post: AsyncStream<Input>.Continuation
    ) async {
        switch state.lifecycle.state {
        case .connecting(generation, _), .awaitingReady(generation, _):
            break
        default:
            tasks.end()  // given up meanwhile (its connect deadline passed): dropped, and its end reported
            return
        }
        let events = events
        connection.keepAcknowledgementsInEvents()
        tasks.startReading {
            for await event in connection.events {
                if case .frame(let frame) = event { events.yield(.input(.server(frame.event))) }
            }
        }
        state.live = (generation, connection, tasks)
        await apply(.ready(generation: generation), to: &state, post: post)
    }

    /// A connection or connect attempt ended: the lifecycle reacts, and the screen says when the next attempt is.
    private func ended(
        _ generation: UInt64, _ event: SessionLifecycle.Event, description: String, in state: inout LoopState,
        post: AsyncStream<Input>.Continuation
    ) async {
        if state.connection?.generation == generation { state.connection = nil }
        if state.live?.generation == generation { state.live = nil }
        let wasCurrent = state.lifecycle.connectionGeneration == generation
        await apply(event, to: &state, post: post)
        guard wasCurrent else { return }
        let now = configuration.connectionOptions.clock.now
        switch state.lifecycle.state {
        case .stopped:
            break  // the stop says why
        case .waitingToReconnect(let until, _):
            events.yield(.input(.disconnected(reason: description, retryIn: .seconds(max(0, until.timeIntervalSince(now))))))
        default:
            events.yield(.input(.disconnected(reason: description, retryIn: .zero)))
        }
    }

    // MARK: The lifecycle's deadline

    /// Keeps the lifecycle's `nextDeadline` on the client's timers, which report `.timerFired`.
    private func rearmTimer(_ state: inout LoopState, post: AsyncStream<Input>.Continuation) {
        let deadline = state.lifecycle.nextDeadline
        guard deadline != state.lifecycleDeadline else { return }
        state.lifecycleDeadline = deadline
        guard let deadline else {
            state.timers.cancel(.lifecycle)
            return
        }
        state.timers.schedule(.lifecycle, at: deadline) { post.yield(.lifecycle(.timerFired)) }
    }

    /// What the person is told when the lifecycle stops for `reason`; nil for a stop the client asked for.
    static func error(for reason: SessionStopReason, username: String) -> ChatClientError? {
        switch reason {
        case .requested: nil
        case .clientKeyInvalid: .clientKeyRejected
        case .invalidCredentials: .invalidCredentials(username: username)
        case .sessionRevoked(let failure?): .sessionRevoked(description: failure.description)
        case .sessionRevoked(nil): .signedOut(username: username)
        case .signInRejected(let code, let message): .signInFailed(description: "\(message) (\(code))")
        }
    }
}
