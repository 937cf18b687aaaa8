import Foundation

/// What `/readyz` answers for a long-lived fleet: the process is ready once every bot it started with has been live
/// once, and stays ready until it shuts down. Bots a reload added, and bots that stopped on their own (a refused
/// password, `crashing`, a revoked device, a storage failure), are reported but never waited for: waiting cannot bring
/// them up, and one of them must not take a pod whose other bots work out of its Service or stall a rollout. With a
/// bound on the wait (`readinessTimeoutSeconds`), the process is also ready once the bound has passed since the start,
/// and the bots of the start not live yet are then reported as not waited for: one that retries for ever (an
/// account the server rate-limits) must not keep the pod unready for good either.
///
/// Kept as bots join, go live, stop and leave rather than worked out on each probe: a verdict costs the names it
/// gives, not the fleet. Bots are known by an id and listed in configuration order (`rank`); a bot a reload is
/// removing has left, and a bot a reload is replacing is its successor, not live yet, from the start of the
/// replacement.
struct FleetReadiness: Sendable {
    private struct Entry: Sendable {
        var rank: Int
        var name: String
        /// Whether the process waits for it: a bot of the start, or a reload's new session of one that had not been
        /// live yet.
        var isAwaited: Bool
        /// Whether it has been live once (`BotStatus.firstLiveAt`).
        var hasBeenLive = false
        /// Whether its session ended by itself.
        var hasStopped = false
    }

    private var entries: [Int: Entry] = [:]
    private var idsByRank: [Int: Int] = [:]
    /// Running bots not live yet that the process waits for, and those it does not.
    private var awaitedNotLive = OrderedRanks()
    private var unawaitedNotLive = OrderedRanks()
    private var stopped = OrderedRanks()

    /// Whether the process has been ready: from then on only a shutdown makes it unready.
    private(set) var hasBeenReady = false
    /// When the process stops waiting for the bots of the start; nil: it waits until they have been live.
    private(set) var waitEnds: Date?
    /// Whether the process became ready because the wait ended with bots of the start not live yet, and whether
    /// `endWait(at:shuttingDown:)` has said so.
    private var gaveUpWaiting = false
    private var gaveUpWaitingTold = false

    /// Waits for the bots of the start at most `limit` from `start`.
    mutating func waitAtMost(_ limit: Duration, from start: Date) {
        waitEnds = start.adding(limit)
    }

    /// Lists the bot `id` at `rank`, not live yet; a bot already listed is left as it is.
    mutating func join(_ id: Int, rank: Int, name: String, isAwaited: Bool) {
        guard entries[id] == nil else { return }
        let entry = Entry(rank: rank, name: name, isAwaited: isAwaited)
        entries[id] = entry
        idsByRank[rank] = id
        file(entry, adding: true)
    }

    /// The name of the bot `id`, once known.
    mutating func name(_ id: Int, _ name: String) {
        entries[id]?.name = name
    }

    /// The bot `id` has been live.
    mutating func wentLive(_ id: Int) {
        change(id) { $0.hasBeenLive = true }
    }

    /// The session of the bot `id` ended by itself.
    mutating func stopped(_ id: Int) {
        change(id) { $0.hasStopped = true }
    }

    /// The bot `id` is no longer listed (a reload removes or replaces it).
    mutating func leave(_ id: Int) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if idsByRank[entry.rank] == id { idsByRank[entry.rank] = nil }
        file(entry, adding: false)
    }

    /// The verdict at `now`, naming at most `limit` bots a line, remembering that the process became ready.
    mutating func verdict(shuttingDown: Bool, at now: Date, limit: Int = NameSample.limit) -> ReadinessVerdict {
        settle(shuttingDown: shuttingDown, at: now)
        let waitingFor = hasBeenReady ? OrderedRanks() : awaitedNotLive
        let notWaitedFor = hasBeenReady ? awaitedNotLive.prefix(limit, mergedWith: unawaitedNotLive)
            : Array(unawaitedNotLive.prefix(limit))
        return ReadinessVerdict(
            isReady: !shuttingDown && hasBeenReady, shuttingDown: shuttingDown,
            waitingFor: sample(Array(waitingFor.prefix(limit)), count: waitingFor.count, limit: limit),
            notWaitedFor: sample(
                notWaitedFor, count: unawaitedNotLive.count + (hasBeenReady ? awaitedNotLive.count : 0), limit: limit),
            stopped: sample(Array(stopped.prefix(limit)), count: stopped.count, limit: limit))
    }

    /// At the end of the wait (`waitEnds`, or later): the bots of the start not live yet, which the process no
    /// longer waits for, the first time only; nil when it was ready without giving up on any, or is shutting down.
    mutating func endWait(at now: Date, shuttingDown: Bool, limit: Int = NameSample.limit) -> NameSample? {
        settle(shuttingDown: shuttingDown, at: now)
        guard gaveUpWaiting, !gaveUpWaitingTold, !awaitedNotLive.isEmpty else { return nil }
        gaveUpWaitingTold = true
        return sample(Array(awaitedNotLive.prefix(limit)), count: awaitedNotLive.count, limit: limit)
    }

    /// Remembers that the process became ready: every bot of the start has been live, or the wait has ended.
    private mutating func settle(shuttingDown: Bool, at now: Date) {
        guard !hasBeenReady, !shuttingDown else { return }
        if awaitedNotLive.isEmpty {
            hasBeenReady = true
        } else if let waitEnds, now >= waitEnds {
            hasBeenReady = true
            gaveUpWaiting = true
        }
    }

    private func sample(_ ranks: [Int], count: Int, limit: Int) -> NameSample {
        NameSample(ranks.compactMap { idsByRank[$0].flatMap { entries[$0]?.name } }, count: count, limit: limit)
    }

    private mutating func change(_ id: Int, _ body: (inout Entry) -> Void) {
        guard var entry = entries[id] else { return }
        file(entry, adding: false)
        body(&entry)
        entries[id] = entry
        file(entry, adding: true)
    }

    /// Puts the bot in, or takes it out of, the set its facts place it in.
    private mutating func file(_ entry: Entry, adding: Bool) {
        func apply(_ set: inout OrderedRanks) {
            if adding { set.insert(entry.rank) } else { set.remove(entry.rank) }
        }
        if entry.hasStopped {
            apply(&stopped)
        } else if !entry.hasBeenLive {
            if entry.isAwaited { apply(&awaitedNotLive) } else { apply(&unawaitedNotLive) }
        }
    }
}

/// `/readyz`'s answer: whether the process is ready, and the bots it waits for or does not.
struct ReadinessVerdict: Sendable, Equatable {
    var isReady: Bool
    var shuttingDown: Bool
    /// The bots of the start that have not been live yet, while the process is not ready.
    var waitingFor: NameSample
    /// The bots running that have not been live yet and are not waited for (a reload's, or any once ready, as
    /// once the wait for the bots of the start has ended).
    var notWaitedFor: NameSample
    /// The bots that stopped on their own.
    var stopped: NameSample

    /// The probe's body: the verdict on the first line, then the bots not waited for, at most `NameSample.limit`
    /// names a line.
    var text: String {
        var lines: [String]
        if shuttingDown {
            lines = ["not ready: shutting down"]
        } else if isReady {
            lines = ["ready"]
        } else {
            lines = ["not ready: waiting for \(waitingFor.count) bot(s) to start: \(waitingFor.joined())"]
        }
        if !shuttingDown && notWaitedFor.count > 0 {
            lines.append("not live yet, not waited for: \(notWaitedFor.count) bot(s): \(notWaitedFor.joined())")
        }
        if !shuttingDown && stopped.count > 0 {
            lines.append("stopped on their own, not waited for (see /healthz): \(stopped.count) bot(s): "
                + stopped.joined())
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
