import ChatterBots
import Foundation

/// One bot, running: its single device session with the Chatter service, kept alive through sign-ins, token
/// refreshes, reconnects and every close code, with its handlers, outbox, receipts and schedule.
///
/// The actor carries out `SessionLifecycle`'s actions: it handles one input at a time (results of sign-ins and
/// connects, closes, timers, shutdown) without awaiting in between, so its state never changes under it; the I/O
/// runs in tasks that report back tagged with the lifecycle generation they belong to, and stale reports are
/// ignored. Messages, acks and handlers never pass through the actor: the reader hands frames to the admission
/// queue and the outbox, and the dispatcher runs handlers on lanes of their own.
///
/// ```swift
/// let session = BotSession(configuration: config, bot: EchoBot(), environment: environment)
/// let reason = await session.run()   // until shutdown, 4002, bad credentials…
/// ```
public actor BotSession {
    /// The bot's configured name.
    public nonisolated let name: String
    private let configuration: BotConfiguration
    /// The bot, or the kind that makes it as the session starts.
    private let member: BotLineup.Member
    private let environment: BotRuntimeEnvironment
    private let metrics: SessionMetrics
    private let log: SessionLog

    private enum Phase {
        case idle
        case running
        case finished(BotStopReason)
    }

    /// What the actor reacts to, from its own tasks.
    private enum Input: Sendable {
        case lifecycle(SessionLifecycle.Event)
        /// The connection of this generation ended, for `reason`.
        case closed(UInt64, RealtimeCloseReason)
        /// The connect of this generation succeeded (`session.ready` included); its scope waits to be read.
        case opened(UInt64, ChatterRealtimeConnection, ConnectionTasks)
        /// The synchronization of this generation finished.
        case synchronized(UInt64)
        /// `onStart` returned: handlers and jobs may run.
        case started
        /// The bot cannot go on (its storage failed).
        case fatal(BotStopReason)
        /// The store refused a unit of the conversation: it goes on from what the store holds.
        case rewind(Conversation.ID, passingOver: Message?)
        /// The lifecycle's deadline came on the session's `DeadlineScheduler`.
        case lifecycleDue
        /// The connection of this generation received its `presence.snapshot`.
        case presenceSnapshot(UInt64)
        /// The wait for the `presence.snapshot` of this generation's connection ran out.
        case presenceSnapshotDue(UInt64)
    }

    /// The connection taken between `.opened` and its `.closed`, and its `ConnectionScope`.
    private struct Live {
        var link: RealtimeLink
        var tasks: ConnectionTasks
    }

    private var phase = Phase.idle
    private var lifecycle: SessionLifecycle
    /// When `onReady` runs after each connect.
    private var readyGate = ReadyGate()
    private var random: JitterRandom
    private var state = BotStatus.State.starting
    /// When the bot first went live.
    private var firstLiveAt: Date?
    private var since: Date
    private var isShuttingDown = false
    /// When the running shutdown's deadline passes on the clock.
    private var shutdownEnd: Date?
    private var stopReason: BotStopReason?

    private var parts: SessionParts?
    /// Set once the session claims its store's file (`StoreHandOff`): from then on requests wait for its `parts`.
    private var opensStore = false
    /// Requests waiting for the session's `parts`, or for its end.
    private var storeWaiters: [CheckedContinuation<Void, Never>] = []
    private var admission: AdmissionQueue?
    private var runner: HandlerRunner?
    private var inputs: AsyncStream<Input>.Continuation?
    /// The session's one timer: the lifecycle's deadline and the heartbeat of its connection.
    private var timers: DeadlineScheduler<SessionDeadline>?
    /// The lifecycle deadline scheduled on `timers` (or waiting at the startup gate).
    private var lifecycleDeadline: Date?
    /// A reconnect whose backoff ended, waiting for its turn at the startup gate.
    private var gateEntry: Task<Void, Never>?
    /// The sign-in running now, if any. A finished one is let go: a task kept referenced keeps its stack slabs.
    private var signInTask: (generation: UInt64, task: Task<Void, Never>)?
    /// Forgetting a revoked device's session in the store: started at once, not at the next sign-in, which may wait
    /// its turn at the startup gate for minutes (a process killed meanwhile would sign in on the revoked device).
    private var sessionClearing: Task<Void, Never>?
    /// The task of the connection of this generation, from its connect to its `.closed` report: it connects, then
    /// runs the connection's `ConnectionScope`, so the connection's reader, heartbeat and sync end within it.
    private var connection: (generation: UInt64, task: Task<Void, Never>)?
    /// The heartbeat of the latest connection: its ping in flight keeps the session from being idle.
    private var heartbeat: HeartbeatDriver?
    private var live: Live?
    /// The access token of the last connect attempt: a 4001 refused it.
    private var lastConnectToken: String?
    private var hasStarted = false
    /// `onStart`, then the dispatcher's start (`startIfNeeded()`); cancelled by the teardown.
    private var startTask: Task<Void, Never>?
    /// Set as the teardown begins: nothing starts any more (a sign-in that ends meanwhile starts no `onStart`).
    private var isTornDown = false
    private var hasSynchronized = false
    /// How the syncs are cut into requests: kept across connections, as it shrinks after a refused response.
    private var syncPlan: SyncPlan
    private var connects = 0
    private var finishedWaiters: [CheckedContinuation<Void, Never>] = []
    /// The streams of `stateChanges()`, each told every change of `state`.
    private var stateObservers: [UInt64: AsyncStream<BotStatus.State>.Continuation] = [:]
    /// When the last scheduled reconnect is due (shown while reconnecting).
    private var reconnectAt: Date?
    private var nextStateObserver: UInt64 = 0
    /// Who is told each change of the state (the supervisor's `FleetStateBoard`), and what it was told last.
    private var stateReporter: BotStateReporter?
    private var reportedState: (state: BotStatus.State, connected: Bool, hasBeenLive: Bool)?
    /// Held from the start of a start-up or reconnect attempt until the bot is live, the attempt failed or the bot
    /// stopped (see ``StartupGate``).
    private var startupTicket: StartupGate.Ticket?
    /// The first start's wait at the gate, which a shutdown cancels.
    private var startupAdmission: Task<StartupGate.Ticket?, Never>?
    /// The making of the bot as the session starts, whose wait for its turn at the suspect gate a shutdown cancels.
    private var making: Task<BotMaking.Outcome?, Never>?
    /// Set when the kind's make was not called because an earlier make of the kind was given up and has not
    /// returned: tells when it has, so that the bot starts again as a new session (`successorOnceReadmitted()`).
    private var readmission: MakeThreads.Readmission?

    /// A session for the bot `configuration` describes, running `bot`, in `environment`. Nothing happens until `run()`.
    public init(configuration: BotConfiguration, bot: any Bot, environment: BotRuntimeEnvironment) {
        self.init(
            member: BotLineup.Member(configuration: configuration, kind: BotKind(configuration.kind) { _ in bot }, bot: bot),
            environment: environment)
    }

    /// A session for `member`, in `environment`: unless it was made already, its kind makes the bot as `run()`
    /// starts, marked as the bot's work `make` for crash isolation (`docs/quarantine.md`). When the kind refuses the
    /// options, the bot stops with a `configurationError` naming the option, and nothing signs in.
    public init(member: BotLineup.Member, environment: BotRuntimeEnvironment) {
        let configuration = member.configuration
        self.name = configuration.name
        self.configuration = configuration
        self.member = member
        self.environment = environment
        self.metrics = SessionMetrics(clock: environment.clock)
        self.log = SessionLog(sink: environment.logSink, bot: configuration.name, clock: environment.clock)
        self.lifecycle = SessionLifecycle(
            reconnectPolicy: environment.reconnectPolicy, connectTimeout: environment.connectTimeout,
            readyTimeout: environment.readyTimeout, accountMayAppear: environment.accountsMayAppear)
        self.random = JitterRandom(seed: environment.randomSeed, botName: configuration.name)
        self.since = environment.clock.now
        self.syncPlan = SyncPlan(
            limitPerConversation: environment.syncLimitPerConversation,
            inboundMessageLimit: environment.webSocket.limits.maxMessageSize)
    }

    // MARK: - Public surface

    /// Runs the bot until it stops for good: `shutdown(deadline:)`, a configuration error (4002, bad credentials),
    /// a revocation it could not recover from, or a storage failure. Returns why. Call it once.
    public func run() async -> BotStopReason {
        let executor = SessionExecutor.forNewSession(of: environment)
        return await SessionExecutor.$preferred.withValue(executor) {
            // The global executor, not nil, when there is no loop: nil would keep a preference the caller has.
            await withTaskExecutorPreference(executor ?? globalConcurrentExecutor) { await runSession() }
        }
    }

    private func runSession() async -> BotStopReason {
        guard case .idle = phase else {
            if case .finished(let reason) = phase { return reason }
            return .configurationError("run() was called twice on the session of bot \(name)")
        }
        phase = .running
        setState(.starting)
        guard !isShuttingDown else { return finish(.shutdown) }
        if let gate = environment.startupGate {
            // A shutdown, or the cancellation of the calling task, ends the wait: nothing was opened yet.
            let admission = Task(executorPreference: SessionExecutor.preferred) { await gate.enter() }
            startupAdmission = admission
            let admitted = await withTaskCancellationHandler { await admission.value } onCancel: { admission.cancel() }
            startupAdmission = nil
            guard let ticket = admitted else { return finish(.shutdown) }
            guard !isShuttingDown else {
                ticket.release()
                return finish(.shutdown)
            }
            startupTicket = ticket
        }

        // A request may have the store's file open for a moment (`withStore`, through this session or an earlier
        // one of the bot): it would refuse the session's own open. Requests coming meanwhile wait for this one.
        opensStore = true
        await StoreHandOff<BotSession>.shared.claim(environment.storeURL(forBot: name).path)
        let store: BotStore
        do {
            try Self.makeDirectory(environment.dataDirectory)
            store = try await BotStore.open(
                path: environment.storeURL(forBot: name).path, clock: environment.clock,
                synchronous: environment.storeSynchronousMode, dormancy: environment.storeDormancy,
                workers: environment.storeWorkers, faults: environment.storeFaults)
        } catch {
            log.error("cannot open the bot's store: \(error)")
            return finish(.storageFailed("\(environment.storeURL(forBot: name).path): \(error)"))
        }
        let stored: StoredSession?
        do {
            stored = try await store.session()
        } catch {
            await store.close()
            return finish(.storageFailed("\(error)"))
        }

        let (stream, continuation) = AsyncStream.makeStream(of: Input.self)
        inputs = continuation
        let timers = DeadlineScheduler<SessionDeadline>(clock: environment.clock)
        self.timers = timers
        let parts = SessionParts(
            configuration: configuration, environment: environment, store: store, log: log, metrics: metrics,
            device: stored.map { SignedInDevice(userId: $0.userId, deviceId: $0.deviceId) }, timers: timers,
            onRewind: { conversation, passingOver in continuation.yield(.rewind(conversation, passingOver: passingOver)) },
            onRefreshRefused: { continuation.yield(.lifecycle(.refreshRefused)) }
        ) { reason in
            continuation.yield(.fatal(reason))
        }
        let admission = parts.makeAdmission()
        self.parts = parts
        wakeStoreWaiters()
        // Requests that came through an earlier session of the bot while this one claimed the file go through it.
        StoreHandOff<BotSession>.shared.opened(environment.storeURL(forBot: name).path, by: self)
        self.admission = admission
        do {
            try await parts.outbox.loadPending()
            try await parts.messageActions.loadPending()
            try await parts.friends.load()
            try await parts.ignoredRequests.load()
        } catch {
            log.error("cannot read the bot's store: \(error)")
            stopReason = .storageFailed("\(error)")
        }
        if stopReason == nil {
            do {
                if let reason = try await parts.quarantine.load() {
                    log.error("not starting: \(reason)")
                    stopReason = .crashing(reason)
                }
            } catch {
                log.error("cannot read the bot's quarantine: \(error)")
                stopReason = .storageFailed("\(error)")
            }
        }
        if stopReason == nil && !isShuttingDown {
            let (quarantine, member, environment) = (parts.quarantine, member, environment)
            let making = Task(executorPreference: SessionExecutor.preferred) {
                await quarantine.makeBot(member, with: BotMaking(environment: environment))
            }
            self.making = making
            let made = await withTaskCancellationHandler { await making.value } onCancel: { making.cancel() }
            self.making = nil
            switch made {
            case .made(let bot)?:
                runner = parts.makeRunner(admission: admission, bot: bot)
            case .refused(let error)?:
                let issue = BotLineup.issue(refusing: configuration, error: error)
                log.error("not starting: the kind refused the bot's options: \(issue)")
                stopReason = .configurationError("\(issue); fix bots.json and reload")
            case .timedOut(let timedOut)?:
                log.error("not starting: \(timedOut)")
                metrics.setLastError("make timed out after \(timedOut.timeout)")
                stopReason = .configurationError(timedOut.description)
            case .notCalled(let refusal, let readmission)?:
                self.readmission = readmission
                log.error("not starting: \(refusal)")
                metrics.setLastError("make not called: \(refusal.summary)")
                stopReason = .configurationError(refusal.description)
            case nil:
                break
            }
        }
        log.info("starting", ["store": store.path, "outbox": String(parts.outbox.depth)])

        if stopReason == nil && !isShuttingDown && runner != nil {
            handle(.lifecycle(.start(hasRefreshToken: stored != nil)))
            for await input in stream {
                handle(input)
                if case .stopped = lifecycle.state { break }
            }
        }
        await tearDown()
        return finish(stopReason ?? .shutdown)
    }

    /// Once the session stopped because an earlier make of its kind was given up and had not returned: waits until
    /// that make returns (normally or by throwing) and returns a new session of the bot, made as a first start's
    /// would be. Nil at once when it stopped for another reason, and nil when the task is cancelled first.
    package func successorOnceReadmitted() async -> (any SupervisedBot)? {
        guard case .finished = phase, let readmission else { return nil }
        guard await readmission.wait() else { return nil }
        self.readmission = nil
        return BotSession(member: member, environment: environment)
    }

    /// Stops the bot gracefully: no new work is taken, running handlers finish and their replies are awaited
    /// (both within `deadline` on the runtime's clock), the connection closes with 1000, the store closes. Returns
    /// once `run()` has returned.
    public func shutdown(deadline: Duration) async {
        switch phase {
        case .finished:
            return
        case .idle:
            isShuttingDown = true
            return
        case .running:
            break
        }
        guard !isShuttingDown else {
            await waitUntilFinished()
            return
        }
        isShuttingDown = true
        // Read before the state is published: a test that advances a manual clock once it sees `.stopping` must
        // find the deadline counted from before its advance.
        let end = environment.clock.now.addingTimeInterval(deadline.timeInterval)
        setState(.stopping)
        startupAdmission?.cancel()
        making?.cancel()
        log.info("shutting down", ["deadline": "\(deadline)"])
        if let parts, let admission, let timers {
            shutdownEnd = end
            parts.quarantine.stop()
            admission.stop()
            parts.scheduler.stop()
            let dropped = parts.dispatcher.stopAccepting()
            if dropped > 0 { log.info("left \(dropped) queued events for the next start") }
            let idle = WakeSignal(clock: environment.clock)
            let dispatcher = parts.dispatcher
            let writer = parts.writer
            let waiter = Task(executorPreference: SessionExecutor.preferred) {
                await dispatcher.waitUntilIdle()
                await writer.waitUntilLanesIdle()
                idle.wake()
            }
            timers.schedule(.shutdown, at: end) { idle.wake() }
            await idle.wait()
            timers.cancel(.shutdown)
            waiter.cancel()
            await parts.outbox.waitUntilSettled(before: end)
        }
        inputs?.yield(.lifecycle(.stopRequested))
        await waitUntilFinished()
    }

    /// Returns once the bot has nothing left to do at its clock's current instant: every event it received so far
    /// admitted, every scheduled job due by now handed to a handler, no handler running or queued, every unit of
    /// work committed, every outgoing message acknowledged by the service, a background retry that came due (of the
    /// friendships' refresh) tried, and the heartbeat's ping answered (so that virtual time never passes a pong
    /// deadline while the pong is on its way).
    ///
    /// For tests on a virtual clock (`ChatterBotsTesting`): after moving the clock, this is how a test knows that
    /// the work that came due has happened, without sleeping. A bot that cannot reach the service never gets its
    /// messages acknowledged, so bound the wait (cancelling the waiting task ends it). Returns at once before
    /// `run()` and after the bot stopped.
    public func waitUntilIdle() async {
        guard case .running = phase, !isShuttingDown, let parts, let admission else { return }
        while !Task.isCancelled {
            await parts.scheduler.waitUntilCaughtUp()
            await admission.waitUntilProcessed()
            await parts.dispatcher.waitUntilIdle()
            await parts.writer.waitUntilLanesIdle()
            if let heartbeat { await heartbeat.waitUntilAnswered() }
            let now = environment.clock.now
            if parts.outbox.depth > 0 || !parts.messageActions.isIdle || parts.friendshipsRetry.isDue(at: now) {
                // Acknowledgements, message changes and a retry that came due wait on the network: wait for them,
                // or for a cancellation.
                let (outbox, messageActions, friendshipsRetry) = (parts.outbox, parts.messageActions, parts.friendshipsRetry)
                let empty = WakeSignal(clock: environment.clock)
                let waiter = Task(executorPreference: SessionExecutor.preferred) {
                    await outbox.waitUntilEmpty()
                    await messageActions.waitUntilIdle()
                    await friendshipsRetry.waitUntilChanged(ifDueAt: now)
                    empty.wake()
                }
                await empty.wait()
                waiter.cancel()
                continue
            }
            guard case .running = phase, !isShuttingDown else { return }
            if parts.scheduler.isCaughtUp && parts.dispatcher.isIdle && parts.writer.lanesAreIdle
                && parts.outbox.depth == 0 && parts.messageActions.isIdle && heartbeat?.awaitsPong != true
                && !parts.friendshipsRetry.isDue(at: environment.clock.now) { return }
        }
    }

    /// Returns true once every frame the service wrote to the bot's connection before now has been read and routed
    /// (the round trip of a `ping`); false when no connection runs. Followed by `waitUntilIdle()`, a test knows that
    /// the bot has handled what a test user did, a friend request or an edit as well as a message.
    package func roundTrip() async -> Bool {
        guard case .running = phase, !isShuttingDown, let heartbeat else { return false }
        return await heartbeat.roundTrip()
    }

    /// The bot's state now and then each change of it; the stream ends once the bot stopped. For tests that wait
    /// for a state (live, reconnecting…) instead of polling `status`.
    package func stateChanges() -> AsyncStream<BotStatus.State> {
        let (stream, continuation) = AsyncStream.makeStream(of: BotStatus.State.self)
        continuation.yield(state)
        if case .finished = phase {
            continuation.finish()
            return stream
        }
        nextStateObserver += 1
        let id = nextStateObserver
        stateObservers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopObservingState(id) }
        }
        return stream
    }

    private func stopObservingState(_ id: UInt64) {
        stateObservers[id] = nil
    }

    /// From now on tells `reporter` each change of the bot's state and connection, starting with where it is now
    /// (`StateReportingBot`, for the supervisor's probes).
    package func reportStates(to reporter: BotStateReporter) {
        stateReporter = reporter
        reportedState = nil
        reportState()
    }

    /// The presence the bot last heard for `userId` (its presence snapshot and the changes since), as its
    /// handlers see it through `context.presence.lastKnown(of:)`; nil when it heard none, or the bot is not running.
    public func presence(of userId: User.ID) -> Presence? {
        parts?.presence.presence(of: userId)
    }

    /// Messages in and out per minute over the last hour, oldest first (60 values, the last for the current minute).
    public nonisolated var messagesPerMinute: [Int] { metrics.messagesPerMinute }

    /// Where the bot is now, with its counters.
    public var status: BotStatus {
        var status = BotStatus(
            name: name, state: state, connected: isConnected, since: since, userId: parts?.identity.device?.userId,
            lastError: metrics.lastError, reconnects: metrics.reconnects.load(ordering: .relaxed),
            messagesIn: metrics.messagesIn.load(ordering: .relaxed), messagesOut: metrics.messagesOut.load(ordering: .relaxed),
            outboxDepth: parts?.outbox.depth ?? 0, handlerLatency: metrics.handlerLatency,
            stopReason: state == .stopped ? stopReason?.description : nil,
            messagesExpired: metrics.messagesExpired.load(ordering: .relaxed),
            quarantined: metrics.quarantined.load(ordering: .relaxed), firstLiveAt: firstLiveAt)
        if state == .reconnecting, let reconnectAt, reconnectAt > environment.clock.now { status.reconnectAt = reconnectAt }
        return status
    }

    private var isConnected: Bool {
        switch lifecycle.state {
        case .synchronizing, .live: true
        default: false
        }
    }

    // MARK: - Inputs

    private func post(_ input: Input) {
        inputs?.yield(input)
    }

    private func handle(_ input: Input) {
        switch input {
        case .lifecycle(let event):
            lifecycleEvent(event)
        case .closed(let generation, let reason):
            if case .synchronizing(generation) = lifecycle.state, syncPlan.syncInterrupted(by: reason) {
                log.warning("the sync's response was too large for this client (\(reason)); the next sync asks for \(syncPlan.conversationsPerRequest) conversations of \(syncPlan.limitPerConversation) messages at a time")
            }
            lifecycleEvent(.closed(generation: generation, reason))
        case .opened(let generation, let connection, let tasks):
            opened(generation, connection, tasks)
        case .synchronized(let generation):
            synchronized(generation)
        case .started:
            guard let parts, let runner else { return }
            parts.dispatcher.open(runner: runner)
            parts.scheduler.start()
        case .fatal(let reason):
            if stopReason == nil { stopReason = reason }
            perform(lifecycle.handle(.stopRequested, now: environment.clock.now, random: &random))
        case .rewind(let conversation, let message):
            admission?.submit(.rewind(conversation, passingOver: message))
        case .lifecycleDue:
            lifecycleDue()
        case .presenceSnapshot(let generation):
            perform(readyGate.snapshotReceived(generation))
        case .presenceSnapshotDue(let generation):
            perform(readyGate.snapshotWaitEnded(generation))
        }
        rearmTimer()
        updateState()
    }

    private func lifecycleEvent(_ event: SessionLifecycle.Event) {
        if case .closed(let generation, let code, let reason) = event { connectionClosed(generation, code: code, reason: reason) }
        perform(lifecycle.handle(event, now: environment.clock.now, random: &random))
        // After the lifecycle read the clock: a test that waits for this line may then move the clock on.
        if case .connected = event { log.debug("the socket is open; waiting \(lifecycle.readyTimeout) for session.ready") }
    }

    private func perform(_ actions: [SessionLifecycle.Action]) {
        for action in actions {
            switch action {
            case .signIn(let method, let generation):
                signIn(method, generation: generation)
            case .clearSessionData:
                clearSessionData()
            case .connect(let generation):
                connect(generation: generation)
            case .synchronize(let generation):
                synchronize(generation: generation)
            case .closeConnection(let generation, let reason):
                closeConnection(generation, reason)
            case .scheduleReconnect(let date, let reason):
                releaseStartupTicket()
                let wait = date.timeIntervalSince(environment.clock.now)
                reconnectAt = date
                log.notice("reconnecting in \(String(format: "%.1f", max(0, wait))) s: \(reason)")
                if case .closed = reason { metrics.setLastError(reason.description) }
                if case .signInFailed = reason { metrics.setLastError(reason.description) }
            case .stop(let reason):
                releaseStartupTicket()
                if stopReason == nil { stopReason = BotStopReason(reason) }
                if case .requested = reason {
                    log.info("stopping")
                } else {
                    log.error("the bot stops: \(reason.message)")
                    metrics.setLastError(reason.message)
                }
            }
        }
    }

    // MARK: - Signing in

    private func signIn(_ method: SignInMethod, generation: UInt64) {
        guard let parts else { return }
        let clearing = sessionClearing
        sessionClearing = nil
        let stale = method == .refreshToken ? lastConnectToken : nil
        let signIn = parts.makeSignIn()
        log.debug("signing in: \(method)")
        let task = Task(executorPreference: SessionExecutor.preferred) { [weak self] in
            await clearing?.value
            let failure = await signIn.signIn(method, staleAccessToken: stale)
            await self?.signInFinished(generation)
            if let failure {
                await self?.post(.lifecycle(.signInFailed(generation: generation, failure)))
            } else {
                await self?.post(.lifecycle(.signedIn(generation: generation)))
                await self?.startIfNeeded()
            }
        }
        signInTask = (generation, task)
    }

    private func clearSessionData() {
        guard let parts else { return }
        let signIn = parts.makeSignIn()
        let previous = sessionClearing
        sessionClearing = Task(executorPreference: SessionExecutor.preferred) {
            await previous?.value
            await signIn.clearSession()
        }
    }

    private func signInFinished(_ generation: UInt64) {
        if signInTask?.generation == generation { signInTask = nil }
    }

    /// After the first sign-in: `onStart`, then the dispatcher and the scheduler. Events that arrive meanwhile
    /// wait in their lanes.
    private func startIfNeeded() {
        guard !hasStarted, !isTornDown, let runner, let timers else { return }
        hasStarted = true
        let timeout = environment.handlerTimeout
        startTask = Task(executorPreference: SessionExecutor.preferred) { [weak self] in
            await runner.runStart(timeout: timeout, timers: timers)
            guard !Task.isCancelled else { return }
            await self?.post(.started)
        }
    }

    // MARK: - Connecting

    private func connect(generation: UInt64) {
        guard let parts, let timers else { return }
        connects += 1
        if connects > 1 { metrics.countReconnect() }
        let environment = environment
        let options = RealtimeConnectionOptions(
            requestTimeout: environment.pongTimeout, clock: environment.clock,
            webSocket: lifecycle.socketConfiguration(from: environment.webSocket), taskExecutor: SessionExecutor.preferred)
        let heartbeat = HeartbeatDriver(
            pongTimeout: environment.pongTimeout, clock: environment.clock, log: log, timers: timers, generation: generation)
        self.heartbeat = heartbeat
        // Reports go straight into the actor's input stream: no hop onto the actor to hand them over.
        let inputs = inputs
        let task = Task(executorPreference: SessionExecutor.preferred) { [weak self] in
            guard let tokens = await parts.tokenStore.tokens else {
                inputs?.yield(.lifecycle(.closed(generation: generation, code: 4001, reason: "no access token")))
                return
            }
            await self?.noteConnectToken(tokens.accessToken)
            let connection: ChatterRealtimeConnection
            do throws(RealtimeError) {
                // The lifecycle bounds the wait for `session.ready` (its ready timeout cancels this task).
                connection = try await ChatterRealtimeConnection.connect(
                    configuration: environment.server, accessToken: tokens.accessToken, options: options
                ) {
                    inputs?.yield(.lifecycle(.connected(generation: generation)))
                }
            } catch {
                inputs?.yield(.lifecycle(.closed(generation: generation, connectFailure: error)))
                return
            }
            await ConnectionScope.run(connection, heartbeat: heartbeat) {
                inputs?.yield(.lifecycle(.heartbeatDead(generation: generation)))
            } opened: { tasks in
                inputs?.yield(.opened(generation, connection, tasks))
            }
            inputs?.yield(.closed(generation, await connection.closeReason))
        }
        connection = (generation, task)
    }

    private func noteConnectToken(_ token: String) {
        lastConnectToken = token
    }

    private func opened(_ generation: UInt64, _ connection: ChatterRealtimeConnection, _ tasks: ConnectionTasks) {
        let isCurrent: Bool
        switch lifecycle.state {
        case .connecting(generation, _), .awaitingReady(generation, _): isCurrent = true
        default: isCurrent = false
        }
        guard isCurrent, let parts, let admission, let heartbeat else {
            // The lifecycle gave up on this attempt meanwhile: its scope drops it and reports its close.
            tasks.end()
            return
        }
        let link = RealtimeLink(generation: generation, connection: connection, heartbeat: heartbeat)
        perform(readyGate.opened(generation, now: environment.clock.now))
        let inputs = inputs
        let router = parts.makeRouter(admission: admission) { inputs?.yield(.presenceSnapshot(generation)) }
        tasks.startReading { await router.read(link) }
        live = Live(link: link, tasks: tasks)
        parts.receipts.attach(link)
        parts.typing.attach(link, tasks: tasks)
        log.info("connected", ["url": connection.redactedURL, "device": connection.sessionReady.deviceId.rawValue])
        perform(lifecycle.handle(.ready(generation: generation), now: environment.clock.now, random: &random))
    }

    private func synchronize(generation: UInt64) {
        guard let parts, let admission, let live, live.link.generation == generation else { return }
        let synchronizer = parts.makeSynchronizer(admission: admission)
        let isFirst = !hasSynchronized
        let plan = syncPlan
        let link = live.link
        let log = log
        let inputs = inputs
        live.tasks.add {
            do {
                let friendshipsFailure = try await synchronizer.synchronize(on: link, isFirst: isFirst, plan: plan)
                inputs?.yield(.synchronized(generation))
                if let friendshipsFailure {
                    await synchronizer.refreshFriendshipsUntilDone(after: friendshipsFailure, trace: "sync-\(generation)")
                }
            } catch {
                parts.friendshipsRetry.set(nil)  // the next sync refreshes them
                // Cancelled with its connection, or its request failed as the connection ended: the `.closed`
                // report says what happened, and its close code decides the reconnect.
                if Task.isCancelled { return }
                if let error = error as? RealtimeError, case .closed = error { return }
                log.warning("synchronization failed: \(error)")
                inputs?.yield(.lifecycle(.syncFailed(generation: generation, retryAfter: RateLimitDelay.asked(by: error))))
            }
        }
    }

    private func synchronized(_ generation: UInt64) {
        guard case .synchronizing(generation) = lifecycle.state, let parts, let live else { return }
        perform(lifecycle.handle(.syncFinished(generation: generation), now: environment.clock.now, random: &random))
        hasSynchronized = true
        syncPlan.synchronized()
        releaseStartupTicket()
        parts.outbox.resume(on: live.link)
        parts.messageActions.start()
        log.info("live", ["outbox": String(parts.outbox.depth)])
        perform(readyGate.synchronized(generation))
    }

    /// Carries out the `ReadyGate`'s actions: its deadline on the session's timers, and `onReady`.
    private func perform(_ actions: [ReadyGate.Action]) {
        for action in actions {
            switch action {
            case .scheduleSnapshotDeadline(let date, let generation):
                let inputs = inputs
                timers?.schedule(.presenceSnapshot, at: date) { inputs?.yield(.presenceSnapshotDue(generation)) }
            case .cancelSnapshotDeadline:
                timers?.cancel(.presenceSnapshot)
            case .announceReady(let generation, let snapshotMissing):
                guard let parts, let live, live.link.generation == generation else { continue }
                if snapshotMissing {
                    log.notice("no presence snapshot within \(ReadyGate.snapshotWait) of session.ready: onReady runs without it")
                }
                parts.dispatcher.enqueue(
                    .event(.ready(live.link.connection.sessionReady), trace: "ready-\(generation)"), in: .events)
                let admission = admission
                parts.quarantine.readyEnqueued { await admission?.waitUntilProcessed() }
            }
        }
    }

    private func closeConnection(_ generation: UInt64, _ reason: SessionLifecycle.DisconnectReason) {
        if let live, live.link.generation == generation {
            if reason == .stopping || reason == .refreshRefused {
                if reason == .refreshRefused {
                    log.warning("the service refused the device's tokens on a REST request: closing the connection to sign in again with the password")
                }
                let connection = live.link.connection
                live.tasks.add { await connection.close() }
            } else {
                log.warning("dropping the connection: \(reason)")
                live.link.connection.abort()
            }
        } else if let connection, connection.generation == generation {
            // Not taken yet: cancelling its task ends the connect, or the scope waiting for the `.opened` answer.
            connection.task.cancel()
        }
    }

    /// The connection of `generation` ended: everything tied to it stops; entries in flight go back to the outbox.
    private func connectionClosed(_ generation: UInt64, code: UInt16, reason: String) {
        if connection?.generation == generation { connection = nil }
        guard let live, live.link.generation == generation else { return }
        self.live = nil
        parts?.outbox.suspend(generation: generation, closeCode: code)
        parts?.receipts.detach(generation: generation)
        parts?.typing.detach(generation: generation)
        if code == 4008 {
            parts?.outbox.rateLimited(retryAfter: RateLimitDelay(serverValue: reason).delay)
        }
        let meaning = CloseCodeReaction.meaning(ofCode: code)
        if code == 1000 && isShuttingDown {
            log.info("connection closed")
        } else {
            log.notice("connection closed: \(code) (\(meaning))", ["reason": reason])
        }
    }

    // MARK: - Timer and state

    /// Keeps the lifecycle's `nextDeadline` on the session's timers.
    private func rearmTimer() {
        let deadline = lifecycle.nextDeadline
        guard deadline != lifecycleDeadline else { return }
        lifecycleDeadline = deadline
        gateEntry?.cancel()
        gateEntry = nil
        guard let timers else { return }
        guard let deadline else {
            timers.cancel(.lifecycle)
            return
        }
        let inputs = inputs
        timers.schedule(.lifecycle, at: deadline) { inputs?.yield(.lifecycleDue) }
    }

    /// The lifecycle's deadline came. A reconnect (every attempt after the first, 4001's refresh and 4003's fresh
    /// sign-in included, leaves from `.waitingToReconnect`) waits for its turn at the startup gate once its backoff
    /// is over, before the attempt's own timeouts run; anything else fires at once.
    private func lifecycleDue() {
        if case .waitingToReconnect = lifecycle.state, startupTicket == nil, let gate = environment.startupGate {
            guard gateEntry == nil else { return }
            let inputs = inputs
            gateEntry = Task(executorPreference: SessionExecutor.preferred) { [weak self] in
                guard let ticket = await gate.enter() else { return }
                await self?.adoptStartupTicket(ticket)
                inputs?.yield(.lifecycle(.timerFired))
            }
            return
        }
        lifecycleDeadline = nil  // fired: a deadline still pending is scheduled again
        perform(lifecycle.handle(.timerFired, now: environment.clock.now, random: &random))
    }

    /// The reconnect whose backoff just ended was admitted by the gate: hold its ticket until the attempt is over.
    private func adoptStartupTicket(_ ticket: StartupGate.Ticket) {
        guard case .waitingToReconnect = lifecycle.state, startupTicket == nil, !isShuttingDown else {
            ticket.release()
            return
        }
        startupTicket = ticket
    }

    private func releaseStartupTicket() {
        startupTicket?.release()
        startupTicket = nil
    }

    private func updateState() {
        let next: BotStatus.State
        switch lifecycle.state {
        case .signedOut: next = .starting
        case .signingIn: next = .signingIn
        case .connecting, .awaitingReady: next = hasSynchronized ? .reconnecting : .connecting
        case .synchronizing: next = .synchronizing
        case .live: next = .live
        case .disconnecting, .waitingToReconnect: next = .reconnecting
        case .stopped: next = .stopping
        }
        setState(isShuttingDown && next != .stopped ? .stopping : next)
        reportState()  // the connection may change without the state (a shutdown while live)
    }

    private func setState(_ next: BotStatus.State) {
        guard next != state else { return }
        state = next
        since = environment.clock.now
        if next == .live && firstLiveAt == nil { firstLiveAt = since }
        for observer in stateObservers.values { observer.yield(next) }
        reportState()
    }

    /// Tells `stateReporter` where the bot is, when that changed since it was told last.
    private func reportState() {
        guard let stateReporter else { return }
        let now = (state: state, connected: isConnected, hasBeenLive: firstLiveAt != nil)
        if let reportedState, reportedState == now { return }
        reportedState = now
        stateReporter.report(now.state, connected: now.connected, hasBeenLive: now.hasBeenLive)
    }

    // MARK: - The end

    private func tearDown() async {
        isTornDown = true
        timers?.stop()
        startTask?.cancel()
        gateEntry?.cancel()
        gateEntry = nil
        releaseStartupTicket()
        signInTask?.task.cancel()
        parts?.quarantine.stop()
        admission?.stop()
        if let parts {
            parts.scheduler.stop()
            parts.maintenance.stop()
            parts.dispatcher.cancelAll()
            parts.quarantine.close()
            parts.writer.stopLanes()
            parts.outbox.stop()
            parts.messageActions.stop()
        }
        if let live {
            // Closed gracefully, its scope ends once the reader has handed over every frame before the close.
            _ = await live.link.connection.close()
            await connection?.task.value
        } else if let connection {
            // A connect still opening ends once cancelled; awaited, so that its socket is closed before `run()`
            // returns (a reload's new session of the bot would otherwise hold a second one for a moment).
            connection.task.cancel()
            await connection.task.value
        }
        live = nil
        connection = nil
        if let parts {
            // The reader has handed over every ack that came before the close (the close handshake included);
            // their batches are written before the store closes, until the shutdown deadline, or at least for a
            // short grace: they are in memory already and need no network.
            let now = environment.clock.now
            let graceEnd = now.addingTimeInterval(OutboxSender.finalAckRecordingGrace.timeInterval)
            await parts.outbox.finishRecordingAcks(before: max(shutdownEnd ?? now, graceEnd))
            // A revoked device stopped before its fresh sign-in has forgotten its data before the store closes.
            await sessionClearing?.value
            sessionClearing = nil
            await parts.store.close()
        }
        inputs?.finish()
        inputs = nil
    }

    private func finish(_ reason: BotStopReason) -> BotStopReason {
        releaseStartupTicket()  // a first start that failed before the session ran still holds its ticket
        phase = .finished(reason)
        if opensStore { StoreHandOff<BotSession>.shared.release(environment.storeURL(forBot: name).path) }
        wakeStoreWaiters()
        stopReason = reason
        if case .crashing = reason { setState(.crashing) } else { setState(.stopped) }
        log.info("stopped: \(reason)")
        let waiters = finishedWaiters
        finishedWaiters = []
        for waiter in waiters { waiter.resume() }
        let observers = stateObservers
        stateObservers = [:]
        for observer in observers.values { observer.finish() }
        return reason
    }

    // MARK: - Quarantine

    /// The bot's quarantined work, oldest first (read from its store, open or not).
    package func quarantineEntries() async throws(BotStoreError) -> [QuarantineEntry] {
        switch try await withStore({ store throws(BotStoreError) in try await store.quarantined() }) {
        case .done(let entries): return entries
        case .through(let session): return try await session.quarantineEntries()
        }
    }

    /// Hands the quarantined entry `id` to its handler again: at once when the bot runs (`runsNow`), else at its
    /// next start. Returns the entry, nil when there is none.
    package func retryQuarantined(_ id: Int64) async throws(BotStoreError) -> (entry: QuarantineEntry, runsNow: Bool)? {
        let noted: (entry: QuarantineEntry, wasPending: Bool)?
        switch try await withStore({ store throws(BotStoreError) in try await store.requestRetryNoting(of: id) }) {
        case .done(let result): noted = result
        case .through(let session): return try await session.retryQuarantined(id)
        }
        guard let (entry, wasPending) = noted else { return nil }
        if case .running = phase, hasStarted, let parts {
            // A retry asked for before is queued or running already (its entry leaves once its work commits).
            if !wasPending { parts.quarantine.retry(entry) }
            await parts.quarantine.reread()
            return (entry, true)
        }
        return (entry, false)
    }

    /// Forgets the quarantined entry `id`; returns whether there was one.
    package func dropQuarantined(_ id: Int64) async throws(BotStoreError) -> Bool {
        if case .running = phase, !isTornDown, let parts {
            return try await parts.quarantine.drop(id)
        }
        let metrics = metrics
        let dropped = try await withStore { store throws(BotStoreError) in
            guard try await store.dropQuarantined(id) else { return false }
            // A stopped bot's status counts what is left.
            metrics.quarantined.store(try await store.quarantined().count, ordering: .relaxed)
            return true
        }
        switch dropped {
        case .done(let dropped): return dropped
        case .through(let session): return try await session.dropQuarantined(id)
        }
    }

    /// Where `withStore(_:)` carried out a request.
    private enum StoreRoute<T: Sendable>: Sendable {
        /// With this session's store, or with the file opened for the request: `body` returned this.
        case done(T)
        /// Another session of the bot (a reload's) opened the store meanwhile: the request is to go through it.
        case through(BotSession)
    }

    /// Runs `body` with the bot's store: the open one while the bot runs, else the file opened for the call. While
    /// the session opens its store, the call waits for it, and while it tears down (closing the store), for its end;
    /// while the call has the file open, the session's open waits (a store is open once in a process). While another
    /// session of the bot claims the file, the call waits, as long as a handler may run, for that session to open
    /// the store (then the call goes through it) or to end without (then the call opens the file).
    private func withStore<T: Sendable>(
        _ body: (BotStore) async throws(BotStoreError) -> T
    ) async throws(BotStoreError) -> StoreRoute<T> {
        while case .running = phase, isTornDown || (parts == nil && opensStore) {
            await withCheckedContinuation { storeWaiters.append($0) }
        }
        if case .running = phase, let parts { return .done(try await body(parts.store)) }
        let path = environment.storeURL(forBot: name).path
        let clock = environment.clock
        // A claim waits only for the requests that have the file, then opens it: the longest a piece of the bot's
        // work may take bounds that generously, and a request past it is told to come again.
        let bound = environment.handlerTimeout
        switch await StoreHandOff<BotSession>.shared.request(
            path, waitingUntil: clock.now.addingTimeInterval(bound.timeInterval), on: clock)
        {
        case .borrowed: break
        case .session(let session): return .through(session)
        case .stillClaimed: throw .stillOpening(path: path, waited: bound)
        }
        defer { StoreHandOff<BotSession>.shared.giveBack(path) }
        let store = try await BotStore.open(path: path, clock: environment.clock)
        do {
            let result = try await body(store)
            await store.close()
            return .done(result)
        } catch {
            await store.close()
            throw error
        }
    }

    private func wakeStoreWaiters() {
        let waiters = storeWaiters
        storeWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    private func waitUntilFinished() async {
        if case .finished = phase { return }
        await withCheckedContinuation { finishedWaiters.append($0) }
    }

    /// Creates the data directory (owner-only) unless it exists. Every bot asks as it starts: one `mkdir` answers
    /// that it exists; the missing parents and the errors are left to `FileManager`.
    private static func makeDirectory(_ url: URL) throws {
        guard mkdir(url.path, 0o700) != 0 else { return }
        if errno == EEXIST { return }
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
