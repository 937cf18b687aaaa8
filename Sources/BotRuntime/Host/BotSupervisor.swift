import Foundation

/// Runs many bots in one process, each isolated from the others: a bot that stops (a refused password, close
/// 4002, a revoked device) is logged with what to fix and the others go on. `shutdown(deadline:)` stops them all
/// gracefully; `run()` returns when every bot has stopped.
///
/// ```swift
/// let supervisor = BotSupervisor(bots: sessions, log: log)
/// async let outcome = supervisor.run()
/// // … on SIGTERM:
/// await supervisor.shutdown(deadline: .seconds(10))
/// ```
public actor BotSupervisor {
    private struct Member {
        let bot: any SupervisedBot
        var name: String
        var stopReason: BotStopReason?
    }

    private var members: [Member]
    private let log: LogSink
    private var isShuttingDown = false
    private var shutdownDeadline: Duration?
    private var hasRun = false

    /// Supervises `bots` (in this order in statuses and metrics). Nothing runs before `run()`.
    public init(bots: [any SupervisedBot], log: LogSink) {
        self.members = bots.map { Member(bot: $0, name: "", stopReason: nil) }
        self.log = log
    }

    /// Runs every bot concurrently and returns when all have stopped, either because `shutdown(deadline:)` was
    /// called or each stopped on its own. Cancelling the calling task shuts the bots down with a 10 s deadline.
    /// Calling it again returns the first run's outcome at once.
    public func run() async -> SupervisorOutcome {
        guard !hasRun else { return outcome }
        hasRun = true
        for index in members.indices {
            members[index].name = await members[index].bot.status.name
        }
        let bots = members.enumerated().map { (index: $0.offset, bot: $0.element.bot) }
        if isShuttingDown {
            for index in members.indices { members[index].stopReason = .shutdown }
            return outcome
        }
        log.log(.info, "starting \(bots.count) bot\(bots.count == 1 ? "" : "s")", ["bots": members.map(\.name).joined(separator: ",")])
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                for (index, bot) in bots {
                    group.addTask {
                        let reason = await bot.run()
                        await self.botStopped(at: index, reason: reason)
                    }
                }
            }
        } onCancel: {
            Task { await self.shutdown(deadline: .seconds(10)) }
        }
        if !isShuttingDown {
            log.log(.error, "every bot has stopped; nothing left to run")
        }
        return outcome
    }

    /// Asks every bot to stop: no new work; running handlers finish and pending acknowledgements arrive within
    /// `deadline`; connections close with 1000. Returns when every bot has finished its shutdown. Later calls
    /// return at once.
    public func shutdown(deadline: Duration) async {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        shutdownDeadline = deadline
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) * 1e-18
        log.log(.info, "shutting down", ["deadline": String(format: "%.1fs", seconds)])
        let running = members.filter { $0.stopReason == nil }.map(\.bot)
        await withTaskGroup(of: Void.self) { group in
            for bot in running {
                group.addTask { await bot.shutdown(deadline: deadline) }
            }
        }
    }

    /// Whether `shutdown(deadline:)` was called.
    public var shuttingDown: Bool { isShuttingDown }

    /// Each bot's status, in configuration order. A bot that stopped shows `.stopped`, not connected, and (unless it
    /// was asked to stop) the reason as `lastError`.
    public func statuses() async -> [BotStatus] {
        var result: [BotStatus] = []
        for member in members {
            var status = await member.bot.status
            if let reason = member.stopReason {
                if case .crashing = reason { status.state = .crashing } else { status.state = .stopped }
                status.connected = false
                status.stopReason = reason.description
                if reason != .shutdown { status.lastError = reason.description }
            }
            result.append(status)
        }
        return result
    }

    /// What `/healthz` reports: every bot's status, and whether the process is healthy.
    public func health() async -> HealthReport {
        HealthReport(shuttingDown: isShuttingDown, bots: await statuses())
    }

    /// Each bot with its name, in configuration order (before `run()` too): what the control routes act on.
    package func namedBots() async -> [(name: String, bot: any SupervisedBot)] {
        var result: [(name: String, bot: any SupervisedBot)] = []
        for member in members {
            result.append((member.name.isEmpty ? await member.bot.status.name : member.name, member.bot))
        }
        return result
    }

    /// Why each bot stopped, for the bots that did.
    public var stopReasons: [String: BotStopReason] {
        members.reduce(into: [:]) { reasons, member in
            if let reason = member.stopReason { reasons[member.name] = reason }
        }
    }

    private var outcome: SupervisorOutcome {
        SupervisorOutcome(
            wasShutDown: isShuttingDown,
            stops: members.map { SupervisorOutcome.Stop(bot: $0.name, reason: $0.stopReason ?? .shutdown) })
    }

    private func botStopped(at index: Int, reason: BotStopReason) {
        members[index].stopReason = reason
        let name = members[index].name
        if reason == .shutdown {
            log.log(.info, "bot stopped", bot: name)
        } else {
            let others = members.filter { $0.stopReason == nil }.count
            log.log(.error, "bot stopped: \(reason.description)", bot: name, [
                "reason": reason.kindName, "configurationError": String(reason.isConfigurationError),
                "othersRunning": String(others),
            ])
        }
    }
}

/// How a supervised run ended: whether it was asked to stop, and why each bot stopped.
public struct SupervisorOutcome: Sendable, Equatable {
    /// One bot's end.
    public struct Stop: Sendable, Equatable {
        /// The bot's name.
        public var bot: String
        /// Why it stopped.
        public var reason: BotStopReason
    }

    /// Whether `BotSupervisor.shutdown(deadline:)` was called (the bots did not all stop on their own).
    public var wasShutDown: Bool
    /// Each bot, in configuration order.
    public var stops: [Stop]

    /// The bots that stopped for another reason than a shutdown.
    public var failures: [Stop] { stops.filter { $0.reason != .shutdown } }
}

extension BotStopReason {
    /// A short machine-friendly name of the case, for log fields.
    var kindName: String {
        switch self {
        case .shutdown: "shutdown"
        case .configurationError: "configuration_error"
        case .credentialsRejected: "credentials_rejected"
        case .revoked: "revoked"
        case .storageFailed: "storage_failed"
        case .crashing: "crashing"
        }
    }
}
