import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import WebSocket

extension BotCommandLine {
    /// How much longer than the shutdown timeout `run` waits for the bots before it gives up on them.
    static let shutdownGrace: Duration = .seconds(2)

    /// `run`: the embedded sandbox when configured, every bot under a supervisor, the health endpoint when
    /// configured; until a shutdown request (SIGINT/SIGTERM) or until every bot has stopped.
    func runBots(_ options: BotCommand.RunOptions, in environment: CommandEnvironment) async -> ExitCode {
        // SIGHUP is watched from the start, so that one sent while the bots start neither ends the process nor is
        // lost: it reloads once they run. The file's version is taken before it is read, so that the watch sees a
        // change made while the bots start.
        let (hangups, hangupSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let reloadSignal = environment.watchesSignals ? ReloadSignal { hangupSink.yield() } : nil
        defer { reloadSignal?.cancel() }
        let readVersion = FileFingerprint.of(path: configurationURL(options.configuration, in: environment).path)
        guard let (configuration, fleet) = loadLineup(options.configuration, in: environment) else { return .usageError }
        let layout: ShardLayout
        do {
            layout = try ShardSelection.layout(options.shard, variables: environment.variables)
        } catch {
            environment.standardError.write(line: "\(programName): \(error.message)\nSee '\(programName) help run' for usage.")
            return .usageError
        }
        let shard = layout.shard
        let lineup = Self.members(of: fleet, on: shard)
        if let shard, !checkShardCount(shard, lineup: lineup, configuration: configuration, in: environment) {
            return .usageError
        }
        let httpPort: Int?
        do {
            httpPort = try layout.httpPort(configured: configuration.httpPort)
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            return .usageError
        }
        let logTail = configuration.console ? ConsoleLogTail(clock: environment.clock) : nil
        let standardLog = LogSink(minimumLevel: configuration.logLevel, output: environment.standardError)
        let log = logTail.map { tail in standardLog.teeing { tail.record($0) } } ?? standardLog
        for bot in configuration.bots { bot.secrets.forEach(log.registerSecret) }
        for warning in configuration.warnings { log.log(.warning, "configuration: \(warning)") }
        let runningWork = RunningWorkAtExit()
        let signals = watchSignals(in: environment, log: log, beforeExitingNow: runningWork.unmark)
        defer { signals?.cancel() }

        var embedded: EmbeddedSandbox?
        let server: ChatterServerConfiguration
        if case .sandbox = configuration.server, layout.sharesSandbox, options.sandboxPort == 0 {
            environment.standardError.write(line: "\(programName): shards share the sandbox of shard 0 on a known port; "
                + "give every shard the same --sandbox-port N (not 0)")
            return .usageError
        }
        switch configuration.server {
        case .sandbox where !layout.embedsSandbox:
            let port = options.sandboxPort ?? EmbeddedSandbox.defaultPort
            let shared = EmbeddedSandbox.serverConfiguration(port: port)
            guard await waitForSharedSandbox(port: port, shutdown: environment.shutdown, log: log) else {
                log.log(.info, "stopped before the shared sandbox answered; bye")
                await log.flush()
                return .success
            }
            server = shared
        case .sandbox:
            let port = options.sandboxPort ?? EmbeddedSandbox.defaultPort
            let started: EmbeddedSandbox
            do {
                started = try await EmbeddedSandbox.start(
                    dataDirectory: configuration.dataDirectory, port: port, bots: configuration.bots,
                    clock: environment.clock)
            } catch {
                environment.standardError.write(line: "\(programName): the embedded sandbox could not start: \(error)"
                    + (Self.isPortInUse(error) ? "; pass --sandbox-port with another port, or 0 for any free one" : ""))
                return .failure
            }
            for problem in started.problems { log.log(.warning, "sandbox: \(problem)") }
            embedded = started
            server = started.sandbox.serverConfiguration
        case .remote(let apiURL, let webSocketURL, let clientKey):
            server = ChatterServerConfiguration(apiBaseURL: apiURL, webSocketURL: webSocketURL, clientKey: clientKey)
        }

        let inFlight: InFlightTable
        do {
            inFlight = try await CrashRecovery.prepare(
                dataDirectory: configuration.dataDirectory,
                tableDirectory: layout.inFlightDirectory(in: configuration.dataDirectory),
                bots: lineup.members.map(\.configuration.name), log: log, clock: environment.clock)
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            await embedded?.shutdown()
            return .failure
        }
        runningWork.watch(inFlight)
        var host = BotHost(
            server: server, dataDirectory: configuration.dataDirectory, log: log, clock: environment.clock,
            quarantine: configuration.quarantine, inFlightTable: inFlight)
        host.restRequestTimeouts = environment.restRequestTimeouts
        if case .sandbox = configuration.server, !layout.embedsSandbox { host.accountsMayAppear = true }
        let supervisor = BotSupervisor(
            bots: lineup.members.map { environment.makeSession($0, host) }, log: log,
            readinessTimeout: configuration.readinessTimeout, clock: environment.clock)
        let configurationFile = configurationURL(options.configuration, in: environment)
        let reloader = ConfigurationReloader(
            setup: ConfigurationReloader.Setup(
                file: configurationFile, variables: environment.variables, kinds: kinds, shard: shard,
                supervisor: supervisor, host: host, makeSession: environment.makeSession,
                stopDeadline: options.shutdownTimeout, sandbox: embedded),
            configuration: configuration)
        var health: HealthServer?
        let bind = options.httpBind ?? configuration.httpBind
        if let port = httpPort {
            guard let access = controlAccess(bind: bind, in: environment) else {
                await embedded?.shutdown()
                return .usageError
            }
            do {
                let (makeThreads, clock) = (host.makeThreads, host.clock)
                health = try await HealthServer.start(
                    supervisor: supervisor, reloader: reloader,
                    makeThreads: { makeThreads.census(at: clock.now) }, host: bind, port: port, access: access,
                    console: configuration.console,
                    faults: embedded.map { EmbeddedSandboxFaults(sandbox: $0.sandbox) },
                    faultTargets: embedded.map { SandboxDirectory(sandbox: $0.sandbox, testAccounts: $0.testAccounts) },
                    consoleExtensions: embedded.map { sandbox in
                        [ConsoleChatRoutes(
                            server: server, accounts: sandbox.testAccounts, dataDirectory: configuration.dataDirectory,
                            restRequestTimeouts: environment.restRequestTimeouts,
                            // Read at each request, so that bots a reload added or removed are offered or refused.
                            bots: {
                                await reloader.runningBots().map {
                                    ConsoleChatRoutes.Bot(name: $0.name, username: $0.credentials.username)
                                }
                            })]
                    } ?? [],
                    logTail: logTail)
            } catch {
                environment.standardError.write(line: "\(programName): /healthz and /metrics cannot be served: \(error)"
                    + Self.listenAdvice(for: error, bindFromOption: options.httpBind != nil))
                await embedded?.shutdown()
                return .failure
            }
        }
        // Each shard's process has its own control file, in its own directory (the data directory when not sharded).
        let controlDirectory = layout.inFlightDirectory(in: configuration.dataDirectory)
        var control: ControlFile?
        if let health {
            let file = ControlFile(
                pid: getpid(), host: ControlFile.host(connectingTo: bind), httpPort: health.port,
                shutdownTimeout: options.shutdownTimeout)
            do {
                try file.write(in: controlDirectory)
                control = file
            } catch {
                log.log(.warning, "cannot write \(ControlFile.url(in: controlDirectory).path): "
                    + "the quarantine commands will not reach this process: \(error)")
            }
        }
        var bannerText = banner(
            configuration: configuration, lineup: lineup, options: options, sandbox: embedded, health: health,
            in: environment)
        if let shard {
            var lines = [Self.shardBannerLine(shard, running: lineup.members.count, of: fleet.members.count)]
            if embedded == nil, case .sandbox = configuration.server {
                lines.append("Chatter sandbox: the one shard 0 serves at \(server.apiBaseURL.absoluteString); "
                    + "data in \(configuration.dataDirectory.path)")
            }
            bannerText = (lines + [bannerText]).joined(separator: "\n")
        }
        environment.standardOutput.write(line: bannerText)
        if let shard { Self.recordShardCount(shard, configuration: configuration, log: log) }

        let shutdown = environment.shutdown
        if shard != nil, lineup.members.isEmpty {
            // An empty shard is still a member of the fleet (shard 0 serves the sandbox): it waits to be stopped,
            // or for a reload to give it bots.
            log.log(.notice, "this shard runs none of the configured bots; it waits until it is stopped or reloaded",
                ["shard": shard.map(\.description) ?? ""])
            await supervisor.waitForBotsWhenEmpty()
        }
        let hangupReloads = Task {
            for await _ in hangups { _ = await reloader.reload(trigger: "SIGHUP") }
        }
        defer { hangupReloads.cancel() }
        let watchInterval = options.configurationWatchInterval
        let fileWatch = Task {
            guard watchInterval > .zero else { return }
            await ConfigurationFileWatch(path: configurationFile.path, interval: watchInterval, clock: environment.clock).run(
                from: readVersion
            ) {
                await reloader.reloadChangedFile()
            }
        }
        defer { fileWatch.cancel() }
        let stopper = Task {
            await shutdown.wait()
            guard shutdown.isRequested else { return }
            await supervisor.shutdown(deadline: options.shutdownTimeout)
        }
        let outcome = await Self.outcome(of: supervisor, shutdown: shutdown, allowing: options.shutdownTimeout + Self.shutdownGrace)
        stopper.cancel()
        hangupReloads.cancel()
        fileWatch.cancel()
        await health?.shutdown()
        // The process ends on its own: what still runs (a handler that ignored its timeout or the shutdown's) did
        // not crash it, and must not be taken for a crash suspect at the next start. Nothing can start any more: the
        // run has ended, or was given up on after the shutdown began.
        inFlight.unmarkRunning()
        // A reload still running (it may be making accounts in the embedded sandbox) ends before the sandbox does,
        // unless the bots were given up on: then a reload waiting for one of them is too.
        await reloader.close(waiting: outcome != nil)
        control?.remove(in: controlDirectory)
        await embedded?.shutdown()
        guard let outcome else {
            log.log(.critical, "the shutdown took longer than its timeout; exiting without waiting for the bots still running",
                ["timeout": "\(options.shutdownTimeout.components.seconds)s"])
            await log.flush()
            return .failure
        }
        if outcome.wasShutDown {
            log.log(.info, "all bots stopped; bye")
            await log.flush()
            return .success
        }
        await log.flush()
        // Restarting (systemd's Restart=on-failure) cannot help these: exit 2, which the unit does not restart.
        return outcome.failures.allSatisfy(\.reason.waitsForAnOperator) ? .usageError : .failure
    }

    /// Watches SIGINT/SIGTERM when the environment says so: the first requests the shutdown, a second calls
    /// `beforeExitingNow` and exits.
    func watchSignals(
        in environment: CommandEnvironment, log: LogSink, beforeExitingNow: @escaping @Sendable () -> Void = {}
    ) -> ShutdownSignals? {
        guard environment.watchesSignals else { return nil }
        let shutdown = environment.shutdown
        return ShutdownSignals(
            onShutdown: { signal in
                let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
                log.log(.notice, "received \(name): shutting down gracefully (send it again to exit at once)")
                shutdown.request()
            },
            beforeExitingNow: beforeExitingNow)
    }

    /// The supervisor's outcome, or nil when it has not come `allowing` after a shutdown request.
    static func outcome(
        of supervisor: BotSupervisor, shutdown: ShutdownRequest, allowing limit: Duration
    ) async -> SupervisorOutcome? {
        let (results, continuation) = AsyncStream.makeStream(of: SupervisorOutcome?.self)
        // When the watchdog wins, this task is left behind: the process exits with the bots still in it.
        _ = Task {
            continuation.yield(await supervisor.run())
        }
        let watchdog = Task {
            await shutdown.wait()
            guard shutdown.isRequested, (try? await Task.sleep(for: limit)) != nil else { return }
            continuation.yield(nil)
        }
        var first: SupervisorOutcome?? = nil
        for await result in results {
            first = result
            break
        }
        watchdog.cancel()
        continuation.finish()
        return first ?? nil
    }

    static func isPortInUse(_ error: SandboxStartError) -> Bool {
        if case .cannotListen(.cannotListen(_, let code)) = error { return code == EADDRINUSE }
        return false
    }

    /// The few lines `run` prints: what runs, where, and how to talk to the bots.
    func banner(
        configuration: BotsConfiguration, lineup: BotLineup, options: BotCommand.RunOptions, sandbox: EmbeddedSandbox?,
        health: HealthServer?, in environment: CommandEnvironment
    ) -> String {
        let count = lineup.members.count
        let bots = lineup.members.map { "\($0.configuration.name) (\($0.configuration.kind), account \($0.configuration.credentials.username))" }
        let file = configurationURL(options.configuration, in: environment).path
        var lines = ["Running \(count) bot\(count == 1 ? "" : "s") from \(file): \(NameSample(bots).joined())"]
        if let sandbox {
            let api = sandbox.sandbox.apiURL.absoluteString
            lines.append("Chatter sandbox: \(api) (realtime \(sandbox.sandbox.webSocketURL.absoluteString), client key \(sandbox.sandbox.clientKey)); "
                + "data in \(configuration.dataDirectory.path)")
            let people = sandbox.testAccounts.map { "\($0.username) (password \($0.password))" }
            lines.append("Test accounts, friends with every bot: \(people.joined(separator: ", "))")
            if let person = sandbox.testAccounts.first, let bot = lineup.members.first?.configuration.credentials.username {
                let port = sandbox.sandbox.apiURL.port ?? EmbeddedSandbox.defaultPort
                let server = port == EmbeddedSandbox.defaultPort ? "" : " --server \(api)"
                lines.append("Talk to the bots, in another terminal: \(programName) say --as \(person.username) --to \(bot)\(server) hello")
                let config = options.configuration.map { " --config \($0)" } ?? ""
                let chatPort = port == EmbeddedSandbox.defaultPort ? "" : " --sandbox-port \(port)"
                lines.append("Or chat live (conversations, typing, receipts): \(programName) chat --as \(person.username)\(config)\(chatPort)")
            }
        } else if case .remote(let apiURL, _, _) = configuration.server {
            lines.append("Server: \(apiURL.absoluteString); data in \(configuration.dataDirectory.path)")
        }
        if let health {
            let bind = options.httpBind ?? configuration.httpBind
            lines.append("Health: \(Self.httpURL(bind: bind, port: health.port, path: "/healthz")) and "
                + Self.httpURL(bind: bind, port: health.port, path: "/metrics"))
            if configuration.console {
                lines.append("Console: \(Self.httpURL(bind: bind, port: health.port, path: "/console/"))")
            }
        }
        lines.append("Logs go to standard error. Ctrl-C stops gracefully (press it twice to exit at once).")
        return lines.joined(separator: "\n")
    }

    /// Who may use the HTTP port's control routes and console, bound to `bind`: the control token of the
    /// environment, required off loopback. Nil, after saying why on standard error, when it cannot be had.
    func controlAccess(bind: String, in environment: CommandEnvironment) -> ControlAccess? {
        do {
            let access = ControlAccess(token: try ControlAccess.token(in: environment.variables))
            try access.check(bind: bind)
            if let warning = access.weakTokenWarning(bind: bind) {
                environment.standardError.write(line: "\(programName): warning: \(warning)")
            }
            return access
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            return nil
        }
    }

    /// The address of `path` on a server bound to `bind`, as the banner prints it: the bound address itself (an
    /// IPv6 one in brackets), a wildcard reached on the loopback address of its family.
    static func httpURL(bind: String, port: Int, path: String) -> String {
        var host = ControlFile.host(connectingTo: bind)
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains(":") { host = "[\(host)]" }
        return "http://\(host):\(port)\(path)"
    }

    /// What to change when the HTTP endpoint cannot listen, after the error: the address when it is none of this
    /// machine's (a name that does not resolve, an address not on an interface), the port when it is taken or
    /// privileged; nothing when neither would help.
    static func listenAdvice(for error: HTTPServerError, bindFromOption: Bool) -> String {
        let bind = bindFromOption ? "--http-bind" : "httpBind in the configuration"
        let changeBind = "; change \(bind) to an address of this machine (127.0.0.1, the default; 0.0.0.0 or :: for every "
            + "interface)"
        switch error {
        case .invalidHost:
            return changeBind
        case .cannotListen(_, let code) where code == EADDRNOTAVAIL || code == EAFNOSUPPORT:
            return changeBind
        case .cannotListen(_, let code) where code == EADDRINUSE || code == EACCES:
            return "; change httpPort in the configuration (0: any free port)"
        case .cannotListen, .eventLoopUnavailable, .eventLoopGroupShutDown:
            return ""
        }
    }
}

/// The run's in-flight table, once it has one: a second shutdown signal exits at once, and the handlers still
/// running then did not crash the process, so they must not count as crash attempts at the next start.
private final class RunningWorkAtExit: Sendable {
    private let table = Mutex<InFlightTable?>(nil)

    func watch(_ inFlight: InFlightTable) {
        table.withLock { $0 = inFlight }
    }

    @Sendable func unmark() {
        table.withLock { $0 }?.unmarkRunning()
    }
}
