import Foundation

/// What a bot does with work that was running when the process died: the rules of `docs/quarantine.md`, as a
/// value that takes the suspects found at start and each piece of work as it comes, and says what to do.
///
/// - Work a crash caught `attempts` times is a suspect. One below `maxAttempts` runs again, alone: while the bot
///   has suspects it is on probation, and runs one handler at a time.
/// - A suspect at `maxAttempts` is quarantined: not run, recorded, and the bot goes on with the next work. Work
///   that comes again with the key of a standing entry (a pending friend request at each sync, the presence snapshot
///   at each connect) is passed over too, until the entry is retried or dropped.
/// - A bot with more than `maxQuarantinesPerHour` quarantines in an hour, or whose lifecycle work (its kind's
///   `make`, `onStart`, `onReady`) reached `maxAttempts`, is crashing: it stops, and the other bots keep running.
struct QuarantineRules: Sendable {
    /// What to do with one piece of work.
    enum Verdict: Equatable, Sendable {
        /// Not a suspect: run it as usual.
        case run
        /// A suspect below the limit: run it alone, then clear it if it returns.
        case runAsSuspect(CrashSuspect)
        /// A suspect at the limit: set it aside instead of running it.
        case quarantine(CrashSuspect)
        /// Work a standing quarantine entry holds, come again: counted as handled without running.
        case passOver
    }

    let maxAttempts: Int
    let maxQuarantinesPerHour: Int
    private(set) var suspects: [String: CrashSuspect]
    /// The keys of the quarantine's standing entries: not asked to be retried, and not lifecycle work
    /// (which stop the bot instead, and run at its start once retried).
    private(set) var quarantinedKeys: Set<String> = []
    /// Probation ended: the suspects left did not come back when expected.
    private var probationEnded = false

    init(suspects: [CrashSuspect], maxAttempts: Int, maxQuarantinesPerHour: Int) {
        self.maxAttempts = max(1, maxAttempts)
        self.maxQuarantinesPerHour = max(0, maxQuarantinesPerHour)
        self.suspects = Dictionary(suspects.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the bot runs one handler at a time: it has suspects that may still come back.
    var isOnProbation: Bool { !probationEnded && !suspects.isEmpty }

    /// Whether work may need more than running: the bot is on probation, or has standing quarantine entries.
    var watchesWork: Bool { isOnProbation || !quarantinedKeys.isEmpty }

    /// What to do with the work named `key`. A quarantined suspect is no longer one.
    mutating func verdict(for key: String) -> Verdict {
        guard !quarantinedKeys.contains(key) else { return .passOver }
        guard let suspect = suspects[key] else { return .run }
        guard suspect.attempts >= maxAttempts else { return .runAsSuspect(suspect) }
        suspects[key] = nil
        quarantinedKeys.insert(key)
        return .quarantine(suspect)
    }

    /// The quarantine as stored now: its standing entries are what later work is passed over for.
    mutating func quarantineChanged(_ entries: [QuarantineEntry]) {
        quarantinedKeys = Set(entries.lazy.filter { !$0.retryRequested && !Self.lifecycleHandlers.contains($0.key) }.map(\.key))
    }

    /// The work `key` ran without the process dying: if it was a suspect, it is cleared. Returns the suspect, and
    /// whether the probation ended with it; nil when it was not a suspect.
    mutating func passed(_ key: String) -> (suspect: CrashSuspect, probationEnded: Bool)? {
        guard let suspect = suspects.removeValue(forKey: key) else { return nil }
        return (suspect, !probationEnded && suspects.isEmpty)
    }

    /// The bot is live and idle and the suspects left did not come back (handled before the crash was noticed, or
    /// events the service does not send again): they are forgotten. Returns their keys. The suspects in `running`
    /// came back and still have their turn, in the grace after their timeout: they stay suspects until it ends
    /// (`passed`, or kept for the next start when the session stops).
    mutating func endProbation(keeping running: Set<String> = []) -> [String] {
        probationEnded = true
        let left = suspects.keys.filter { !running.contains($0) }.sorted()
        for key in left { suspects[key] = nil }
        return left
    }

    /// The lifecycle suspects (`make`, `onStart`, `onReady`) at the limit, to be quarantined at once: they run at every
    /// start, so waiting for them to come back would crash the process again.
    mutating func takeLifecycleSuspectsAtLimit() -> [CrashSuspect] {
        Self.lifecycleHandlers.compactMap { key in
            guard let suspect = suspects[key], suspect.attempts >= maxAttempts else { return nil }
            suspects[key] = nil
            return suspect
        }
    }

    /// Why the bot named `bot` must stop as crashing before it starts, if it must: a lifecycle handler is in its
    /// quarantine, or it had too many quarantines within the last hour. Entries an operator asked to retry do not
    /// count: the retry is what lets the bot start again.
    func crashingReason(bot: String, quarantine: [QuarantineEntry], now: Date) -> String? {
        let standing = quarantine.filter { !$0.retryRequested }
        if let lifecycle = standing.first(where: { Self.lifecycleHandlers.contains($0.key) }) {
            return "\(lifecycle.handler) crashed the process \(lifecycle.attempts) times (last at trace \(lifecycle.trace)); "
                + "fix the bot, then run `quarantine retry \(bot)/\(lifecycle.id)` and reload (or restart the process) to start it again"
        }
        return tooManyQuarantines(standing.filter { $0.quarantinedAt > now.addingTimeInterval(-3600) }.count)
    }

    /// The work every start runs: the bot kind's `make`, `onStart` and `onReady`.
    static let lifecycleHandlers = [BotMaking.workKey, "onStart", "onReady"]

    /// Why the bot must stop after a quarantine, when it has had more than `maxQuarantinesPerHour` within an hour.
    func tooManyQuarantines(_ count: Int) -> String? {
        guard count > maxQuarantinesPerHour else { return nil }
        return "\(count) pieces of work crashed the process and were quarantined within an hour (more than "
            + "\(maxQuarantinesPerHour)); fix the bot, then `quarantine retry` or `quarantine drop` its entries and reload "
            + "(or restart the process) to start it again"
    }
}
