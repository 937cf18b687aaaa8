import ChatterBots
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything a running bot shares between its session actor, its reader, its handlers and its background
/// tasks: the store, the REST client, the dispatcher, the outbox, receipts, typing, schedule and directories,
/// plus who the bot is once signed in. Created when `BotSession.run()` has opened the store.
final class SessionServices: Sendable {
    /// The signed-in account and device.
    struct Identity: Sendable, Equatable {
        var userId: User.ID
        var deviceId: Device.ID
    }

    let name: String
    let bot: any Bot
    let configuration: BotConfiguration
    let environment: BotRuntimeEnvironment
    let clock: any ChatterClock
    let store: BotStore
    let rest: ChatterRESTClient
    let tokenStore: ChatterTokenStore
    let log: SessionLog
    let metrics: SessionMetrics
    let dispatcher: HandlerDispatcher
    let outbox: OutboxSender
    let receipts: ReceiptSender
    let typing: TypingIndicators
    let scheduler: JobScheduler
    let presence: PresenceDirectory
    let friends: FriendDirectory
    /// Friend requests the bot left pending, not asked about again.
    let ignoredRequests: IgnoredFriendRequests
    let commits: LaneCommitter
    let maintenance: StoreMaintenance
    private let identityState: IdentityState
    /// The `expiresIn` of the sign-in whose tokens are about to be stored (nil: not known).
    private let expiresIn: TokenLifetimeNote
    private let onFatal: @Sendable (BotStopReason) -> Void

    init(
        configuration: BotConfiguration, bot: any Bot, environment: BotRuntimeEnvironment, store: BotStore,
        log: SessionLog, metrics: SessionMetrics, identity: Identity?, timers: DeadlineScheduler<SessionDeadline>,
        onRewind: @escaping @Sendable (Conversation.ID, _ passingOver: Message?) -> Void,
        onFatal: @escaping @Sendable (BotStopReason) -> Void
    ) {
        self.name = configuration.name
        self.bot = bot
        self.configuration = configuration
        self.environment = environment
        self.clock = environment.clock
        self.store = store
        self.log = log
        self.metrics = metrics
        self.onFatal = onFatal
        let identityState = IdentityState(identity)
        self.identityState = identityState
        let expiresIn = TokenLifetimeNote()
        self.expiresIn = expiresIn
        // Rotated tokens are stored before they are used (the old refresh token no longer works): the token store
        // awaits this before any caller sees the new pair.
        let clock = environment.clock
        self.tokenStore = ChatterTokenStore(tokens: nil) { tokens in
            guard let tokens, let identity = identityState.value else { return }
            do {
                try await store.saveSession(StoredSession(
                    userId: identity.userId, deviceId: identity.deviceId, accessToken: tokens.accessToken,
                    refreshToken: tokens.refreshToken,
                    accessTokenExpiresAt: clock.now.addingTimeInterval(TimeInterval(
                        expiresIn.take() ?? Self.assumedTokenLifetime))))
            } catch {
                log.error("could not store the rotated tokens: \(error); the next start signs in with the password")
            }
        }
        self.rest = ChatterRESTClient(configuration: environment.server, tokenStore: tokenStore, transport: environment.restTransport)
        let dispatcher = HandlerDispatcher(
            maxConcurrent: environment.maxConcurrentHandlers, timeout: environment.handlerTimeout, clock: clock)
        self.dispatcher = dispatcher
        let outbox = OutboxSender(
            store: store, clock: clock, pacing: configuration.sendPacing, resendWindow: environment.outboxResendWindow,
            log: log, metrics: metrics
        ) { acks, released in
            var own: [Conversation.ID: [Int]] = [:]
            for ack in acks { own[ack.conversationId, default: []].append(ack.seq) }
            for (conversation, seqs) in own { dispatcher.noteOwn(seqs, in: conversation) }
            SessionServices.dispatch(released, to: dispatcher)
        }
        let receipts = ReceiptSender(policy: environment.receipts, log: log)
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
        self.commits = LaneCommitter(
            store: store, clock: clock, log: log, metrics: metrics,
            route: { receipt, unit in
                Self.route(receipt, of: unit, dispatcher: dispatcher, outbox: outbox, receipts: receipts, scheduler: scheduler)
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
            })
    }

    // MARK: - Identity

    var identity: Identity? { identityState.value }

    /// The lifetime assumed for an access token whose `expiresIn` the runtime did not see (a refresh the REST
    /// client made by itself after an `UNAUTHORIZED`): the service's usual hour.
    static let assumedTokenLifetime = 3600

    /// The sign-in that produced the tokens about to be stored said they expire in `seconds`.
    func noteExpiresIn(_ seconds: Int) {
        expiresIn.note(seconds)
    }

    /// The bot as handlers see it; nil before the first sign-in.
    var botIdentity: BotIdentity? {
        identity.map { BotIdentity(name: name, userId: $0.userId) }
    }

    func setIdentity(_ identity: Identity?) {
        identityState.value = identity
    }

    // MARK: - Friend requests already decided

    // MARK: - Committing

    /// Carries out what a commit stored: outbox entries to the sender, the read receipt, released messages to
    /// their lanes, the schedule.
    static func route(
        _ receipt: CommitReceipt, of unit: UnitOfWork, dispatcher: HandlerDispatcher, outbox: OutboxSender,
        receipts: ReceiptSender, scheduler: JobScheduler
    ) {
        outbox.enqueue(receipt.entriesToSend)
        if let contiguous = receipt.contiguousSeq, case .message(let message) = unit.trigger {
            dispatcher.noteContiguous(contiguous, in: message.conversationId)
            receipts.read(contiguous, in: message.conversationId)
        }
        dispatch(receipt.released, to: dispatcher)
        if receipt.job != nil || !unit.jobChanges.isEmpty {
            scheduler.wake()
        }
    }

    /// Queues messages the store handed out in their conversations' lanes.
    static func dispatch(_ messages: [Message], to dispatcher: HandlerDispatcher) {
        guard !messages.isEmpty else { return }
        if messages.count == 1, let message = messages.first {
            dispatcher.enqueue(.message(message), in: .conversation(message.conversationId))
            return
        }
        var byConversation: [Conversation.ID: [HandlerWork]] = [:]
        var order: [Conversation.ID] = []
        for message in messages {
            if byConversation[message.conversationId] == nil { order.append(message.conversationId) }
            byConversation[message.conversationId, default: []].append(.message(message))
        }
        for conversation in order {
            dispatcher.enqueue(byConversation[conversation] ?? [], in: .conversation(conversation))
        }
    }

    /// Stops the bot for good (a storage failure that retrying did not fix).
    func fail(_ reason: BotStopReason) {
        onFatal(reason)
    }
}

/// The signed-in identity, shared with the token store's persistence callback.
/// The `expiresIn` of a sign-in, from the request that returned it to the storing of its tokens.
private final class TokenLifetimeNote: Sendable {
    private let seconds = Mutex<Int?>(nil)

    func note(_ value: Int) { seconds.withLock { $0 = value } }

    func take() -> Int? { seconds.withLock { $0.take() } }
}

private final class IdentityState: Sendable {
    private let state: Mutex<SessionServices.Identity?>

    init(_ identity: SessionServices.Identity?) {
        state = Mutex(identity)
    }

    var value: SessionServices.Identity? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
