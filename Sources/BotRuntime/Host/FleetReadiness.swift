/// What `/readyz` answers for a long-lived fleet: the process is ready once every bot it started with has been live
/// once, and stays ready until it shuts down. Bots a reload added, and bots that stopped on their own (a refused
/// password, `crashing`, a revoked device, a storage failure), are reported but never waited for: waiting cannot bring
/// them up, and one of them must not take a pod whose other bots work out of its Service or stall a rollout.
struct FleetReadiness: Sendable, Equatable {
    /// One bot as readiness sees it.
    struct Bot: Sendable, Equatable {
        var name: String
        /// Whether the process waits for it: a bot of the start, or a reload's new session of one that had not been
        /// live yet.
        var isAwaited: Bool
        /// Whether it has been live once (`BotStatus.firstLiveAt`).
        var hasBeenLive: Bool
        /// Whether its session ended by itself (a bot a reload is removing is left out of the list instead).
        var hasStopped: Bool
    }

    /// Whether the process has been ready: from then on only a shutdown makes it unready.
    private(set) var hasBeenReady = false

    /// The verdict for `bots` (in configuration order) now, remembering that the process became ready.
    mutating func verdict(bots: [Bot], shuttingDown: Bool) -> ReadinessVerdict {
        let notLive = bots.filter { !$0.hasStopped && !$0.hasBeenLive }
        if !shuttingDown && !notLive.contains(where: \.isAwaited) { hasBeenReady = true }
        return ReadinessVerdict(
            isReady: !shuttingDown && hasBeenReady, shuttingDown: shuttingDown,
            waitingFor: notLive.filter { !hasBeenReady && $0.isAwaited }.map(\.name),
            notWaitedFor: notLive.filter { hasBeenReady || !$0.isAwaited }.map(\.name),
            stopped: bots.filter(\.hasStopped).map(\.name))
    }
}

/// `/readyz`'s answer: whether the process is ready, and the bots it waits for or does not.
struct ReadinessVerdict: Sendable, Equatable {
    var isReady: Bool
    var shuttingDown: Bool
    /// The bots of the start that have not been live yet, while the process is not ready.
    var waitingFor: [String]
    /// The bots running that have not been live yet and are not waited for (a reload's, or any once ready).
    var notWaitedFor: [String]
    /// The bots that stopped on their own.
    var stopped: [String]

    /// The probe's body: the verdict on the first line, then the bots not waited for, at most `NameSample.limit`
    /// names a line.
    var text: String {
        var lines: [String]
        if shuttingDown {
            lines = ["not ready: shutting down"]
        } else if isReady {
            lines = ["ready"]
        } else {
            lines = ["not ready: waiting for \(waitingFor.count) bot(s) to start: \(NameSample(waitingFor).joined())"]
        }
        if !shuttingDown && !notWaitedFor.isEmpty {
            lines.append("not live yet, not waited for: \(notWaitedFor.count) bot(s): \(NameSample(notWaitedFor).joined())")
        }
        if !shuttingDown && !stopped.isEmpty {
            lines.append("stopped on their own, not waited for (see /healthz): \(stopped.count) bot(s): "
                + NameSample(stopped).joined())
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
