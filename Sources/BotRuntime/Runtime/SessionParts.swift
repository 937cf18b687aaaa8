import ChatterBots
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The parts of a running bot, built and wired together once `BotSession.run()` has opened its store: the REST
/// client and its token persistence, the dispatcher, the outbox, receipts, typing, the job schedule and the
/// directories, and the store writer's lanes. Only the session holds it; every other type is handed exactly
/// what it uses, by the `make…` functions here.
final class SessionParts: Sendable {
    let configuration: BotConfiguration
    let environment: BotRuntimeEnvironment
    let store: BotStore
    let rest: ChatterRESTClient
    let tokenStore: ChatterTokenStore
    let log: SessionLog
    let metrics: SessionMetrics
    let identity: SessionIdentity
    let dispatcher: HandlerDispatcher
    let outbox: OutboxSender
    let receipts: ReceiptSender
    let typing: TypingIndicators
    let scheduler: JobScheduler
    let presence: PresenceDirectory
    let readState: ReadStateDirectory
    let friends: FriendDirectory
    /// Friend requests the bot left pending, not asked about again.
    let ignoredRequests: IgnoredFriendRequests
    /// When the friendships' refresh, failed after a `session.ready`, is tried again.
    let friendshipsRetry = RetryDeadline()
    let maintenance: StoreMaintenance
    /// Carries out the edits, deletions and reactions handlers committed.
    let messageActions: MessageActionPerformer
    /// Marks running work, runs crash suspects alone and sets aside what keeps crashing the process.
    let quarantine: SessionQuarantine
    private let timers: DeadlineScheduler<SessionDeadline>
    /// The `expiresIn` of the sign-in whose tokens are about to be stored.
    private let tokenLifetime: TokenLifetimeNote

    /// The lifetime assumed for an access token whose `expiresIn` the runtime did not see (a refresh the REST
    /// client made by itself after an `UNAUTHORIZED`): the service's usual hour.
    static let assumedTokenLifetime = 3600

    /// - Parameters:
    ///   - device: the account and device the store holds a session of, if any.
    ///   - onRewind: a refused unit rewound its conversation (passing over the message when given).
    ///   - onRefreshRefused: a REST request found the device's tokens refused (`ChatterTokenStore`).
    ///   - onFatal: the bot must stop for good (a storage failure that retrying did not fix).
    init(
        configuration: BotConfiguration, environment: BotRuntimeEnvironment, store: BotStore,
        log: SessionLog, metrics: SessionMetrics, device: SignedInDevice?, timers: DeadlineScheduler<SessionDeadline>,
        onRewind: @escaping @Sendable (Conversation.ID, _ passingOver: Message?) -> Void,
        onRefreshRefused: @escaping @Sendable () -> Void,
        onFatal: @escaping @Sendable (BotStopReason) -> Void
    ) {
        self.configuration = configuration
        self.environment = environment
        self.store = store
        self.log = log
        self.metrics = metrics
        self.timers = timers
        let identity = SessionIdentity(botName: configuration.name, device: device)
        self.identity = identity
        let tokenLifetime = TokenLifetimeNote()
        self.tokenLifetime = tokenLifetime
        // Rotated tokens are stored before they are used (the old refresh token no longer works): the token store
        // awaits this before any caller sees the new pair.
        let clock = environment.clock
        self.tokenStore = ChatterTokenStore(tokens: nil, onChange: { tokens in
            guard let tokens, let device = identity.device else { return }
            do {
                try await store.saveSession(StoredSession(
                    userId: device.userId, deviceId: device.deviceId, accessToken: tokens.accessToken,
                    refreshToken: tokens.refreshToken,
                    accessTokenExpiresAt: clock.now.addingTimeInterval(TimeInterval(
                        tokenLifetime.take() ?? Self.assumedTokenLifetime))))
            } catch {
                log.error("could not store the rotated tokens: \(error); the next start signs in with the password")
            }
        }, onRefreshRefused: onRefreshRefused)
        var rest = ChatterRESTClient(
            configuration: environment.server, tokenStore: tokenStore, transport: environment.restTransport,
            requestTimeouts: environment.restRequestTimeouts)
        if let bounds = environment.largestRESTResponses { rest.largestResponses = bounds }
        self.rest = rest
        let dispatcher = HandlerDispatcher(
            maxConcurrent: environment.maxConcurrentHandlers, timeout: environment.handlerTimeout, clock: clock,
            timers: timers)
        self.dispatcher = dispatcher
        let readState = ReadStateDirectory()
        self.readState = readState
        let outbox = OutboxSender(
            store: store, clock: clock, pacing: configuration.sendPacing, resendWindow: environment.outboxResendWindow,
            log: log, metrics: metrics
        ) { acks, released in
            var own: [Conversation.ID: [Int]] = [:]
            for ack in acks { own[ack.conversationId, default: []].append(ack.seq) }
            for (conversation, seqs) in own {
                dispatcher.noteOwn(seqs, in: conversation)
                readState.noteOwn(seqs, in: conversation)
            }
            dispatcher.enqueueHandedOut(released)
        }
        let receipts = ReceiptSender(policy: configuration.receipts ?? environment.receipts, log: log)
        self.receipts = receipts
        self.typing = TypingIndicators(clock: clock, timers: timers)
        let scheduler = JobScheduler(store: store, clock: clock, log: log, dispatcher: dispatcher, timers: timers)
        self.scheduler = scheduler
        self.presence = PresenceDirectory()
        self.friends = FriendDirectory(store: store, log: log)
        self.ignoredRequests = IgnoredFriendRequests(store: store, log: log)
        self.maintenance = StoreMaintenance(
            store: store, clock: clock, log: log, lastPass: StoreMaintenance.lastPass(of: store, at: clock.now))
        self.outbox = outbox
        let messageActions = MessageActionPerformer(store: store, rest: rest, clock: clock, log: log, metrics: metrics)
        self.messageActions = messageActions
        self.quarantine = SessionQuarantine(
            bot: configuration.name, settings: environment.quarantine, table: environment.inFlightTable,
            gate: environment.suspectGate, store: store, dispatcher: dispatcher, clock: clock, timers: timers,
            handlerTimeout: environment.handlerTimeout, log: log, metrics: metrics
        ) { reason in onFatal(.crashing(reason)) }
        store.writer.openLanes(StoreWriter.LaneHooks(
            clock: clock, log: log, metrics: metrics,
            route: { receipt, unit in
                Self.route(
                    receipt, of: unit, dispatcher: dispatcher, outbox: outbox, receipts: receipts, scheduler: scheduler,
                    messageActions: messageActions)
            },
            onRefusal: { [recovery = Mutex(RefusalRecovery())] unit, error, epoch in
                // Nothing of the unit was stored: whoever waits for its sends learns it now.
                outbox.failWaiters(of: unit.messages.map(\.clientMessageId), with: error ?? CancellationError())
                // Units taken before the conversation's latest rewind are refused as expected: it goes on from there.
                guard let error, !error.isAlreadyHandled, case .message(let message) = unit.trigger,
                    dispatcher.rewind(message.conversationId, ifEpoch: epoch)
                else { return }
                let decision = recovery.withLock { $0.refused(message) }
                log.warning(
                    decision == .passOver
                        ? "the store refused this message's work \(RefusalRecovery.maxAttempts) times: it counts as handled without its effects, and the conversation goes on"
                        : "the store refused this message's work: the conversation is rewound to what the store holds and goes on from there",
                    trace: unit.traceID, ["conversation": message.conversationId.rawValue, "seq": String(message.seq), "error": error.description])
                onRewind(message.conversationId, decision == .passOver ? message : nil)
            },
            isStale: { unit, epoch in
                guard case .message(let message) = unit.trigger else { return false }
                return dispatcher.isStale(epoch: epoch, in: message.conversationId)
            },
            hasBacklog: { lane in dispatcher.backlog(of: lane) > 0 },
            onFatal: { reason, sends, error in
                outbox.failWaiters(of: sends, with: error)
                onFatal(reason)
            }))
    }

    /// The store's writer, whose lanes take the handlers' units.
    var writer: StoreWriter { store.writer }

    // MARK: - The session's working types

    /// The admission queue of this bot.
    func makeAdmission() -> AdmissionQueue {
        AdmissionQueue(
            store: store, writer: writer, dispatcher: dispatcher, receipts: receipts, outbox: outbox, readState: readState,
            rest: rest, identity: identity, environment: environment, log: log, metrics: metrics, timers: timers)
    }

    /// What runs `bot`'s handlers for the dispatcher.
    func makeRunner(admission: AdmissionQueue, bot: any Bot) -> HandlerRunner {
        HandlerRunner(
            bot: bot, identity: identity,
            contexts: RuntimeBotContext.Dependencies(
                store: store, writer: writer, rest: rest, outbox: outbox, typing: typing, presence: presence,
                readState: readState, clock: environment.clock, log: log),
            friendRequests: configuration.friendRequests, dispatcher: dispatcher, friends: friends,
            ignoredRequests: ignoredRequests, admission: admission, metrics: metrics, quarantine: quarantine)
    }

    /// What signs the bot in.
    func makeSignIn() -> SessionSignIn {
        SessionSignIn(
            credentials: configuration.credentials, identity: identity, tokenStore: tokenStore,
            tokenLifetime: tokenLifetime, store: store, rest: rest, outbox: outbox, friends: friends,
            clock: environment.clock, log: log)
    }

    /// What synchronizes the bot after each `session.ready`.
    func makeSynchronizer(admission: AdmissionQueue) -> SessionSynchronizer {
        SessionSynchronizer(
            store: store, writer: writer, rest: rest, dispatcher: dispatcher, outbox: outbox, friends: friends,
            ignoredRequests: ignoredRequests, friendshipsRetry: friendshipsRetry, maintenance: maintenance,
            admission: admission, readState: readState, identity: identity, environment: environment, log: log,
            metrics: metrics)
    }

    /// What routes a connection's events; `snapshotReceived` is told when its `presence.snapshot` came.
    func makeRouter(admission: AdmissionQueue, snapshotReceived: @escaping @Sendable () -> Void) -> ServerEventRouter {
        ServerEventRouter(
            admission: admission, outbox: outbox, dispatcher: dispatcher, presence: presence, readState: readState,
            identity: identity, ignoredRequests: ignoredRequests, log: log, snapshotReceived: snapshotReceived)
    }

    // MARK: - Committing

    /// Carries out what a commit stored: outbox entries to the sender, message changes to their performer, the read
    /// receipt, released messages to their lanes, the schedule.
    static func route(
        _ receipt: CommitReceipt, of unit: UnitOfWork, dispatcher: HandlerDispatcher, outbox: OutboxSender,
        receipts: ReceiptSender, scheduler: JobScheduler, messageActions: MessageActionPerformer
    ) {
        outbox.enqueue(receipt.entriesToSend)
        messageActions.enqueue(receipt.messageActions)
        if let contiguous = receipt.contiguousSeq, case .message(let message) = unit.trigger {
            dispatcher.noteContiguous(contiguous, in: message.conversationId)
            receipts.read(contiguous, in: message.conversationId)
        }
        dispatcher.enqueueHandedOut(receipt.released)
        if receipt.job != nil || !unit.jobChanges.isEmpty {
            scheduler.wake()
        }
    }
}
