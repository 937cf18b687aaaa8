import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An in-process sandbox on a `ManualClock` shared with the bots under test, seeded with people and two bot
/// accounts, plus a data directory for the bots' stores. Everything over real loopback sockets.
///
/// Accounts: people ana, ben, cleo, dan; bots botty and otto. Friendships: ana–botty, ben–botty, ana–otto.
struct RuntimeHarness {
    static let password = "correct horse"
    /// The bots' REST client, shared as the process's default one is, with hang guards for a connect and a request.
    static let restClient = HTTPClient(configuration: .patient)

    let sandbox: Sandbox
    let clock: ManualClock
    let directory: StoreDirectory
    let logs: LogCollector
    /// Signalled on every change a test may wait for: a write or a socket of the sandbox, a state of a bot started
    /// here, a call of its handlers, a log line. `waitUntil` re-checks its condition on each.
    let changes: ChangeSignal
    /// A relay in front of the sandbox's WebSocket endpoint that can go silent, when asked for.
    let relay: TCPRelay?

    var ana: SeededAccount { account("ana") }
    var ben: SeededAccount { account("ben") }
    var cleo: SeededAccount { account("cleo") }
    var dan: SeededAccount { account("dan") }
    var botty: SeededAccount { account("botty") }
    var otto: SeededAccount { account("otto") }

    private func account(_ name: String) -> SeededAccount {
        sandbox.seeded[name] ?? sandbox.seeded.users[0]
    }

    /// Runs `body` against a fresh sandbox; shuts everything down afterwards, also when `body` throws.
    static func run(
        realtime: RealtimeConfiguration = RealtimeConfiguration(), relay: Bool = false,
        service: SandboxServiceConfiguration = SandboxServiceConfiguration(passwordHashIterations: 1_000),
        _ body: (RuntimeHarness) async throws -> Void
    ) async throws {
        let clock = ManualClock()
        let seed = SandboxSeed(
            users: ["ana", "ben", "cleo", "dan", "botty", "otto"].map { SandboxUserSeed(username: $0, password: password) },
            friendships: [SandboxFriendship("ana", "botty"), SandboxFriendship("ben", "botty"), SandboxFriendship("ana", "otto")])
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            clock: clock, service: service, realtime: realtime, seed: seed))
        let relayed: TCPRelay?
        do {
            relayed = relay ? try TCPRelay(targetPort: sandbox.apiURL.port ?? 0) : nil
        } catch {
            await sandbox.shutdown()
            throw error
        }
        let changes = ChangeSignal()
        let observation = sandbox.service.store.changes.observe { changes.signal() }
        defer { sandbox.service.store.changes.stopObserving(observation) }
        let harness = RuntimeHarness(
            sandbox: sandbox, clock: clock, directory: try StoreDirectory(), logs: LogCollector(changes: changes),
            changes: changes, relay: relayed)
        do {
            try await body(harness)
        } catch {
            relayed?.close()
            await sandbox.shutdown()
            throw error
        }
        relayed?.close()
        await sandbox.shutdown()
    }

    // MARK: - Bots

    /// The environment bots run in: the shared clock, the test's data directory and log collector, a fixed seed.
    /// The sockets' own timeouts, which run in real time, are hang guards: the tests' timeouts run on the clock.
    func environment(_ configure: (inout BotRuntimeEnvironment) -> Void = { _ in }) -> BotRuntimeEnvironment {
        var server = sandbox.serverConfiguration
        if let relay, let url = URL(string: "ws://127.0.0.1:\(relay.port)/v1/ws") { server.webSocketURL = url }
        var environment = BotRuntimeEnvironment(
            server: server, dataDirectory: URL(fileURLWithPath: directory.path, isDirectory: true), clock: clock,
            logSink: logs.sink)
        environment.randomSeed = 7
        environment.webSocket.connectTimeout = .hangGuard
        environment.webSocket.handshakeTimeout = .hangGuard
        environment.restTransport = .builtIn(Self.restClient)
        environment.restRequestTimeouts = .hangGuard
        configure(&environment)
        return environment
    }

    /// A bot's configuration; its sends are not paced unless told (pacing sleeps on the clock, which stands still).
    func configuration(
        _ account: SeededAccount, policy: FriendRequestPolicy = .nobody, password: String = Self.password,
        sendPacing: SendPacer.Configuration? = nil, receipts: ReceiptPolicy? = nil
    ) -> BotConfiguration {
        BotConfiguration(
            name: account.user.username, kind: "test",
            credentials: BotCredentials(username: account.user.username, password: password), friendRequests: policy,
            sendPacing: sendPacing, receipts: receipts)
    }

    /// Starts `bot` as `account` and waits until it is live (unless told not to).
    func start(
        _ bot: ScriptedBot, as account: SeededAccount? = nil, policy: FriendRequestPolicy = .nobody,
        password: String = Self.password, sendPacing: SendPacer.Configuration? = nil, receipts: ReceiptPolicy? = nil,
        waitUntilLive: Bool = true, _ configure: (inout BotRuntimeEnvironment) -> Void = { _ in }
    ) async throws -> RunningBot {
        let session = BotSession(
            configuration: configuration(
                account ?? botty, policy: policy, password: password, sendPacing: sendPacing, receipts: receipts),
            bot: bot,
            environment: environment(configure))
        bot.probe.report(to: changes)
        let running = RunningBot(session: session, task: Task { await session.run() })
        watch(running.session)
        if waitUntilLive { try await running.waitUntilLive(self) }
        return running
    }

    /// Starts a session for `account` (botty by default) whose bot `kind` makes from `options` as the session starts
    /// (its probe, when the bot is a `ScriptedBot`, reports to the harness), and waits until it is live (unless told
    /// not to).
    func start(
        madeBy kind: BotKind, as account: SeededAccount? = nil, options: BotOptions = .empty, waitUntilLive: Bool = true,
        _ configure: (inout BotRuntimeEnvironment) -> Void = { _ in }
    ) async throws -> RunningBot {
        var configuration = configuration(account ?? botty)
        configuration.kind = kind.name
        configuration.options = options
        let changes = changes
        let reporting = BotKind(kind.name) { configuration in
            let bot = try kind.makeBot(for: configuration)
            (bot as? ScriptedBot)?.probe.report(to: changes)
            return bot
        }
        let session = BotSession(
            member: BotLineup.Member(configuration: configuration, kind: reporting), environment: environment(configure))
        let running = RunningBot(session: session, task: Task { await session.run() })
        watch(running.session)
        if waitUntilLive { try await running.waitUntilLive(self) }
        return running
    }

    /// Signals `changes` on every state change of `session`, until it stops.
    func watch(_ session: BotSession) {
        signalStateChanges(of: session, to: changes)
    }

    // MARK: - People

    /// A REST client signed in as a seeded account's device.
    func rest(_ account: SeededAccount) -> ChatterRESTClient {
        ChatterRESTClient(
            configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: account.session.tokens),
            requestTimeouts: .hangGuard)
    }

    /// The direct conversation of a person and a bot, started by the person.
    func direct(_ person: SeededAccount, _ bot: SeededAccount? = nil) async throws -> Conversation {
        try await rest(person).directConversation(with: (bot ?? botty).user.id)
    }

    /// The delivered and read watermarks of `account` (the bot by default) in `conversation`, one of ana's, as the
    /// service keeps them; -1 for a member it does not list.
    func watermarks(of account: SeededAccount? = nil, in conversation: Conversation) async throws -> (delivered: Int, read: Int) {
        let current = try await sandbox.service.conversation(ana.caller, conversation.id)
        let member = current.members.first { $0.userId == (account ?? botty).user.id }
        return (member?.lastDeliveredSeq ?? -1, member?.lastReadSeq ?? -1)
    }

    /// Sends `text` as `person` (over REST; the bot gets `message.new`).
    @discardableResult
    func say(_ text: String, as person: SeededAccount, in conversation: Conversation) async throws -> Message {
        try await rest(person).postMessage(.text(text), clientMessageId: .random(), in: conversation.id)
    }

    /// Every message of `conversation` as the service stores it, oldest first.
    func messages(in conversation: Conversation) async throws -> [Message] {
        let member = conversation.members.first { $0.userId != botty.user.id && $0.userId != otto.user.id }?.userId
        let caller = sandbox.seeded.users.first { $0.user.id == member }?.caller ?? ana.caller
        return try await sandbox.service.messages(caller, conversation.id, .after(seq: 0), limit: 500).messages
    }

    /// The texts of `conversation` sent by `account`.
    func texts(in conversation: Conversation, from account: SeededAccount) async throws -> [String] {
        try await messages(in: conversation).filter { $0.senderId == account.user.id }.map { $0.body ?? "" }
    }

    /// The bot account's device that has an open socket now, if any.
    func connectedDevice(of account: SeededAccount? = nil) async throws -> Device.ID? {
        let user = (account ?? botty).user.id
        let devices = Set(try await sandbox.service.devices(ofUsers: [user]).map(\.id))
        return await sandbox.admin.connectedDevices().first { devices.contains($0) }
    }

    /// Injects a fault into the bot's connected device.
    func inject(_ fault: SandboxFault, into account: SeededAccount? = nil) async throws {
        guard let device = try await connectedDevice(of: account) else {
            throw HarnessError("the bot has no connected device to inject \(fault.type) into")
        }
        try await sandbox.admin.inject(fault, into: device)
    }

    // MARK: - Waiting

    /// Returns once `condition` holds, checking it now and after each change the harness sees (`changes`); fails
    /// the test naming `what` if it still does not hold after `timeout` (a bound for a bug, not a pace).
    func waitUntil(
        _ what: @autoclosure () -> String, timeout: Duration = .hangGuard,
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
    ) async throws {
        do {
            try await changes.wait(until: condition, what(), timeout: timeout)
        } catch let error as DeadlineExceeded {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Returns once `bot` has read and handled the messages of `conversation` up to `seq`: its read watermark at
    /// the service reached `seq` (moved once the handler finished), and it has nothing left to do.
    func waitUntilHandled(
        upTo seq: Int, in conversation: Conversation, by bot: RunningBot, as account: SeededAccount? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let member = (account ?? botty).user.id
        let reader = conversation.members.first { $0.userId != member }?.userId
        let caller = sandbox.seeded.users.first { $0.user.id == reader }?.caller ?? ana.caller
        try await waitUntil("\(bot.session.name) to read \(conversation.id) up to seq \(seq)", sourceLocation: sourceLocation) {
            let members = try await sandbox.service.conversation(caller, conversation.id).members
            return (members.first { $0.userId == member }?.lastReadSeq ?? 0) >= seq
        }
        try await bot.waitUntilIdle(sourceLocation: sourceLocation)
    }
}

/// Signals `changes` on every state change of `session`, from a task that ends when the session stops.
func signalStateChanges(of session: BotSession, to changes: ChangeSignal) {
    Task {
        for await _ in await session.stateChanges() { changes.signal() }
    }
}

/// A bot session running in a task.
struct RunningBot: Sendable {
    let session: BotSession
    let task: Task<BotStopReason, Never>

    var status: BotStatus { get async { await session.status } }

    func waitUntilLive(_ harness: RuntimeHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await waitUntil(.live, sourceLocation: sourceLocation)
    }

    /// Returns once the bot's state is `state` (it may be already), woken by the bot's own state changes; fails the
    /// test if that does not happen within a hang guard or the bot stops first.
    func waitUntil(_ state: BotStatus.State, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let session = session
        do {
            try await withDeadline(.hangGuard, "bot \(session.name) \(state)") {
                for await current in await session.stateChanges() where current == state { return }
                throw HarnessError("bot \(session.name) stopped before it was \(state)")
            }
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Returns once the bot has nothing left to do at the clock's instant (`BotSession.waitUntilIdle()`: events
    /// admitted, due jobs and handlers run, work committed, its messages acknowledged); fails the test after a hang guard.
    func waitUntilIdle(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let session = session
        do {
            try await withDeadline(.hangGuard, "bot \(session.name) idle") { await session.waitUntilIdle() }
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Shuts the bot down and returns why `run()` ended; nil (and a recorded issue) when the shutdown or `run()`
    /// does not end within a hang guard, so that a stuck bot fails its test instead of hanging the whole run.
    @discardableResult
    func stop(deadline: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async -> BotStopReason? {
        let session = session
        do {
            try await withDeadline(.hangGuard, "bot \(session.name) to shut down") { await session.shutdown(deadline: deadline) }
            return try await value(of: task, within: .hangGuard, "bot \(session.name)'s run() to return")
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
