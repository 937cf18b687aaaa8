import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import WebSocket

/// How a `BotTestHarness` sets up the world around the bot under test: the bot's name and account, which friend
/// requests it accepts, where the virtual clock starts, the time zone the test reads local times in, the
/// sandbox's realtime timers, and how long the test waits in real time before failing.
///
/// The defaults suit almost every test; set only what the test is about.
public struct BotTestConfiguration: Sendable {
    /// The bot's name (as in `bots.json`: it names its data file) and its account's username; nil derives it
    /// from the bot kind (`auto-responder` → `auto_responder`), or "bot".
    public var botName: String?
    /// Which incoming friend requests the runtime accepts without asking the bot's code.
    public var friendRequests: FriendRequestPolicy
    /// Where the shared virtual clock starts.
    public var start: Date
    /// The zone of `BotTestHarness.instant(_:)` and `localTime(of:)`: how the test writes and reads wall-clock
    /// times. It is the test's zone, not the bot's: give the bot its zone in its options.
    public var timeZone: TimeZone
    /// The sandbox's realtime timers. By default heartbeats and idle closes are a year apart, so that days of
    /// virtual time pass without pings; typing (5 s) and the presence grace (10 s) are the documented values.
    public var realtime: RealtimeConfiguration
    /// How long, in real time, `nextMessage` waits for the bot before it fails saying what it waited for (120 s by
    /// default). A reply returns as soon as it arrives, so the bound is only ever waited out by a failing test, and
    /// it outlasts the minute a parallel test run on a loaded two-core CI machine can stall a test for.
    public var replyTimeout: Duration
    /// How long, in real time, starting the bot, `settle()` and the waits inside `advance` may take (180 s by
    /// default; starting includes signing in, which hashes a password).
    public var settleTimeout: Duration
    /// Where the runtime's and the bot's log records go (discarded by default; `LogSink(minimumLevel: .debug)` writes them to standard error, to watch a test).
    public var logSink: LogSink
    /// Changes to the runtime environment before each start of the bot (handler timeout, receipts, backoff…).
    /// The clock, the server and the data directory are the harness's own.
    public var environment: @Sendable (inout BotRuntimeEnvironment) -> Void

    /// The password of the bot's account and of every test user.
    public static let password = "correct horse battery staple"

    /// A configuration with the defaults described on each property.
    public init(
        botName: String? = nil, friendRequests: FriendRequestPolicy = .nobody, start: Date = ManualClock.defaultStart,
        timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .gmt,
        realtime: RealtimeConfiguration = BotTestConfiguration.quietRealtime, replyTimeout: Duration = .seconds(120),
        settleTimeout: Duration = .seconds(180), logSink: LogSink = .discarding,
        environment: @escaping @Sendable (inout BotRuntimeEnvironment) -> Void = { _ in }
    ) {
        self.botName = botName
        self.friendRequests = friendRequests
        self.start = start
        self.timeZone = timeZone
        self.realtime = realtime
        self.replyTimeout = replyTimeout
        self.settleTimeout = settleTimeout
        self.logSink = logSink
        self.environment = environment
    }

    /// How long one REST request of the bot or a test user may take in real time: as long as the harness waits for
    /// anything, so that no request times out on a stalled machine before the test would fail anyway.
    package var restRequestTimeouts: RESTRequestTimeouts {
        RESTRequestTimeouts(standard: settleTimeout, media: max(settleTimeout, RESTRequestTimeouts().media))
    }

    /// The test users' realtime sockets: on the real clock, every bound as long as `settleTimeout`.
    package var userConnectionOptions: RealtimeConnectionOptions {
        RealtimeConnectionOptions(
            sessionReadyTimeout: settleTimeout, requestTimeout: settleTimeout, clock: SystemClock(),
            webSocket: WebSocketClientConfiguration(connectTimeout: settleTimeout, handshakeTimeout: settleTimeout))
    }

    /// Heartbeats and idle closes a year apart; the other timers as documented.
    public static let quietRealtime = RealtimeConfiguration(
        heartbeatInterval: .seconds(365 * 86_400), idleTimeout: .seconds(3 * 365 * 86_400))
}
