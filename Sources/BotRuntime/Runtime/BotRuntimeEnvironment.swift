import ChatterBots
import Foundation
// `BotRuntimeEnvironment.receipts` is a ChatterBots type: code that imports BotRuntime alone names it here too, as
// `ReceiptPolicy` or `BotRuntime.ReceiptPolicy`.
@_exported import struct ChatterBots.ReceiptPolicy
import SQLite
import WebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every bot session of a process shares: the server, where the bots keep their files, the clock every timer
/// reads, the log sink, and the tuning of handlers, receipts and reconnects (a bot's send pacing is in its
/// `BotConfiguration`).
///
/// The defaults follow the realtime seed and are right for production; tests shorten or virtualise them (a
/// `ManualClock` shared with the sandbox, a fixed `randomSeed` for reproducible jitter).
public struct BotRuntimeEnvironment: Sendable {
    /// The Chatter service (or the sandbox) the bots talk to.
    public var server: ChatterServerConfiguration
    /// The directory of the bots' SQLite files (`<name>.sqlite`), created owner-only when missing.
    public var dataDirectory: URL
    /// The time source of every timer: backoff, heartbeat, handler timeouts, schedules, pacing.
    public var clock: any ChatterClock
    /// Where the runtime's and the bots' log records go.
    public var logSink: LogSink
    /// Seeds the backoff jitter; nil draws a seed from the system (every bot then jitters differently).
    public var randomSeed: UInt64?
    /// How long a handler may run before it is cancelled and its work discarded (the bot goes on).
    public var handlerTimeout: Duration
    /// How many handlers of one bot run at once, across conversations (one at a time within a conversation).
    public var maxConcurrentHandlers: Int
    /// How many messages of one conversation may wait for their handler, or wait parked behind a gap, before the
    /// rest are left on the server and fetched again (once the backlog shrinks; from the gap): neither a hung
    /// handler nor a message the service never delivered can make memory grow without bound.
    public var conversationBacklogLimit: Int
    /// How long messages may wait parked behind a missing seq before the bot fetches the conversation over REST
    /// from its contiguous seq: a `message.new` lost on the way is recovered without waiting for a reconnect.
    public var gapFillDelay: Duration
    /// Which receipts the bots send, unless a bot's configuration says (`BotConfiguration.receipts`).
    public var receipts: ReceiptPolicy
    /// How long after its first send an unacknowledged outbox entry may still be resent: the service turns a
    /// repeated `clientMessageId` into the same message for 24 hours, so an entry first sent longer ago is failed
    /// with `OutgoingMessageExpired` instead of risking a duplicate. An entry never sent is not limited.
    public var outboxResendWindow: Duration
    /// Failures tests inject into the bots' stores; nil outside tests.
    var storeFaults: StoreFaults?
    /// The reconnect backoff (1, 2, 4, 8, 16, 30 s, ±20 %).
    public var reconnectPolicy: ReconnectPolicy
    /// The longest a connection may take to open, TCP connect, TLS and upgrade together, measured on `clock`. It is
    /// the one bound of a bot's connect: `webSocket`'s connect and handshake timeouts, in real time, are raised to
    /// it for the bots' sockets, so that they never end a connect first.
    public var connectTimeout: Duration
    /// The longest `session.ready` may take once the socket is open.
    public var readyTimeout: Duration
    /// No `pong` within this long after a `ping` means the connection is dead.
    public var pongTimeout: Duration
    /// `limitPerConversation` of `sync.request`; nil for the runtime's default (20). The runtime names so few
    /// conversations per request that the largest possible response stays within half the inbound message limit
    /// (`webSocket.limits`); what a conversation has beyond the limit is paged over REST.
    public var syncLimitPerConversation: Int?
    /// How long one `sync.request` may wait for its `sync.response` (a large catch-up takes longer than a pong).
    public var syncTimeout: Duration
    /// `limit` of the REST pages that follow a sync with `hasMore`.
    public var messagePageSize: Int
    /// How many conversations the service lists in a full page of `GET /conversations` (100, by the contract): a
    /// start's refresh asks for the next page only after a full one.
    public var conversationPageSize: Int
    /// Where the bot starts in a conversation it discovers: from its first message (answer what was said while
    /// the bot did not know the conversation) or after its last one.
    public var newConversationStart: ConversationStart
    /// The `synchronous` level of the bots' SQLite files (see `BotStore`: NORMAL loses nothing on a process crash).
    public var storeSynchronousMode: SynchronousMode
    /// When an idle bot's store closes its database connection (two file descriptors, its statements and page
    /// cache) until the bot needs it again; with a ``ConnectionBudget``, the most stores open at once across the
    /// process. nil keeps every store open while its bot runs. Default: statements and page cache freed after 10 s
    /// without use (~50 KiB a store; the next message compiles its statements again, a few hundred microseconds),
    /// dormant after 30 s, under ``defaultStoreBudget``.
    public var storeDormancy: DatabaseDormancy?
    /// The threads the bots' stores run their SQLite work on, shared by every store; nil gives each store a thread
    /// of its own while it works (with 1,000 bots starting, ~125 threads). Default: ``DatabaseWorkers/shared``.
    public var storeWorkers: DatabaseWorkers?

    /// The budget of open stores every environment made with the defaults shares: half of the process's open-file
    /// limit (at three descriptors a store: the file, its log and its lock), so that stores never starve the bots'
    /// sockets. With 20,000 descriptors, 3,290 stores open at once; below that number of bots it never closes a
    /// store early.
    public static let defaultStoreBudget = ConnectionBudget.fittingOpenFileLimit(
        reservedDescriptors: Self.openFileLimit / 2 + 128, descriptorsPerConnection: 3)

    private static var openFileLimit: Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max else { return 1 << 20 }
        return Int(clamping: limits.rlim_cur)
    }
    /// How many bots may be starting at once (store opened, signing in, connecting, synchronizing), the first
    /// start and every reconnect after a failure alike; nil admits them all at once. Default:
    /// ``defaultStartupGate``, shared by every environment made with the defaults.
    public var startupGate: StartupGate?

    /// The gate every environment made with the defaults shares: half of ``defaultStoreBudget``'s slots, at most
    /// ``StartupGate/defaultLimit``.
    public static let defaultStartupGate = StartupGate(fitting: defaultStoreBudget)

    /// How WebSockets are opened: TLS trust, timeouts, frame limits. A bot's connect is bounded by `connectTimeout`;
    /// the connect and handshake timeouts here count for it only where they are longer (a bound in real time when
    /// `clock` is virtual).
    public var webSocket: WebSocketClientConfiguration

    /// What carries the bots' REST requests: by default the process's shared built-in HTTP client (kept
    /// connections shared by every bot); `.builtIn(HTTPClient(configuration:))` for other TLS trust or limits,
    /// `.urlSession` for a proxy.
    public var restTransport: ChatterHTTPTransport

    /// Where each bot session's tasks run: by default on an event loop of `webSocket`'s group, with its socket.
    public var sessionExecution: SessionExecution

    /// How many crashes set a piece of handler work aside, and how many quarantines in an hour stop a bot
    /// (`docs/quarantine.md`).
    public var quarantine: QuarantineSettings
    /// The process's table of the handler work running now (`InFlightTable`); nil: work is not marked, and a crash
    /// is neither reported by bot and handler nor remembered.
    package var inFlightTable: InFlightTable?
    /// Lets one crash suspect run at a time in the process: every session of a process must share it.
    package var suspectGate: SuspectGate
    /// The threads the kinds' `make`s run on, bounded however often they hang: every session of a process must share
    /// them. Default: as many at once as ``defaultStartupGate`` starts bots.
    package var makeThreads: MakeThreads
    /// The bots' accounts may not exist yet, made by another process (the shard that embeds the shared sandbox):
    /// a refused password login is retried with backoff instead of stopping the bot.
    package var accountsMayAppear = false
    /// The most bytes a REST response of these endpoints may hold; nil: the contract's bounds
    /// (`ChatterEndpoint.largestResponse`). Lower ones let a test exceed them without megabytes of data.
    package var largestRESTResponses: [ChatterEndpoint: Int]?
    /// How long one REST request of a bot may take in all, in real time: the production bounds unless a test gives
    /// its hang guards, which a stalled machine cannot outlast.
    package var restRequestTimeouts = RESTRequestTimeouts()

    /// An environment with the documented defaults.
    public init(
        server: ChatterServerConfiguration, dataDirectory: URL, clock: any ChatterClock = SystemClock(),
        logSink: LogSink = .discarding
    ) {
        self.server = server
        self.dataDirectory = dataDirectory
        self.clock = clock
        self.logSink = logSink
        self.randomSeed = nil
        self.handlerTimeout = .seconds(30)
        self.maxConcurrentHandlers = 16
        self.conversationBacklogLimit = 1000
        self.gapFillDelay = .seconds(5)
        self.receipts = ReceiptPolicy()
        self.outboxResendWindow = OutboxStateMachine.serviceIdempotencyWindow
        self.reconnectPolicy = ReconnectPolicy()
        self.connectTimeout = .seconds(15)
        self.readyTimeout = .seconds(10)
        self.pongTimeout = HeartbeatMonitor.defaultPongTimeout
        self.syncLimitPerConversation = nil
        self.syncTimeout = .seconds(60)
        self.messagePageSize = 100
        self.conversationPageSize = 100
        self.newConversationStart = .firstMessage
        self.storeSynchronousMode = .normal
        self.storeDormancy = DatabaseDormancy(
            idleTimeout: .seconds(30), memoryReleaseDelay: .seconds(10), budget: Self.defaultStoreBudget)
        self.storeWorkers = .shared
        self.startupGate = Self.defaultStartupGate
        self.webSocket = WebSocketClientConfiguration()
        self.restTransport = .shared
        self.sessionExecution = .eventLoop
        self.quarantine = .default
        self.inFlightTable = nil
        self.suspectGate = SuspectGate()
        self.makeThreads = MakeThreads(fitting: Self.defaultStartupGate)
    }

    /// The store file of the bot named `name`.
    public func storeURL(forBot name: String) -> URL {
        Self.storeURL(forBot: name, in: dataDirectory)
    }

    /// The store file of the bot named `name` in `dataDirectory`.
    public static func storeURL(forBot name: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("\(name).sqlite", isDirectory: false)
    }
}
