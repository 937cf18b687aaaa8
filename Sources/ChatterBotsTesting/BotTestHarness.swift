import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization

/// One bot under test, running as it will in production, against an in-process Chatter sandbox; the bot's
/// session and the sandbox share one virtual clock (`ManualClock`), so hours of the bot's life pass in
/// milliseconds and every timer fires exactly when the test moves time past it.
///
/// ```swift
/// let harness = try await BotTestHarness.start(ReminderBot.botKind, options: ["defaultTimeZone": "Europe/Lisbon"])
/// try await harness.run { harness in  // stops the bot and the sandbox however the test ends
///     let alice = try await harness.user("alice")
///     try await alice.send("remind me in 10 minutes to stretch")
///     #expect(try await alice.nextText() == "Okay, I'll remind you to stretch at 00:10 (Europe/Lisbon) today.")
///     try await harness.advance(by: .minutes(10))
///     #expect(try await alice.nextText() == "@alice Reminder: stretch")
/// }
/// ```
///
/// Everything runs over real loopback sockets (port 0) with real SQLite files in a temporary directory. Waits
/// for the bot are bounded in real time (`BotTestConfiguration.replyTimeout`, `settleTimeout`) and fail with a
/// `BotTestError` that says what was awaited; no test hangs. Drive a harness from one task at a time.
public final class BotTestHarness: Sendable {
    /// The sandbox the bot and the test users talk to; its `admin` creates accounts, reads pushes, injects faults.
    public let sandbox: Sandbox
    /// The virtual clock of the sandbox and the bot. Move it with `advance(by:)`, which also waits for the work
    /// that came due; moving it directly skips that wait.
    public let clock: ManualClock
    /// The configuration the harness was started with.
    public let configuration: BotTestConfiguration
    /// The bot's account in the sandbox.
    public let botAccount: SeededAccount
    /// The bot's configuration, as a `bots.json` entry would give it (name, kind, credentials, options).
    public let botConfiguration: BotConfiguration
    /// The directory of the bot's SQLite store; it survives `restartBot()` and is removed by `stop()`.
    public let dataDirectory: URL

    private let makeBot: @Sendable (BotConfiguration) throws -> any Bot

    private struct RunningBot: Sendable {
        let session: BotSession
        let task: Task<BotStopReason, Never>
    }

    /// The highest `seq` test users sent in a conversation, and a member to look the conversation up as.
    private struct SentMark: Sendable {
        var seq: Int
        var caller: SandboxCaller
    }

    private struct State {
        var running: RunningBot?
        var users: [TestUser] = []
        var sent: [Conversation.ID: SentMark] = [:]
        /// How many events the sandbox had sent the bot when `settle()` last made sure it read them all.
        var eventsRead = 0
    }

    private let state = Mutex(State())
    /// The bot's records at error level and above, whatever `configuration.logSink` keeps.
    private let errorLog = ErrorLog()

    /// Collects error records for `errorsLogged`.
    private final class ErrorLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// What the bot logged at error level and above so far, oldest first: a handler that threw, a change the
    /// service refused, a handler that timed out. A bot that stays silent in a test often says why here; a
    /// `BotTestError.timedOut` of a wait for it quotes the last of them.
    public var errorsLogged: [String] { errorLog.lines.withLock { $0 } }

    private init(
        sandbox: Sandbox, clock: ManualClock, configuration: BotTestConfiguration, botAccount: SeededAccount,
        botConfiguration: BotConfiguration, dataDirectory: URL, makeBot: @escaping @Sendable (BotConfiguration) throws -> any Bot
    ) {
        self.sandbox = sandbox
        self.clock = clock
        self.configuration = configuration
        self.botAccount = botAccount
        self.botConfiguration = botConfiguration
        self.dataDirectory = dataDirectory
        self.makeBot = makeBot
    }

    // MARK: Starting

    /// Starts a sandbox and a bot of `kind` made from `options` (the `options` object of its `bots.json` entry),
    /// and waits until the bot is live.
    ///
    /// - Parameters:
    ///   - timeZone: the zone the test writes local times in (`instant(_:)`); overrides the configuration's.
    /// - Throws: `BotTestError.invalidBot` when the kind refuses the options; the sandbox's or the bot's error
    ///   when either cannot start.
    public static func start(
        _ kind: BotKind, options: JSONValue = [:], timeZone: TimeZone? = nil,
        configuration: BotTestConfiguration = .init()
    ) async throws -> BotTestHarness {
        let botOptions: BotOptions
        do {
            botOptions = try BotOptions(encoding: options)
        } catch {
            throw BotTestError.invalidBot("options must be a JSON object, got \(options)")
        }
        return try await start(
            kindName: kind.name, options: botOptions, timeZone: timeZone, configuration: configuration
        ) { try kind.makeBot(for: $0) }
    }

    /// Starts a sandbox and `bot` (the same instance again after each restart), and waits until it is live.
    public static func start(
        bot: any Bot, timeZone: TimeZone? = nil, configuration: BotTestConfiguration = .init()
    ) async throws -> BotTestHarness {
        try await start(kindName: nil, options: .empty, timeZone: timeZone, configuration: configuration) { _ in bot }
    }

    /// Starts a sandbox and a bot made by `makeBot` from its configuration (again at each restart, as a new
    /// process would), and waits until it is live.
    public static func start(
        kind: String, options: BotOptions = .empty, timeZone: TimeZone? = nil, configuration: BotTestConfiguration = .init(),
        makeBot: @escaping @Sendable (BotConfiguration) throws -> any Bot
    ) async throws -> BotTestHarness {
        try await start(kindName: kind, options: options, timeZone: timeZone, configuration: configuration, makeBot: makeBot)
    }

    private static func start(
        kindName: String?, options: BotOptions, timeZone: TimeZone?, configuration: BotTestConfiguration,
        makeBot: @escaping @Sendable (BotConfiguration) throws -> any Bot
    ) async throws -> BotTestHarness {
        var configuration = configuration
        if let timeZone { configuration.timeZone = timeZone }
        let name = configuration.botName ?? kindName.map { $0.replacingOccurrences(of: "-", with: "_") } ?? "bot"
        let botConfiguration = BotConfiguration(
            name: name, kind: kindName ?? "test", credentials: BotCredentials(username: name, password: BotTestConfiguration.password),
            friendRequests: configuration.friendRequests, options: options,
            // Pacing sleeps on the clock: on a virtual clock that stands still it would hold replies back.
            sendPacing: nil)
        do {
            _ = try makeBot(botConfiguration)  // a bad option fails here, before anything starts
        } catch {
            throw BotTestError.invalidBot("\(error)")
        }

        let clock = ManualClock(now: configuration.start)
        let tenYears = Duration.seconds(10 * 365 * 86_400)
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            host: "127.0.0.1", port: 0, clock: clock,
            service: SandboxServiceConfiguration(
                passwordHashIterations: 1_000, accessTokenLifetime: tenYears, refreshTokenLifetime: tenYears),
            realtime: configuration.realtime,
            seed: SandboxSeed(users: [SandboxUserSeed(username: name, password: BotTestConfiguration.password)])))
        guard let botAccount = sandbox.seeded[name] else {
            await sandbox.shutdown()
            throw BotTestError.wrongBotState("the sandbox did not create the bot's account \(name)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("chatterbots-test-\(UUID().uuidString)", isDirectory: true)
        let harness = BotTestHarness(
            sandbox: sandbox, clock: clock, configuration: configuration, botAccount: botAccount,
            botConfiguration: botConfiguration, dataDirectory: directory, makeBot: makeBot)
        do {
            try await harness.startBot()
        } catch {
            await harness.stop()
            throw error
        }
        return harness
    }

    /// Runs `body` with this harness, then stops it, also when `body` throws.
    public func run<Result: Sendable>(_ body: (BotTestHarness) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(self)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    // MARK: The bot

    /// The bot's account.
    public var botUser: User { botAccount.user }

    /// The running bot's session (nil while the bot is stopped): its `status` has the runtime's counters.
    public var session: BotSession? { state.withLock { $0.running?.session } }

    /// Starts the bot (after `stopBot()`) on the same store, as a new process would, and waits until it is live
    /// and has done what came due while it was down (`settle()`).
    ///
    /// - Throws: `BotTestError.wrongBotState` when it is running; `.botStopped` when it stops instead of going
    ///   live (e.g. its store cannot be opened); `.timedOut`.
    public func startBot() async throws {
        guard session == nil else {
            throw BotTestError.wrongBotState("the bot is already running; call stopBot() first, or restartBot()")
        }
        let bot: any Bot
        do {
            bot = try makeBot(botConfiguration)
        } catch {
            throw BotTestError.invalidBot("\(error)")
        }
        let requested = configuration.logSink
        let errorLog = errorLog
        let logSink = LogSink(minimumLevel: min(requested.minimumLevel, .error)) { record in
            if requested.accepts(record.level) { requested.write(record) }
            if record.level >= .error {
                errorLog.lines.withLock { $0.append("\(record.message)" + (record.bot.map { " (bot \($0))" } ?? "")) }
            }
        }
        var environment = BotRuntimeEnvironment(
            server: sandbox.serverConfiguration, dataDirectory: dataDirectory, clock: clock, logSink: logSink)
        environment.randomSeed = 7
        // The runtime's own timeouts run on the virtual clock; those in real time wait as long as the harness does.
        environment.restRequestTimeouts = configuration.restRequestTimeouts
        environment.webSocket.connectTimeout = configuration.settleTimeout
        environment.webSocket.handshakeTimeout = configuration.settleTimeout
        configuration.environment(&environment)
        environment.server = sandbox.serverConfiguration
        environment.dataDirectory = dataDirectory
        environment.clock = clock
        let session = BotSession(configuration: botConfiguration, bot: bot, environment: environment)
        let task = Task { await session.run() }
        state.withLock { $0.running = RunningBot(session: session, task: task) }
        try await waitUntilBotIsLive()
        try await settle()
    }

    /// Stops the bot gracefully (its session's `shutdown`: running handlers finish, the connection closes, the
    /// store closes), after letting it finish what it was doing. Its store stays for `startBot()`.
    public func stopBot() async throws {
        try await stopBot(settlingFirst: true)
    }

    private func stopBot(settlingFirst: Bool) async throws {
        guard let running = state.withLock({ $0.running }) else { return }
        if settlingFirst { try? await settle() }
        try await withRealTimeLimit(configuration.settleTimeout, awaiting: "the bot to shut down") {
            await running.session.shutdown(deadline: .seconds(5))
            _ = await running.task.value
        }
        state.withLock { $0.running = nil }
    }

    /// Stops the bot and starts it again on the same store (`stopBot()`, then `startBot()`).
    public func restartBot() async throws {
        guard session != nil else {
            throw BotTestError.wrongBotState("the bot is not running; call startBot()")
        }
        try await stopBot()
        try await startBot()
    }

    /// Waits, in real time, until the bot's session is live (connected and synchronized), e.g. after a fault
    /// and the virtual time of its reconnect backoff.
    ///
    /// - Throws: `BotTestError.botStopped` with the reason when the session stopped instead; `.timedOut`.
    public func waitUntilBotIsLive() async throws {
        guard let session else { throw BotTestError.wrongBotState("the bot is not running; call startBot()") }
        try await withRealTimeLimit(configuration.settleTimeout, awaiting: "the bot to be live") {
            while !Task.isCancelled {
                let status = await session.status
                switch status.state {
                case .live: return
                case .stopped: throw BotTestError.botStopped(reason: status.stopReason ?? status.lastError ?? "unknown")
                default: try await Task.sleep(for: .milliseconds(2))
                }
            }
        }
    }

    /// Performs `fault` on the bot's connection (`SandboxFault`: drop the socket, lose an ack, duplicate
    /// events, expire the token…). The bot reconnects after its backoff on the virtual clock: advance a few
    /// seconds, then `waitUntilBotIsLive()`. A dropped socket returns once the bot has seen it close, so that the
    /// advance cannot pass before its reconnect backoff begins.
    ///
    /// - Throws: `BotTestError.wrongBotState` when the bot has no open socket.
    public func inject(_ fault: SandboxFault) async throws {
        let devices = Set(try await sandbox.service.devices(ofUsers: [botUser.id]).map(\.id))
        guard let device = await sandbox.admin.connectedDevices().first(where: { devices.contains($0) }) else {
            throw BotTestError.wrongBotState("the bot has no open socket to inject \(fault.type) into")
        }
        try await sandbox.admin.inject(fault, into: device)
        guard case .dropSocket = fault, let session else { return }
        try await withRealTimeLimit(configuration.settleTimeout, awaiting: "the bot to see its socket dropped") {
            while await session.status.connected, !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    // MARK: People

    /// Creates a test user, by default the bot's friend and online (its socket open).
    ///
    /// A friendship made here is written straight into the sandbox (no request, no event), as friendships made
    /// while the bot was offline are: the bot learns of it when it next looks (a profile lookup, its next
    /// sync). To test the request flow, pass `befriended: false` and call `sendFriendRequest()`.
    ///
    /// - Throws: `BotTestError.sandboxRefused` for a taken or invalid username (3–32 letters, digits, `_`, `.`).
    public func user(
        _ username: String, displayName: String? = nil, befriended: Bool = true, online: Bool = true
    ) async throws -> TestUser {
        let seed = SandboxSeed(
            users: [SandboxUserSeed(username: username, password: BotTestConfiguration.password, displayName: displayName)],
            friendships: befriended ? [SandboxFriendship(username, botUser.id.rawValue)] : [])
        let accounts: SeededAccounts
        do {
            accounts = try await sandbox.admin.createUsers(seed)
        } catch {
            throw BotTestError.sandboxRefused(step: "create the user \(username)", error: error)
        }
        guard let account = accounts[username] else {
            throw BotTestError.wrongBotState("the sandbox did not create the user \(username)")
        }
        let user = TestUser(account: account, harness: self)
        state.withLock { $0.users.append(user) }
        if online { try await user.goOnline() }
        return user
    }

    /// A group conversation of `members` and the bot, created by the first member (everyone is made friends
    /// with everyone first, as the service requires of a group's creator).
    public func group(_ title: String, members: [TestUser]) async throws -> Conversation {
        guard let creator = members.first else {
            throw BotTestError.wrongBotState("a group needs at least one test user")
        }
        let everyone = members.map(\.id) + [botUser.id]
        for (index, first) in everyone.enumerated() {
            for second in everyone.dropFirst(index + 1) {
                do {
                    try await sandbox.service.makeFriends(first, second)
                } catch {
                    throw BotTestError.sandboxRefused(step: "befriend the members of \(title)", error: error)
                }
            }
        }
        return try await creator.rest.createGroup(title: title, memberIds: everyone.filter { $0 != creator.id })
    }

    /// Waits until the bot has heard that `user` is online (or offline) and has handled it.
    func waitUntilBotSees(_ user: TestUser, online: Bool) async throws {
        guard let session else { return }
        try await withRealTimeLimit(
            configuration.settleTimeout, awaiting: "the bot to hear that \(user.username) is \(online ? "online" : "offline")"
        ) {
            while await session.presence(of: user.id)?.isOnline != online {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        try await settle()
    }

    /// Waits, in real time, until `condition` holds, looking again every few milliseconds: for outcomes `settle()`
    /// cannot see coming, such as the bot's answer to an event that reached it while it was offline.
    ///
    /// - Throws: `BotTestError.timedOut` saying `what` after the configuration's `settleTimeout`.
    public func waitUntil(_ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
        try await withRealTimeLimit(configuration.settleTimeout, awaiting: what) {
            while try await !condition() {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        try await settle()
    }

    func noteSent(_ message: Message, by caller: SandboxCaller) {
        state.withLock { state in
            let seq = max(message.seq, state.sent[message.conversationId]?.seq ?? 0)
            state.sent[message.conversationId] = SentMark(seq: seq, caller: caller)
        }
    }

    // MARK: Time

    /// The virtual time now.
    public var now: Date { clock.now }

    /// Moves the virtual clock forward by `duration`, timer by timer: at each deadline on the way (a reminder,
    /// a presence grace, a backoff) the clock stops and the bot finishes the work that came due (`settle()`)
    /// before time moves on, so each job runs at its own instant and sees it as `now`.
    ///
    /// - Throws: `BotTestError.timedOut` when the bot does not settle in real time.
    public func advance(by duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        try await advance(to: clock.now.addingTimeInterval(seconds))
    }

    /// Moves the virtual clock forward to `target` as `advance(by:)` does. A past `target` only settles.
    public func advance(to target: Date) async throws {
        try await settle()
        // Bounded: a timer that re-arms itself at the same instant must not spin the test forever.
        for _ in 0..<100_000 {
            guard let next = clock.nextDeadline, next <= target else { break }
            await clock.advance(to: next)
            try await settle()
        }
        await clock.advance(to: target)
        try await settle()
    }

    /// Waits, in real time, until the bot has done everything it has to do at the current virtual instant: it
    /// has handled every message the test users sent (its read receipts reached them) and every other event the
    /// sandbox sent it so far (a friend request, an edit, a rename), run every job due, committed its work, and
    /// had every message it sent acknowledged; and the users' sockets have received what the sandbox sent them.
    /// Returns at once for a stopped bot (after flushing the users' sockets). A bot that is reconnecting gets what
    /// it missed in its catch-up, which waits on the virtual clock: `advance` settles again once time moved.
    ///
    /// - Throws: `BotTestError.timedOut` saying what the bot did not finish (the bot must send read receipts,
    ///   as it does by default, for the first part).
    public func settle() async throws {
        let (running, sent, users) = state.withLock { ($0.running, $0.sent, $0.users) }
        if let running {
            let service = sandbox.service
            let bot = botUser.id
            for (conversation, mark) in sent {
                try await withRealTimeLimit(
                    configuration.settleTimeout,
                    awaiting: "the bot to handle the messages of conversation \(conversation) up to seq \(mark.seq)",
                    meanwhile: { [errorLog] in errorLog.lines.withLock { $0 } }
                ) {
                    while !Task.isCancelled {
                        let current = try await service.conversation(mark.caller, conversation)
                        guard let member = current.members.first(where: { $0.userId == bot }) else { return }
                        if member.lastReadSeq >= mark.seq { return }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
            let session = running.session
            try await withRealTimeLimit(
                configuration.settleTimeout,
                awaiting: "the bot to finish its work (events read, due jobs, handlers, commits, acknowledgements of its messages)",
                meanwhile: { [errorLog] in errorLog.lines.withLock { $0 } }
            ) { [self] in
                // A ping's round trip proves the bot read what the sandbox sent before it; only needed when there
                // is something new, which keeps a long `advance` to one wake-up of the bot per timer. What the bot
                // did meanwhile may have sent it more (a friend it accepted), so until nothing new comes.
                while true {
                    let sent = await sandbox.hub.eventsSent(to: bot)
                    if state.withLock({ $0.eventsRead }) != sent, await session.roundTrip() {
                        state.withLock { $0.eventsRead = max($0.eventsRead, sent) }
                    }
                    await session.waitUntilIdle()
                    if await sandbox.hub.eventsSent(to: bot) == sent { break }
                }
                let status = await session.status
                if status.state == .stopped {
                    throw BotTestError.botStopped(reason: status.stopReason ?? status.lastError ?? "unknown")
                }
            }
        }
        for user in users { await user.flush() }
    }

    /// The instant of the wall-clock time `local`, written `"2026-03-29 09:00"` (or with seconds), in the
    /// configuration's `timeZone`.
    ///
    /// - Throws: `BotTestError.invalidTime` when `local` is not in that form, or names a time that does not
    ///   exist there (skipped by a DST change).
    public func instant(_ local: String) throws -> Date {
        for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss"] {
            let formatter = Self.formatter(format, in: configuration.timeZone)
            if let date = formatter.date(from: local), formatter.string(from: date) == local { return date }
        }
        throw BotTestError.invalidTime(
            "\(local) is not a time of \(configuration.timeZone.identifier) written as \"2026-03-29 09:00\"")
    }

    /// `date` as wall-clock time in the configuration's `timeZone`, `"2026-03-29 09:00"`.
    public func localTime(of date: Date) -> String {
        Self.formatter("yyyy-MM-dd HH:mm", in: configuration.timeZone).string(from: date)
    }

    private static func formatter(_ format: String, in zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = zone
        formatter.dateFormat = format
        return formatter
    }

    // MARK: Stopping

    /// Stops the bot, closes the users' sockets, shuts the sandbox down and removes the bot's data directory.
    /// Call it at the end of every test (or use `run(_:)`).
    public func stop() async {
        // No settling: a test that failed may have left the bot unable to settle, and its end must not wait.
        try? await stopBot(settlingFirst: false)
        if let running = state.withLock({ state -> RunningBot? in
            defer { state.running = nil }
            return state.running
        }) {
            running.task.cancel()
        }
        let users = state.withLock { state -> [TestUser] in
            defer { state.users = [] }
            return state.users
        }
        for user in users { await user.disconnect() }
        await sandbox.shutdown()
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
