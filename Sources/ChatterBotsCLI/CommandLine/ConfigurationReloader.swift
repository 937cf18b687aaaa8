import BotRuntime
import ChatterBots
import Foundation

/// Reads `bots.json` again for a running `run` and carries out what `ConfigurationReload` decides: bots removed
/// stop gracefully, changed ones and ones that stopped on their own restart, added ones start (each through the
/// supervisor, whose task group owns their tasks); unchanged running bots are not touched. A file that does not
/// validate (`BotsConfiguration` and the kinds, as at start) changes nothing, and every error is logged and returned.
/// The reload makes no bot: each session makes its own as it starts, after reading its quarantine, so a kind whose
/// `make` is quarantined is not run again, and one that refuses its options stops only its bot. Reloads run one
/// after the other, whatever triggered them (SIGHUP, `POST /reload`, the file watch).
actor ConfigurationReloader: ConfigurationReloading {
    /// What a reload needs of the running process.
    struct Setup: Sendable {
        var file: URL
        var variables: [String: String]
        var kinds: [BotKind]
        var shard: Shard?
        var supervisor: BotSupervisor
        var host: BotHost
        var makeSession: @Sendable (BotLineup.Member, BotHost) -> any SupervisedBot
        /// How long a stopping bot may take to finish its handlers and acknowledgements.
        var stopDeadline: Duration
        /// The embedded sandbox, which makes the accounts of added bots.
        var sandbox: EmbeddedSandbox?
    }

    private let setup: Setup
    private var current: BotsConfiguration
    private(set) var generation: ConfigurationGeneration
    /// What a reload did, and whether it failed only because the file could not be read, for now.
    private typealias Outcome = (report: ReloadReport, mayReadLater: Bool)

    /// The reload running or last run: the next one waits for it.
    private var last: Task<Outcome, Never>?
    /// The process is ending: reloads are refused.
    private var isClosed = false

    init(setup: Setup, configuration: BotsConfiguration) {
        self.setup = setup
        self.current = configuration
        self.generation = ConfigurationGeneration(generation: 1, loadedAt: setup.host.clock.now)
    }

    /// The bots of the configuration in force that this process runs (this shard's), as of the last reload applied.
    func runningBots() -> [BotConfiguration] {
        ConfigurationReload.bots(of: current, on: setup.shard)
    }

    func reload(trigger: String) async -> ReloadReport {
        await reloadOutcome(trigger: trigger).report
    }

    /// A reload for the file watch, which saw a new version of the file: false when the file could not be read at
    /// all (out of descriptors, say), so that the watch tries the same version again at its next look.
    func reloadChangedFile() async -> Bool {
        !(await reloadOutcome(trigger: "the file changed").mayReadLater)
    }

    private func reloadOutcome(trigger: String) async -> Outcome {
        guard !isClosed else {
            return (ReloadReport(applied: false, generation: generation.generation, errors: ["the process is stopping"]), false)
        }
        let previous = last
        let next = Task { _ = await previous?.value; return await perform(trigger: trigger) }
        last = next
        return await next.value
    }

    /// Refuses reloads from now on and, when `waiting`, returns once the one running, if any, has ended: the process
    /// is ending, and what a reload uses (the embedded sandbox) is about to be shut down. Not `waiting` is for a
    /// process that gave up on its bots: what still runs is abandoned.
    func close(waiting: Bool) async {
        isClosed = true
        if waiting { _ = await last?.value }
    }

    private func perform(trigger: String) async -> Outcome {
        let log = setup.host.log
        log.log(.notice, "reloading \(setup.file.path)", ["trigger": trigger])
        let next: BotsConfiguration
        let lineup: BotLineup
        do {
            next = try BotsConfiguration.load(
                contentsOf: setup.file, environment: setup.variables, knownKinds: Set(setup.kinds.map(\.name)))
            lineup = try BotLineup(configuration: next, kinds: setup.kinds)
        } catch {
            return (refuse(error.issues, log: log), error.mayReadLater)
        }
        for bot in next.bots { bot.secrets.forEach(log.registerSecret) }
        let change: FleetChange
        let stopped = await setup.supervisor.botsStoppedOnTheirOwn()
        switch ConfigurationReload(from: current, to: next, shard: setup.shard, stopped: stopped) {
        case .refused(let issues):
            return (refuse(issues, log: log), false)
        case .apply(let fleetChange):
            change = fleetChange
        }
        let members = Dictionary(lineup.members.map { ($0.configuration.name, $0) }, uniquingKeysWith: { first, _ in first })
        for warning in next.warnings { log.log(.warning, "configuration: \(warning)") }
        if let sandbox = setup.sandbox {
            // Every shard's new or changed accounts: the shards of this fleet sign in to this sandbox.
            let accounts = FleetChange(from: current.bots, to: next.bots)
            for problem in await sandbox.provision(bots: accounts.starts + accounts.restarts) {
                log.log(.warning, "sandbox: \(problem)")
            }
        }
        let supervisor = setup.supervisor
        let deadline = setup.stopDeadline
        let clock = setup.host.clock
        // A bot that does not stop in time is not waited for beyond `BotSupervisor.stopGrace`: the reload goes on.
        await supervisor.beginMembershipChange()
        await withTaskGroup(of: Void.self) { group in
            for name in change.stops {
                group.addTask { await supervisor.remove(named: name, deadline: deadline, clock: clock) }
            }
            for bot in change.restarts {
                guard let member = members[bot.name] else { continue }
                let session = setup.makeSession(member, setup.host)
                group.addTask { await supervisor.replace(named: bot.name, with: session, deadline: deadline, clock: clock) }
            }
        }
        for bot in change.starts {
            guard let member = members[bot.name] else { continue }
            await supervisor.add(setup.makeSession(member, setup.host), named: bot.name)
        }
        await supervisor.endMembershipChange()
        if next != current {
            generation = ConfigurationGeneration(generation: generation.generation + 1, loadedAt: setup.host.clock.now)
        }
        generation.lastReload = .init(applied: true, at: setup.host.clock.now)
        // Bots added now count as in the fleet at the next change of the shard count.
        if let shard = setup.shard { BotCommandLine.recordShardCount(shard, configuration: next, log: log) }
        current = next
        let report = ReloadReport(
            applied: true, generation: generation.generation, started: change.starts.map(\.name), stopped: change.stops,
            restarted: change.restarts.map(\.name), unchanged: change.unchanged.count)
        log.log(.notice, report.summary, [
            "generation": String(generation.generation), "started": String(change.starts.count),
            "stopped": String(change.stops.count), "restarted": String(change.restarts.count),
        ])
        return (report, false)
    }

    private func refuse(_ issues: [ConfigurationIssue], log: LogSink) -> ReloadReport {
        let report = ReloadReport(applied: false, generation: generation.generation, errors: issues.map(\.description))
        generation.lastReload = .init(applied: false, at: setup.host.clock.now, errors: report.errors)
        log.log(.error, "\(setup.file.path): \(report.summary)", ["generation": String(generation.generation)])
        return report
    }
}
